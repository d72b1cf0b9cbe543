/**
 * What a storage adapter provides: the job store, the callback outbox, the drop-folder ledger and the audit trail,
 * over one database, so that a job's final state and its callback commit in one transaction
 * (JobStore.settle). Every method is async, so an adapter over a network database fits as well as
 * the embedded SQLite one (src/store/sqlite/sqlite-stores.ts; PostgreSQL: src/store/pg/pg-stores.ts).
 */
import type { AuditLog } from './audit-log.js';
import type { JobStore } from './job-store.js';
import type { SubmissionLedger } from './ledger.js';
import type { CallbackOutbox } from './outbox.js';

export interface Stores {
  jobs: JobStore;
  outbox: CallbackOutbox;
  ledger: SubmissionLedger;
  /** The audit trail (docs/audit.md): in the same database. */
  audit: AuditLog;
  /** Commits what is pending and closes the connection(s). */
  close(): Promise<void>;
}
