/**
 * Tenancy (tenancy.ts) on PostgreSQL, for several nodes. Tenancy is small and read on every request
 * (token → company, scopes, models), so each node keeps it in memory: a SqliteTenancy over an
 * in-memory database holding a copy of the PostgreSQL tables (loaded with replaceRows), read
 * synchronously exactly like the embedded one.
 * The copy is refreshed when PostgreSQL announces a change (NOTIFY voxdex_tenancy, from triggers on
 * the tables) and every `refreshMs` in any case, atomically (one SQLite transaction, so a request
 * never sees half a reload). A revoked token stops working on every node within that notification.
 *
 * Changes (the admin CLI) run `change(fn)`: under an advisory lock (one writer at a time), the
 * current rows are loaded into a fresh in-memory SqliteTenancy, `fn` applies the change there with
 * the embedded code (same checks, same messages), and its rows (exportRows) are written back in the
 * same PostgreSQL transaction.
 *
 * The installation's shared secrets live in PostgreSQL too (table `installation`): the HMAC key of
 * signed result links (every API node must verify the links any other node signed) and the root
 * token's SHA-256.
 *
 * Callback secrets are stored sealed (SecretBox) with the installation's secrets key, a file every node
 * holds (VOXDEX_SECRETS_KEY_FILE, deployed like a TLS key): a copy of the database alone cannot sign
 * callbacks. The first node to start stores a check value of its key; a node with another key is
 * refused, so one with a wrong file never seals or opens anything.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type pg from 'pg';
import { voxdexError } from '../errors.js';
import type { Logger } from '../log.js';
import type { PgNotifier } from '../store/pg/pg-notifier.js';
import { inTransaction, pgQuery } from '../store/pg/pg-pool.js';
import type { CompanySettings, Destination } from '../types.js';
import type { SecretBox } from './secret-box.js';
import { SqliteTenancy, TENANCY_TABLES, type TenancyRows, type TenancyTable } from './sqlite-tenancy.js';
import { ensureRootToken, loadSecretKey, type CompanyInfo, type Principal, type Tenancy, type TenancyAdmin } from './tenancy.js';

/** One lock for all tenancy writers (any constant distinct from the migration lock). */
const TENANCY_LOCK = 0x766f7874; // 'voxt'

export interface PgTenancyOptions {
  pool: pg.Pool;
  notifier?: PgNotifier;
  log?: Logger;
  /** Reload at least this often even without a notification (default 30 s). */
  refreshMs?: number;
  /** The installation's secrets key file (the same on every node; created by the first node when missing). */
  keyFile: string;
  /** close() also ends the pool (it was opened for this tenancy alone). */
  ownsPool?: boolean;
}

export class PgTenancy implements Tenancy {
  /** The in-memory copy every read goes to. */
  readonly #copy: SqliteTenancy;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #log: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #off: (() => void) | undefined;
  #reloading: Promise<void> | undefined;
  #again = false;

  readonly #box: SecretBox;

  private constructor(o: PgTenancyOptions, box: SecretBox) {
    this.#pool = o.pool;
    this.#ownsPool = o.ownsPool ?? false;
    this.#log = o.log;
    this.#box = box;
    this.#copy = new SqliteTenancy(':memory:', { secretBox: box });
  }

  // ------------------------------------------------------------ reads: the in-memory copy

  authenticate(token: string | undefined | null): Principal {
    return this.#copy.authenticate(token);
  }
  authorize(principal: Principal, company: string): void {
    this.#copy.authorize(principal, company);
  }
  requireScope(company: string, org: string, folder?: string): void {
    this.#copy.requireScope(company, org, folder);
  }
  resolveModel(company: string, requested: string | undefined, installed: readonly string[]): string {
    return this.#copy.resolveModel(company, requested, installed);
  }
  hasCompany(company: string): boolean {
    return this.#copy.hasCompany(company);
  }
  getCompany(company: string): CompanyInfo {
    return this.#copy.getCompany(company);
  }
  listCompanies(): CompanyInfo[] {
    return this.#copy.listCompanies();
  }
  listOrgs(company: string): string[] {
    return this.#copy.listOrgs(company);
  }
  listFolders(company: string, org: string): string[] {
    return this.#copy.listFolders(company, org);
  }
  callbackSecret(company: string): string {
    return this.#copy.callbackSecret(company);
  }
  derivedKey(purpose: 'audio'): Buffer {
    return this.#box.derive(purpose);
  }
  defaultDestination(company: string): Destination {
    return this.#copy.defaultDestination(company);
  }
  companySettings(company: string): CompanySettings {
    return this.#copy.companySettings(company);
  }

  /** Accepts as root the token whose SHA-256 (hex) this is (the installation's: sharedRootToken). */
  setRootTokenHash(hex: string): void {
    this.#copy.setRootTokenHash(hex);
  }

  setCompanySettings(company: string, patch: CompanySettings): Promise<CompanySettings> {
    return this.change((t) => t.setCompanySettings(company, patch));
  }

