/**
 * Tenancy (docs/service.md, "Tenancy choices"): companies → organizations → folders, company tokens, the root token,
 * per-company callback secrets, authorized models with aliases, the default destination, and each
 * company's settings (company-settings.ts).
 *
 * `Tenancy` is the port every role reads through (synchronously: it is read on every request);
 * administrative changes go through `change(fn)`, which hands `fn` a `TenancyAdmin` and commits what
 * it did in one transaction. Adapters: SqliteTenancy (the embedded file, sqlite-tenancy.ts) and
 * PgTenancy (PostgreSQL, shared by every node, pg-tenancy.ts). Both seal callback secrets with the
 * installation's secrets key (loadSecretKey).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { voxdexError } from '../errors.js';
import { invalidParameter, isShortName } from '../is.js';
import type { CompanySettings, Destination } from '../types.js';
import { SecretBox } from './secret-box.js';

export type Principal = { kind: 'root' } | { kind: 'company'; company: string };

export interface CompanyInfo {
  company: string;
  defaultOrg: string;
  defaultFolder: string;
  /** Authorized model names; empty means every installed model. */
  models: string[];
  /** alias → installed model name. */
  aliases: Record<string, string>;
  created: string;
}

export interface AddCompanyOptions {
  org: string;
  folder: string;
  models?: string[];
}

/** The model a company gets when it names none and has no list: chosen per file by sample rate. */
export const AUTO_MODEL = 'auto';

/** What every role reads, synchronously, on each request. */
export interface TenancyReads {
  /** Who holds `token`: the root, or a company. Missing or unknown → BAD_TOKEN (401). */
  authenticate(token: string | undefined | null): Principal;
  /** Root may act on every company; a company only on itself (else FORBIDDEN, 403). */
  authorize(principal: Principal, company: string): void;
  /** Company, org (and folder when given) must exist; else NOT_FOUND (404). Names are checked first (BAD_NAME). */
  requireScope(company: string, org: string, folder?: string): void;
  /** The installed model a request gets (aliases, the company default, its authorized list). */
  resolveModel(company: string, requested: string | undefined, installed: readonly string[]): string;
  hasCompany(company: string): boolean;
  getCompany(company: string): CompanyInfo;
  listCompanies(): CompanyInfo[];
  listOrgs(company: string): string[];
  listFolders(company: string, org: string): string[];
  /** The company's callback signing secret (stored sealed). */
  callbackSecret(company: string): string;
  defaultDestination(company: string): Destination;
  /** The company's settings ({} until any is set). */
  companySettings(company: string): CompanySettings;
}

/** The administrative changes (the admin CLI), with the same checks and messages in every adapter. */
export interface TenancyAdmin extends TenancyReads {
  /**
   * Creates the company, org and folder where they do not exist yet, makes org/folder the default
   * destination, sets the model list when given, and issues a new token (earlier tokens stay valid).
   */
  addCompany(company: string, options: AddCompanyOptions): { token: string; callbackSecret: string; created: boolean };
  /** Creates the organization unless it exists; true when it was created. */
  addOrg(company: string, org: string): boolean;
  /** Creates the folder (and its organization) where missing; says which of them it created. */
  addFolder(company: string, org: string, folder: string): { orgCreated: boolean; folderCreated: boolean };
  /** Revokes every token of the company and returns the one new token. */
  rotateToken(company: string): string;
  /** Replaces the company's callback signing secret with a new one and returns it (callbacks are signed with it from the next attempt on). */
  rotateCallbackSecret(company: string): string;
  setModels(company: string, models: string[]): void;
  /** Maps `alias` (e.g. "eng1:callcenter") to an installed model name for this company. */
  setModelAlias(company: string, alias: string, model: string): void;
  /** Applies `patch` to the company's settings (validated, merged); returns the result. */
  setCompanySettings(company: string, patch: CompanySettings): CompanySettings;
  /** Adds phrases to the company's vocabulary; returns those that were new. */
  addVocab(company: string, phrases: string[]): string[];
  /** Removes phrases from the company's vocabulary; returns those it held. */
  removeVocab(company: string, phrases: string[]): string[];
}

/** The port: reads, and changes applied atomically (PostgreSQL: under a lock, then every node reloads). */
export interface Tenancy extends TenancyReads {
  /** A key derived from the installation's secrets key for `purpose` (`audio`: recordings at rest, src/audio/sealed-file.ts); the same on every node. */
  derivedKey(purpose: 'audio'): Buffer;
  /** Runs `fn` on the current tenancy in one transaction and commits what it changed; resolves to what `fn` returned. */
  change<T>(fn: (admin: TenancyAdmin) => T): Promise<T>;
  /** Shorthand for change((t) => t.setCompanySettings(company, patch)). */
  setCompanySettings(company: string, patch: CompanySettings): Promise<CompanySettings> | CompanySettings;
  close(): void | Promise<void>;
}

export function tenancyDbPath(dataDir: string): string {
  return path.join(dataDir, 'tenancy.sqlite');
}

/** The key that seals callback secrets: VOXDEX_SECRETS_KEY_FILE, else `secrets.key` beside the root token file. */
export function secretKeyPath(config: { rootTokenFile: string; secretsKeyFile?: string }): string {
  return config.secretsKeyFile ?? path.join(path.dirname(config.rootTokenFile), 'secrets.key');
}

/** Throws BAD_NAME (400) unless `value` is a short name: [A-Za-z0-9_.-]{1,64}, not . or .. (docs/service.md, "Tenancy choices"). */
export function checkShortName(what: string, value: unknown): string {
  if (!isShortName(value)) throw invalidParameter(what, 'a short name of 1-64 characters A-Z a-z 0-9 _ . -', value, 'BAD_NAME');
  return value;
}

/** Reads the secrets key file (64 hex characters), creating it (0600) when it does not exist; `created` says which. */
export function loadSecretKey(keyFile: string): { box: SecretBox; created: boolean } {
  const created = !existsSync(keyFile);
  const hex = created ? ensureRootToken(keyFile).token : readFileSync(keyFile, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw voxdexError('SECRET_KEY_INVALID', `The key file ${keyFile} does not hold a key (64 hex characters); restore it from the backup of this data dir.`);
  return { box: new SecretBox(Buffer.from(hex, 'hex'), keyFile), created };
}

/**
 * Reads the root token file, creating it with a random value (mode 0600, fsynced) when missing.
 * The value is never logged; callers print only the path.
 */
export function ensureRootToken(file: string): { token: string; created: boolean } {
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= 16) return { token, created: false };
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const token = randomBytes(32).toString('hex');
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process created it between our check and open, or it was empty: read what is there.
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) return { token: existing, created: false };
    fd = openSync(file, 'w', 0o600);
  }
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o600);
  return { token, created: true };
}

/** A company's settings as they are now, or undefined for one that does not exist (any more): what a write of its transcript is checked against. */
export function settingsNow(tenancy: Pick<TenancyReads, 'hasCompany' | 'companySettings'>): (company: string) => CompanySettings | undefined {
  return (company) => (tenancy.hasCompany(company) ? tenancy.companySettings(company) : undefined);
}
