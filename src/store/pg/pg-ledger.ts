/** The submission ledger (src/store/ledger.ts) over PostgreSQL, in the jobs database (table intake_files). */
import type pg from 'pg';
import type { ErrorInfo } from '../../errors.js';
import type { Destination } from '../../types.js';
import { ledgerEntry, type LedgerEntry, type LedgerRow, type SubmissionLedger } from '../ledger.js';
import { pgQuery } from './pg-pool.js';


const KEY = 'company = $1 AND org = $2 AND folder = $3 AND sha256 = $4';

export class PgSubmissionLedger implements SubmissionLedger {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async get(d: Destination, sha256: string): Promise<LedgerEntry | undefined> {
    const r = (await pgQuery<LedgerRow>(this.#pool, `SELECT * FROM intake_files WHERE ${KEY}`, [d.company, d.org, d.folder, sha256])).rows[0];
    return r ? ledgerEntry(r) : undefined;
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