  /**
   * Checks this node's secrets key against the installation's, loads the tables (sealing secrets an
   * earlier version stored in plain text) and keeps the copy fresh (notifications, and every refreshMs).
   */
  static async open(o: PgTenancyOptions): Promise<PgTenancy> {
    const t = new PgTenancy(o, await installationKey(o.pool, o.keyFile));
    await t.reload();
    if (t.#copy.hasPlainSecrets()) await t.change(() => undefined); // change() seals what is plain, in one transaction under the lock
    t.#off = o.notifier?.on('voxdex_tenancy', () => void t.reload().catch((err) => t.#log?.warn({ err }, 'reloading tenancy failed')));
    t.#timer = setInterval(() => void t.reload().catch((err) => t.#log?.warn({ err }, 'reloading tenancy failed')), o.refreshMs ?? 30_000);
    t.#timer.unref();
    return t;
  }

  /** Re-reads every tenancy table into the in-memory copy (coalesces calls made while one runs). */
  reload(): Promise<void> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#again = false;
          // One snapshot of all the tables (a change committed between two SELECTs must not split).
          const rows = await inTransaction(this.#pool, async (c) => {
            await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
            return readRows(c);
          });
          this.#copy.replaceRows(rows);
        } while (this.#again);
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  /**
   * Applies an administrative change made with the embedded Tenancy code (`fn` runs on a fresh copy
   * of the current rows) and writes the result back, all in one transaction under the tenancy lock.
   * Resolves to what `fn` returned; the local copy is reloaded.
   */
  async change<T>(fn: (admin: TenancyAdmin) => T): Promise<T> {
    const out = await inTransaction(this.#pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [TENANCY_LOCK]);
      const scratch = new SqliteTenancy(':memory:', { secretBox: this.#box });
      try {
        scratch.replaceRows(await readRows(c));
        scratch.sealPlainSecrets();
        const result = fn(scratch);
        await writeRows(c, scratch.exportRows());
        return result;
      } finally {
        scratch.close();
      }
    });
    await this.reload();
    return out;
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#off?.();
    this.#copy.close();
    if (this.#ownsPool) await this.#pool.end();
  }
}

const TABLES = Object.entries(TENANCY_TABLES) as [TenancyTable, readonly string[]][];

async function readRows(c: pg.ClientBase): Promise<TenancyRows> {
  const rows = {} as TenancyRows;
  for (const [table, cols] of TABLES) rows[table] = (await c.query(`SELECT ${cols.join(', ')} FROM ${table}`)).rows;
  return rows;
}

/** Writes every table back (inside the caller's transaction): delete all, insert all, one statement per table. */
async function writeRows(c: pg.ClientBase, rows: TenancyRows): Promise<void> {
  for (const [table] of [...TABLES].reverse()) await c.query(`DELETE FROM ${table}`);
  for (const [table, cols] of TABLES) {
    if (rows[table].length === 0) continue;
    const casts = cols.map((_, i) => `$${i + 1}::text[]`).join(', ');
    await c.query(
      `INSERT INTO ${table} (${cols.join(', ')}) SELECT * FROM unnest(${casts})`,
      cols.map((col) => rows[table].map((r) => (r[col] === null || r[col] === undefined ? null : String(r[col])))),
    );
  }
}

// ------------------------------------------------------------ installation secrets

/**
 * This node's secrets key, once it is known to be the installation's: the first node stores an HMAC
 * of a fixed text under its key; a node whose key gives another value is refused with
 * SECRET_KEY_INVALID (and a key file this call created for nothing is removed again).
 */
async function installationKey(pool: pg.Pool, keyFile: string): Promise<SecretBox> {
  const { box, created } = loadSecretKey(keyFile);
  const mine = box.fingerprint();
  if ((await installationValue(pool, 'secrets_key_check', mine)) === mine) return box;
  if (created) rmSync(keyFile, { force: true });
  throw voxdexError(
    'SECRET_KEY_INVALID',
    `The secrets key in ${keyFile} is not this installation's: every node needs the same key file. Copy secrets.key from a node that already runs (or point VOXDEX_SECRETS_KEY_FILE at it) and start again.`,
  );
}

/** The HMAC key of signed result links, shared by every node (created by the first one). */
export async function sharedUrlSecret(pool: pg.Pool): Promise<string> {
  return installationValue(pool, 'url_secret', randomBytes(32).toString('hex'));
}

async function installationValue(pool: pg.Pool, key: string, proposed: string): Promise<string> {
  const r = await pgQuery<{ value: string }>(
    pool,
    `WITH ins AS (INSERT INTO installation (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value)
     SELECT value FROM ins UNION ALL SELECT value FROM installation WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [key, proposed],
  );
  return r.rows[0]!.value;
}

/**
 * The installation's root token, shared by every node: the first node to start stores the SHA-256 of
 * its root token file (creating the file, mode 0600, when there is none); every node then accepts the
 * token with that hash. A node whose own file holds another token keeps using the shared one and is
 * told so; a file this call created for nothing is removed again. Resolves to the hash (hex) and
 * whether this node's file holds the root token.
 */
export async function sharedRootToken(pool: pg.Pool, file: string, log?: Logger): Promise<{ sha256: string; local: boolean; created: boolean }> {
  const existed = existsSync(file) && readFileSync(file, 'utf8').trim().length >= 16;
  const { token, created } = ensureRootToken(file);
  const mine = createHash('sha256').update(token, 'utf8').digest('hex');
  const shared = await installationValue(pool, 'root_token_sha256', mine);
  if (shared === mine) return { sha256: shared, local: true, created };
  if (!existed) rmSync(file, { force: true });
  else log?.warn({ path: file }, 'this node’s root token file holds another token than the installation’s; the installation’s root token is the one accepted');
  return { sha256: shared, local: false, created: false };
}
