/** The submission ledger (src/store/ledger.ts) over SQLite, in the jobs database (table intake_files). */
import type Database from 'better-sqlite3';
import type { ErrorInfo } from '../../errors.js';
import type { Destination } from '../../types.js';
import { ledgerEntry, type LedgerEntry, type LedgerRow, type SubmissionLedger } from '../ledger.js';


export class SqliteSubmissionLedger implements SubmissionLedger {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS intake_files (
        company TEXT NOT NULL, org TEXT NOT NULL, folder TEXT NOT NULL, sha256 TEXT NOT NULL,
        state TEXT NOT NULL, requestid TEXT, source TEXT NOT NULL, path TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, error TEXT,
        PRIMARY KEY (company, org, folder, sha256));
    `);
  }

  async get(d: Destination, sha256: string): Promise<LedgerEntry | undefined> {
    const r = this.#db
      .prepare('SELECT * FROM intake_files WHERE company = ? AND org = ? AND folder = ? AND sha256 = ?')
      .get(d.company, d.org, d.folder, sha256) as LedgerRow | undefined;
    return r ? ledgerEntry(r) : undefined;
  }

  async begin(destination: Destination, sha256: string, source: 'drop' | 'import', path: string): Promise<void> {
    const now = new Date().toISOString();
    this.#db
      .prepare(
        `INSERT INTO intake_files (sha256, state, source, company, org, folder, path, created_at, updated_at)
         VALUES (?, 'submitting', ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (company, org, folder, sha256) DO UPDATE SET state = 'submitting', source = excluded.source,
           path = excluded.path, updated_at = excluded.updated_at, error = NULL
         WHERE intake_files.state != 'submitted'`,
      )
      .run(sha256, source, destination.company, destination.org, destination.folder, path, now, now);
  }

  async submitted(d: Destination, sha256: string, requestid: string): Promise<void> {
    this.#db
      .prepare(`UPDATE intake_files SET state = 'submitted', requestid = ?, updated_at = ? WHERE company = ? AND org = ? AND folder = ? AND sha256 = ?`)
      .run(requestid, new Date().toISOString(), d.company, d.org, d.folder, sha256);
  }

  async failed(d: Destination, sha256: string, error: ErrorInfo): Promise<void> {
    this.#db
      .prepare(`UPDATE intake_files SET state = 'failed', error = ?, updated_at = ? WHERE company = ? AND org = ? AND folder = ? AND sha256 = ? AND state != 'submitted'`)
      .run(JSON.stringify({ code: error.code, message: error.message }), new Date().toISOString(), d.company, d.org, d.folder, sha256);
  }

  async release(d: Destination, sha256: string): Promise<void> {
    this.#db
      .prepare(`DELETE FROM intake_files WHERE company = ? AND org = ? AND folder = ? AND sha256 = ? AND state = 'submitting'`)
      .run(d.company, d.org, d.folder, sha256);
  }
}
