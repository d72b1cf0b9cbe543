/**
 * Tenancy (tenancy.ts) in SQLite: the embedded file `<dataDir>/tenancy.sqlite` (WAL, so that the
 * admin CLI can change it while the service runs), or an in-memory copy of PostgreSQL's rows
 * (pg-tenancy.ts, through `exportRows`/`replaceRows`). Company tokens are 32 lowercase hex
 * characters and are stored only as SHA-256 hashes; every token comparison is constant-time over
 * the hashes.
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { voxdexError } from '../errors.js';
import { invalidParameter } from '../is.js';
import { openSqlite } from '../store/sqlite/sqlite.js';
import type { CompanySettings, Destination } from '../types.js';
import { mergeCompanySettings, normalizePhrase, parseCompanySettings } from './company-settings.js';
import { SecretBox } from './secret-box.js';
import {
  AUTO_MODEL, checkShortName, ensureRootToken, loadSecretKey, secretKeyPath, tenancyDbPath,
  type AddCompanyOptions, type CompanyInfo, type Principal, type Tenancy, type TenancyAdmin,
} from './tenancy.js';

const COMPANY_TOKEN = /^[0-9a-f]{32}$/;

export interface TenancyOptions {
  /** The installation's root token, if known. */
  rootToken?: string;
  /** The secret key file (default: `secrets.key` beside the database; ':memory:' databases use a key in memory). */
  keyFile?: string;
  /**
   * The key to seal and open callback secrets with, already loaded (instead of `keyFile`): the
   * in-memory copies of PostgreSQL's tenancy rows (pg-tenancy.ts) use the installation's key.
   */
  secretBox?: SecretBox;
}

/** The tenancy tables and their columns, in the order rows are written (parents first). */
export const TENANCY_TABLES = {
  companies: ['name', 'default_org', 'default_folder', 'callback_secret', 'models', 'created'],
  orgs: ['company', 'name'],
  folders: ['company', 'org', 'name'],
  tokens: ['hash', 'company', 'created'],
  model_aliases: ['company', 'alias', 'model'],
  company_settings: ['company', 'settings'],
} as const;
export type TenancyTable = keyof typeof TENANCY_TABLES;
/** Every row of every tenancy table, as plain values (what PostgreSQL holds and a copy is loaded from). */
export type TenancyRows = Record<TenancyTable, Record<string, unknown>[]>;

const SEALED_PREFIX = 'enc1:';

/** A company's callback signing secret: 32 random bytes, hex. */
const newCallbackSecret = () => randomBytes(32).toString('hex');

export class SqliteTenancy implements Tenancy, TenancyAdmin {
  readonly db: Database.Database;
  #rootHash: Buffer | undefined;

  readonly #box: SecretBox;

