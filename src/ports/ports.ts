/**
 * The seam between voxdex and its deployment mode. One function per mode opens every port a node
 * wires its roles to:
 *   embedded     (open-embedded.ts)     SQLite files in the data dir; one node (VOXDEX_DATABASE_URL unset)
 *   distributed  (open-distributed.ts)  PostgreSQL shared by any number of nodes, with S3 and Elasticsearch
 * `openPorts` and `openTenancy` pick the mode; nothing outside src/ports/ asks which mode it runs in.
 * The blob store (local directory or S3) and the transcript index (SQLite or Elasticsearch) follow
 * the configuration in either mode (adapters.ts).
 */
import type { BlobStore } from '../blobs/blob-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Limiter } from '../rate-limit/limiter.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { AuditLog } from '../store/audit-log.js';
import type { CategoryStore } from '../store/category-store.js';
import type { JobStore } from '../store/job-store.js';
import type { SubmissionLedger } from '../store/ledger.js';
import type { CallbackOutbox } from '../store/outbox.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { settingsNow } from '../tenancy/tenancy.js';
import { policyGuardedIndex } from './guarded-index.js';
import { openDistributed, openDistributedTenancy } from './open-distributed.js';
import { openEmbedded, openEmbeddedTenancy } from './open-embedded.js';

/** Where a node's jobs come from, and how it hears of work done or asked elsewhere. */
interface WorkSource {
  /**
   * The name this node's runner claims jobs under from the shared queue (leases), or undefined: the
   * runner's in-process scheduler runs the jobs of this data dir.
   */
  owner: string | undefined;
  /** How often the callback dispatcher takes back the attempts of nodes that died (undefined: at start only). */
  recoverEveryMs: number | undefined;
  /** Connects the runner to the mode's wake-ups (a job became claimable, a cancel asked on another node); returns the disconnect. */
  connect(runner: { wake(): void; cancelLocal(id: string): void }): () => void;
  /** Jobs waiting to run, for /metrics; `local` is the runner's own queue. */
  queueDepth(local: () => number): number | Promise<number>;
}

export interface Ports {
  /** The job storage, for logs: `sqlite` or `postgres`. */
  readonly storage: string;
  jobs: JobStore;
  outbox: CallbackOutbox;
  ledger: SubmissionLedger;
  /** The audit trail (docs/audit.md), in the job store's database. */
  audit: AuditLog;
  tenancy: Tenancy;
  /** Category rules and their backfill progress (beside tenancy). */
  categories: CategoryStore;
  blobs: BlobStore;
  /** Constructed, not yet initialised (init() where the node searches or indexes). */
  index: TranscriptIndex;
  /** The rate limit named `what`, VOXDEX_RATE_LIMIT_PER_MIN (its buckets: this process's memory, or shared by every node). */
  rateLimiter(what: string): Limiter;
  work: WorkSource;
  /**
   * The installation's root token (accepted from now on; created on first start) and the HMAC key
   * of signed result links: the node's own files, or shared by every node. Says on the log where the
   * root token is (never its value).
   */
  installation(): Promise<{ urlSecret: string }>;
  /** Start-up chore of a node that accepts jobs: removes uploads stored by a process that died before acknowledging them. */
  removeUnacknowledged(): Promise<void>;
  /** Closes the index, tenancy, stores and blob store. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** This process's name in leases and logs (unique per process). */
  node: string;
  log: Logger;
}

/** The ports of `config`'s mode. */
export async function openPorts(config: Readonly<Config>, o: OpenOptions): Promise<Ports> {
  const ports = config.databaseUrl ? await openDistributed(config, config.databaseUrl, o) : await openEmbedded(config, o);
  try {
    // Callback secrets live sealed in tenancy only; rows written by earlier versions carried a copy.
    const dropped = await ports.outbox.dropSecrets();
    if (dropped > 0) o.log.info({ rows: dropped }, 'removed callback secrets copied into the callback outbox by an earlier version');
    // Every write of a transcript to the index is checked against its company's text policy as it is then.
    ports.index = policyGuardedIndex(ports.index, settingsNow(ports.tenancy));
  } catch (err) {
    await ports.close();
    throw err;
  }
  return ports;
}

/** Tenancy alone, for the admin commands; close() releases what it opened. */
export function openTenancy(config: Readonly<Config>): Promise<Tenancy> {
  return config.databaseUrl ? openDistributedTenancy(config, config.databaseUrl) : Promise.resolve(openEmbeddedTenancy(config));
}
