/**
 * The embedded storage: jobs, items, the callback outbox and the submission ledger in one SQLite
 * file (`<dataDir>/jobs.sqlite`, WAL, synchronous=FULL) on one connection, so that
 * SqliteJobStore.settle commits a job's final state and its callback row in one transaction.
 */
import { SqliteAuditLog } from './audit-log.js';
import { openSqlite } from './sqlite.js';
import { SqliteJobStore } from './sqlite-job-store.js';
import { SqliteSubmissionLedger } from './sqlite-ledger.js';
import { SqliteCallbackOutbox } from './sqlite-outbox.js';
import type { Stores } from '../stores.js';

export interface SqliteStores extends Stores {
  jobs: SqliteJobStore;
  outbox: SqliteCallbackOutbox;
  ledger: SqliteSubmissionLedger;
  audit: SqliteAuditLog;
}

/** Opens (creating the tables where missing) `file`, or ':memory:'. */
export function openSqliteStores(file: string): SqliteStores {
  const db = openSqlite(file, 'FULL');
  const outbox = new SqliteCallbackOutbox(db);
  const jobs = new SqliteJobStore(db, outbox);
  const ledger = new SqliteSubmissionLedger(db);
  return { jobs, outbox, ledger, audit: new SqliteAuditLog(db), close: () => jobs.close() };
}
