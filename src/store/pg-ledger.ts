/** The submission ledger (src/store/ledger.ts) over PostgreSQL, in the jobs database (table intake_files). */
import type pg from 'pg';
import type { ErrorInfo } from '../errors.js';
import type { Destination } from '../types.js';
import type { LedgerEntry, LedgerState, SubmissionLedger } from './ledger.js';
import { pgQuery } from './pg-pool.js';

interface Row {
  sha256: string;
  state: LedgerState;
  requestid: string | null;
  source: 'drop' | 'import';
  company: string;
  org: string;
  folder: string;
  path: string;
  updated_at: string;
  error: string | null;
}

const KEY = 'company = $1 AND org = $2 AND folder = $3 AND sha256 = $4';

export class PgSubmissionLedger implements SubmissionLedger {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async get(d: Destination, sha256: string): Promise<LedgerEntry | undefined> {
    const r = (await pgQuery<Row>(this.#pool, `SELECT * FROM intake_files WHERE ${KEY}`, [d.company, d.org, d.folder, sha256])).rows[0];
    if (!r) return undefined;
    const e: LedgerEntry = {
      sha256: r.sha256,
      state: r.state,
      source: r.source,
      destination: { company: r.company, org: r.org, folder: r.folder },
      path: r.path,
      at: r.updated_at,
    };
    if (r.requestid) e.requestid = r.requestid;
    if (r.error) e.error = JSON.parse(r.error) as ErrorInfo;
    return e;
  }

  async begin(d: Destination, sha256: string, source: 'drop' | 'import', path: string): Promise<void> {
    const now = new Date().toISOString();
    await pgQuery(
      this.#pool,
      `INSERT INTO intake_files (company, org, folder, sha256, state, source, path, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'submitting', $5, $6, $7, $7)
       ON CONFLICT (company, org, folder, sha256) DO UPDATE SET state = 'submitting', source = excluded.source,
         path = excluded.path, updated_at = excluded.updated_at, error = NULL
       WHERE intake_files.state != 'submitted'`,
      [d.company, d.org, d.folder, sha256, source, path, now],
    );
  }

  async submitted(d: Destination, sha256: string, requestid: string): Promise<void> {
    await pgQuery(this.#pool, `UPDATE intake_files SET state = 'submitted', requestid = $5, updated_at = $6 WHERE ${KEY}`, [
      d.company,
      d.org,
      d.folder,
      sha256,
      requestid,
      new Date().toISOString(),
    ]);
  }

  async failed(d: Destination, sha256: string, error: ErrorInfo): Promise<void> {
    await pgQuery(this.#pool, `UPDATE intake_files SET state = 'failed', error = $5, updated_at = $6 WHERE ${KEY} AND state != 'submitted'`, [
      d.company,
      d.org,
      d.folder,
      sha256,
      JSON.stringify({ code: error.code, message: error.message }),
      new Date().toISOString(),
    ]);
  }

  async release(d: Destination, sha256: string): Promise<void> {
    await pgQuery(this.#pool, `DELETE FROM intake_files WHERE ${KEY} AND state = 'submitting'`, [d.company, d.org, d.folder, sha256]);
  }
}
