/**
 * The PostgreSQL storage (VOXDEX_DATABASE_URL): jobs, items, the callback outbox and the submission
 * ledger in one database, shared by every node. Opening applies the schema migrations (every node may
 * start at once) and starts listening for notifications (new jobs, due callbacks, cancels, tenancy
 * changes). `owner` names this process in leases (unique per process).
 */
import type pg from 'pg';
import type { Logger } from '../../log.js';
import { openPgAuditLog, type PgAuditLog } from './audit-log.js';
import { migrate } from './pg-migrations.js';
import { PgJobStore } from './pg-job-store.js';
import { PgSubmissionLedger } from './pg-ledger.js';
import { PgNotifier } from './pg-notifier.js';
import { PgCallbackOutbox } from './pg-outbox.js';
import { openPgPool } from './pg-pool.js';
import type { Stores } from '../stores.js';

export interface PgStores extends Stores {
  jobs: PgJobStore;
  outbox: PgCallbackOutbox;
  ledger: PgSubmissionLedger;
  audit: PgAuditLog;
  pool: pg.Pool;
  notifier: PgNotifier;
  owner: string;
}

interface PgStoresOptions {
  /** This process's name in leases and in application_name (unique per process). */
  owner: string;
  log?: Logger;
  /** Pool size (default 10). */
  max?: number;
  /** How long a callback attempt in flight stays this node's (default 2 min). */
  inflightLeaseMs?: number;
}

export async function openPgStores(url: string, o: PgStoresOptions): Promise<PgStores> {
  const applicationName = `voxdex ${o.owner}`;
  const pool = openPgPool(url, { max: o.max, applicationName });
  try {
    await migrate(pool, o.log);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const notifier = new PgNotifier(url, applicationName, o.log);
  await notifier.start();
  const outbox = new PgCallbackOutbox(pool, { owner: o.owner, inflightLeaseMs: o.inflightLeaseMs });
  const jobs = new PgJobStore(pool, outbox);
  const ledger = new PgSubmissionLedger(pool);
  const audit = await openPgAuditLog(pool);
  notifier.on('voxdex_callbacks', () => outbox.wakeListeners());
  let closed = false;
  return {
    jobs,
    outbox,
    ledger,
    audit,
    pool,
    notifier,
    owner: o.owner,
    async close() {
      if (closed) return;
      closed = true;
      await outbox.releaseLeases().catch(() => undefined);
      await jobs.close();
      await notifier.close();
      await pool.end();
    },
  };
}