  /** `file` is the SQLite path (or ':memory:'); a string second argument is the root token. */
  constructor(file: string, options: string | TenancyOptions = {}) {
    const o = typeof options === 'string' ? { rootToken: options } : options;
    this.db = openSqlite(file, 'FULL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS companies (
        name TEXT PRIMARY KEY, default_org TEXT NOT NULL, default_folder TEXT NOT NULL,
        callback_secret TEXT NOT NULL, models TEXT NOT NULL DEFAULT '[]', created TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS orgs (company TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY (company, name));
      CREATE TABLE IF NOT EXISTS folders (company TEXT NOT NULL, org TEXT NOT NULL, name TEXT NOT NULL,
        PRIMARY KEY (company, org, name));
      CREATE TABLE IF NOT EXISTS tokens (hash TEXT PRIMARY KEY, company TEXT NOT NULL, created TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS model_aliases (company TEXT NOT NULL, alias TEXT NOT NULL, model TEXT NOT NULL,
        PRIMARY KEY (company, alias));
      CREATE TABLE IF NOT EXISTS company_settings (company TEXT PRIMARY KEY, settings TEXT NOT NULL);
    `);
    if (o.rootToken !== undefined) this.#rootHash = sha256(o.rootToken);
    try {
      if (o.secretBox) this.#box = o.secretBox;
      else if (file === ':memory:' && o.keyFile === undefined) this.#box = SecretBox.ephemeral();
      else this.#box = this.#openBox(o.keyFile ?? path.join(path.dirname(file), 'secrets.key'));
      this.sealPlainSecrets();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** Opens `<dataDir>/tenancy.sqlite` with the secrets key (beside the root token file by default), and loads (creating on first start) the root token. */
  static open(config: { dataDir: string; rootTokenFile: string; secretsKeyFile?: string }): { tenancy: SqliteTenancy; rootTokenCreated: boolean } {
    const { token, created } = ensureRootToken(config.rootTokenFile);
    return { tenancy: new SqliteTenancy(tenancyDbPath(config.dataDir), { rootToken: token, keyFile: secretKeyPath(config) }), rootTokenCreated: created };
  }

  /** The key file; created (0600) on first use, but never anew while sealed secrets exist (they could not be opened). */
  #openBox(keyFile: string): SecretBox {
    if (!existsSync(keyFile)) {
      const sealed = this.db.prepare(`SELECT name FROM companies WHERE callback_secret LIKE '${SEALED_PREFIX}%' LIMIT 1`).pluck().get() as string | undefined;
      if (sealed !== undefined) {
        throw voxdexError(
          'SECRET_KEY_INVALID',
          `The key file ${keyFile} is missing but the callback secrets in this tenancy.sqlite are sealed with it (company ${sealed}): restore the key file from the backup of this data dir.`,
        );
      }
    }
    return loadSecretKey(keyFile).box;
  }

  /** Migration: secrets stored in plain text by earlier versions are sealed, in one transaction. Returns how many. */
  sealPlainSecrets(): number {
    const plain = this.db.prepare(`SELECT name, callback_secret FROM companies WHERE callback_secret NOT LIKE '${SEALED_PREFIX}%'`).all() as { name: string; callback_secret: string }[];
    if (plain.length === 0) return 0;
    const update = this.db.prepare('UPDATE companies SET callback_secret = ? WHERE name = ? AND callback_secret = ?');
    this.db.transaction(() => {
      for (const r of plain) update.run(this.#box.seal(r.callback_secret, r.name), r.name, r.callback_secret);
    })();
    return plain.length;
  }

  setRootToken(token: string): void {
    this.#rootHash = sha256(token);
  }

  /** Accepts as root the token whose SHA-256 (hex) this is (several nodes share the hash, not the file). */
  setRootTokenHash(hex: string): void {
    this.#rootHash = Buffer.from(hex, 'hex');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs `fn` on this tenancy in one SQLite transaction (rolled back when it throws). The transaction
   * takes the write lock first (BEGIN IMMEDIATE), waiting for another process's (the running service,
   * another admin command): one that read first and wrote later would fail at once with SQLITE_BUSY
   * when another connection wrote meanwhile, instead of waiting.
   */
  async change<T>(fn: (admin: TenancyAdmin) => T): Promise<T> {
    return this.db.transaction(() => fn(this)).immediate();
  }

  // ------------------------------------------------------------ snapshots (pg-tenancy.ts)

  /** Every row of every tenancy table. */
  exportRows(): TenancyRows {
    const rows = {} as TenancyRows;
    for (const [table, cols] of Object.entries(TENANCY_TABLES) as [TenancyTable, readonly string[]][]) {
      rows[table] = this.db.prepare(`SELECT ${cols.join(', ')} FROM ${table}`).all() as Record<string, unknown>[];
    }
    return rows;
  }

  /** Replaces every row with `rows`, in one transaction (a reader never sees half of it). */
  replaceRows(rows: TenancyRows): void {
    this.db.transaction(() => {
      for (const [table, cols] of Object.entries(TENANCY_TABLES) as [TenancyTable, readonly string[]][]) {
        this.db.prepare(`DELETE FROM ${table}`).run();
        const insert = this.db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
        for (const r of rows[table]) insert.run(...cols.map((c) => r[c]));
      }
    })();
  }

  /** Whether a callback secret is still stored in plain text (written by an earlier version). */
  hasPlainSecrets(): boolean {
    return this.db.prepare(`SELECT 1 FROM companies WHERE callback_secret NOT LIKE '${SEALED_PREFIX}%' LIMIT 1`).get() !== undefined;
  }

  // ------------------------------------------------------------ administration

  /**
   * Creates the company, org and folder where they do not exist yet, makes org/folder the default
   * destination, sets the model list when given, and issues a new token (earlier tokens stay valid;
   * use rotateToken to revoke them).
   */
  addCompany(company: string, options: AddCompanyOptions): { token: string; callbackSecret: string; created: boolean } {
    checkShortName('company', company);
    checkShortName('org', options.org);
    checkShortName('folder', options.folder);
    for (const m of options.models ?? []) checkModelName(m);
    return this.db.transaction(() => {
      const existing = this.#companyRow(company);
      const now = new Date().toISOString();
      if (!existing) {
        this.db
          .prepare('INSERT INTO companies (name, default_org, default_folder, callback_secret, models, created) VALUES (?, ?, ?, ?, ?, ?)')
          .run(company, options.org, options.folder, this.#box.seal(newCallbackSecret(), company), JSON.stringify(options.models ?? []), now);
      } else {
        this.db.prepare('UPDATE companies SET default_org = ?, default_folder = ? WHERE name = ?').run(options.org, options.folder, company);
        if (options.models && options.models.length > 0) {
          this.db.prepare('UPDATE companies SET models = ? WHERE name = ?').run(JSON.stringify(options.models), company);
        }
      }
      this.#insertFolder(company, options.org, options.folder);
      const token = this.#issueToken(company);
      return { token, callbackSecret: this.#box.open(this.#companyRow(company)!.callback_secret, company), created: !existing };
    })();
  }

  /** Creates the organization unless it exists; true when it was created. */
  addOrg(company: string, org: string): boolean {
    checkShortName('org', org);
    this.#requireCompany(company);
    return this.db.prepare('INSERT OR IGNORE INTO orgs (company, name) VALUES (?, ?)').run(company, org).changes > 0;
  }

  /** Creates the folder (and its organization) where missing; says which of them it created. */
  addFolder(company: string, org: string, folder: string): { orgCreated: boolean; folderCreated: boolean } {
    checkShortName('org', org);
    checkShortName('folder', folder);
    this.#requireCompany(company);
    return this.db.transaction(() => this.#insertFolder(company, org, folder))();
  }

  /** Revokes every token of the company and returns the one new token. */
  rotateToken(company: string): string {
    this.#requireCompany(company);
    return this.db.transaction(() => {
      this.db.prepare('DELETE FROM tokens WHERE company = ?').run(company);
      return this.#issueToken(company);
    })();
  }

  /** Replaces the company's callback signing secret with a new one and returns it. */
  rotateCallbackSecret(company: string): string {
    this.#requireCompany(company);
    const secret = newCallbackSecret();
    this.db.prepare('UPDATE companies SET callback_secret = ? WHERE name = ?').run(this.#box.seal(secret, company), company);
    return secret;
  }

  setModels(company: string, models: string[]): void {
    this.#requireCompany(company);
    for (const m of models) checkModelName(m);
    this.db.prepare('UPDATE companies SET models = ? WHERE name = ?').run(JSON.stringify(models), company);
  }

  /** Maps `alias` (e.g. "eng1:callcenter") to an installed model name for this company. */
  setModelAlias(company: string, alias: string, model: string): void {
    this.#requireCompany(company);
    checkModelName(alias);
    checkModelName(model);
    this.db.prepare('INSERT OR REPLACE INTO model_aliases (company, alias, model) VALUES (?, ?, ?)').run(company, alias, model);
  }

  /** Applies `patch` to the company's settings (company-settings.ts: validated, merged); returns the result. */
  setCompanySettings(company: string, patch: CompanySettings): CompanySettings {
    const next = mergeCompanySettings(this.companySettings(company), patch);
    this.db.prepare('INSERT OR REPLACE INTO company_settings (company, settings) VALUES (?, ?)').run(company, JSON.stringify(next));
    return next;
  }

  /** Adds phrases to the company's vocabulary (at most 1000 phrases of 50 characters); returns those that were new. */
  addVocab(company: string, phrases: string[]): string[] {
    const current = this.companySettings(company).vocab ?? [];
    const added = [...new Set(phrases.map(normalizePhrase))].filter((p) => !current.includes(p));
    this.setCompanySettings(company, { vocab: [...current, ...added] });
    return added;
  }

  /** Removes phrases from the company's vocabulary; returns those it held. */
  removeVocab(company: string, phrases: string[]): string[] {
    const current = this.companySettings(company).vocab ?? [];
    const removed = [...new Set(phrases.map(normalizePhrase))].filter((p) => current.includes(p));
    this.setCompanySettings(company, { vocab: current.filter((p) => !removed.includes(p)) });
    return removed;
  }

  // ------------------------------------------------------------ queries

  /** The company's settings ({} until any is set). */
  companySettings(company: string): CompanySettings {
    this.#requireCompany(company);
    const json = this.db.prepare('SELECT settings FROM company_settings WHERE company = ?').pluck().get(company) as string | undefined;
    return parseCompanySettings(json);
  }

  hasCompany(company: string): boolean {
    return this.#companyRow(company) !== undefined;
  }

  getCompany(company: string): CompanyInfo {
    const row = this.#requireCompany(company);
    const aliases: Record<string, string> = {};
    for (const a of this.db.prepare('SELECT alias, model FROM model_aliases WHERE company = ? ORDER BY alias').all(company) as { alias: string; model: string }[]) {
      aliases[a.alias] = a.model;
    }
    return {
      company: row.name,
      defaultOrg: row.default_org,
      defaultFolder: row.default_folder,
      models: JSON.parse(row.models) as string[],
      aliases,
      created: row.created,
    };
  }

  listCompanies(): CompanyInfo[] {
    const names = this.db.prepare('SELECT name FROM companies ORDER BY name').pluck().all() as string[];
    return names.map((n) => this.getCompany(n));
  }

  listOrgs(company: string): string[] {
    return this.db.prepare('SELECT name FROM orgs WHERE company = ? ORDER BY name').pluck().all(company) as string[];
  }

  listFolders(company: string, org: string): string[] {
    return this.db.prepare('SELECT name FROM folders WHERE company = ? AND org = ? ORDER BY name').pluck().all(company, org) as string[];
  }

  /** The company's callback signing secret (kept sealed in the database; see SecretBox). */
  callbackSecret(company: string): string {
    return this.#box.open(this.#requireCompany(company).callback_secret, company);
  }

  derivedKey(purpose: 'audio'): Buffer {
    return this.#box.derive(purpose);
  }

  defaultDestination(company: string): Destination {
    const row = this.#requireCompany(company);
    return { company, org: row.default_org, folder: row.default_folder };
  }

  // ------------------------------------------------------------ access checks

  /** Who holds `token`: the root, or a company. Missing or unknown → BAD_TOKEN (401). */
  authenticate(token: string | undefined | null): Principal {
    if (typeof token !== 'string' || token.length === 0) {
      throw voxdexError('BAD_TOKEN', 'A token is required: pass token=<your company token> as a form field or query parameter, or send the header Authorization: Bearer <token>');
    }
    const hash = sha256(token);
    if (this.#rootHash && timingSafeEqual(hash, this.#rootHash)) return { kind: 'root' };
    if (COMPANY_TOKEN.test(token)) {
      const hex = hash.toString('hex');
      const row = this.db.prepare('SELECT hash, company FROM tokens WHERE hash = ?').get(hex) as { hash: string; company: string } | undefined;
      if (row && timingSafeEqual(Buffer.from(row.hash, 'hex'), hash)) return { kind: 'company', company: row.company };
    }
    throw voxdexError('BAD_TOKEN', 'The token is not valid: check it, or ask the operator for a new one (voxdex token rotate)');
  }

  /**
   * Root may act on every company; a company only on itself (else FORBIDDEN, 403). The message names
   * no company: for a request id or a transcript the owner is not the caller's to learn.
   */
  authorize(principal: Principal, company: string): void {
    if (principal.kind === 'root') return;
    if (principal.company !== company) {
      throw voxdexError('FORBIDDEN', 'This token may not act here: what the request names belongs to another company. Use that company\'s token.');
    }
  }

  /** Company, org (and folder when given) must exist; else NOT_FOUND (404). Names are checked first (BAD_NAME). */
  requireScope(company: string, org: string, folder?: string): void {
    checkShortName('company', company);
    checkShortName('org', org);
    if (folder !== undefined) checkShortName('folder', folder);
    this.#requireCompany(company);
    if (!this.db.prepare('SELECT 1 FROM orgs WHERE company = ? AND name = ?').get(company, org)) {
      throw voxdexError('NOT_FOUND', `Organization ${org} does not exist in company ${company}: create it with voxdex org add`);
    }
    if (folder === undefined) return;
    if (!this.db.prepare('SELECT 1 FROM folders WHERE company = ? AND org = ? AND name = ?').get(company, org, folder)) {
      throw voxdexError('NOT_FOUND', `Folder ${folder} does not exist in ${company}/${org}: create it with voxdex folder add`);
    }
  }

  /**
   * Resolves the model for a request: the requested name (or the company default: its first
   * authorized model, else `auto`), through the company's aliases, must be installed (or `auto`)
   * → else UNKNOWN_MODEL (400), and authorized for the company → else MODEL_NOT_AUTHORIZED (403).
   */
  resolveModel(company: string, requested: string | undefined, installed: readonly string[]): string {
    const info = this.getCompany(company);
    const asked = requested === undefined || requested === '' ? (info.models[0] ?? AUTO_MODEL) : requested;
    const name = info.aliases[asked] ?? asked;
    if (name !== AUTO_MODEL && !installed.includes(name)) {
      const known = [...new Set([AUTO_MODEL, ...installed, ...Object.keys(info.aliases)])].join(', ');
      throw voxdexError('UNKNOWN_MODEL', `Model ${asked} is not installed; use one of: ${known}`);
    }
    if (info.models.length > 0 && !info.models.includes(name) && !info.models.includes(asked)) {
      throw voxdexError('MODEL_NOT_AUTHORIZED', `Model ${asked} is not authorized for company ${company}; authorized: ${info.models.join(', ')}`);
    }
    return name;
  }

  // ------------------------------------------------------------ internals

  #companyRow(company: string) {
    return this.db.prepare('SELECT * FROM companies WHERE name = ?').get(company) as
      | { name: string; default_org: string; default_folder: string; callback_secret: string; models: string; created: string }
      | undefined;
  }

  #requireCompany(company: string) {
    checkShortName('company', company);
    const row = this.#companyRow(company);
    if (!row) throw voxdexError('NOT_FOUND', `Company ${company} does not exist: create it with voxdex company add`);
    return row;
  }

  #insertFolder(company: string, org: string, folder: string): { orgCreated: boolean; folderCreated: boolean } {
    const orgCreated = this.db.prepare('INSERT OR IGNORE INTO orgs (company, name) VALUES (?, ?)').run(company, org).changes > 0;
    const folderCreated = this.db.prepare('INSERT OR IGNORE INTO folders (company, org, name) VALUES (?, ?, ?)').run(company, org, folder).changes > 0;
    return { orgCreated, folderCreated };
  }

  #issueToken(company: string): string {
    const token = randomBytes(16).toString('hex');
    this.db.prepare('INSERT INTO tokens (hash, company, created) VALUES (?, ?, ?)').run(sha256(token).toString('hex'), company, new Date().toISOString());
    return token;
  }
}

function checkModelName(name: string): void {
  if (typeof name !== 'string' || !/^[A-Za-z0-9_.:+-]{1,128}$/.test(name)) {
    throw invalidParameter('model', 'a model name of letters, digits and _ . : + -', name, 'BAD_NAME');
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

