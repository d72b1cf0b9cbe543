/**
 * The job store interface: transcription requests (jobs) and their per-file items.
 * A job moves queued → running → done | failed | cancelled; items move queued → running → done | failed.
 * Every method is async so that an adapter over a network database fits; every adapter runs the
 * same conformance suite (test/conformance/job-store.conformance.ts).
 */
import type { ErrorInfo } from '../errors.js';
import type { Destination, OutputFormat, RequestOptions } from '../types.js';
import type { EnqueueInput } from './outbox.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
type ItemState = 'queued' | 'running' | 'done' | 'failed';
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];
type FinalState = 'done' | 'failed' | 'cancelled';

export interface NewJob {
  id: string;
  destination: Destination;
  /** Resolved model name (or `auto`). */
  model: string;
  output: OutputFormat;
  callback?: string;
  callbackError?: string;
  metadata?: Record<string, unknown>;
  /** ISO 8601 call time. */
  datetime: string;
  /** Original upload file name. */
  source: string;
  kind: 'audio' | 'archive';
  /** Absolute path of the durable upload. */
  uploadPath: string;
  zpass?: string;
  warning?: string;
  sizeBytes: number;
  /** The request's options after company policy (jobs/request-options.ts); absent on jobs stored before options existed. */
  options?: RequestOptions;
  /** sha256 (hex) of the uploaded file: the same recording sent twice (browser, drop folder, import) is told (`firstWithContent`). */
  contentHash?: string;
  /** Higher runs first (src/scheduler.ts, and the shared queue's claim); absent = 0. A live call's job: LIVE_PRIORITY. */
  priority?: number;
}

export interface Job extends NewJob {
  state: JobState;
  created: string;
  started?: string;
  finished?: string;
  progress: number;
  /** How many times the job was started (1 + restarts after a crash). */
  attempts: number;
  error?: ErrorInfo;
  resultPath?: string;
  /** Monotonic acceptance order. */
  seq: number;
}

export interface JobItem {
  requestId: string;
  member: string;
  idx: number;
  state: ItemState;
  attempts: number;
  error?: ErrorInfo;
  /** Transcript id in the index once indexed. */
  tid?: string;
  audiosecs?: number;
  transcriptPath?: string;
}

export type ItemPatch = Partial<Pick<JobItem, 'state' | 'error' | 'tid' | 'audiosecs' | 'transcriptPath'>> & { bumpAttempts?: boolean };

/** How a job ends. */
export interface Settlement {
  state: FinalState;
  error?: ErrorInfo;
  resultPath?: string;
  /** The worker settling a job it claimed (JobLeases): a running job is settled only while this owner holds its lease. */
  owner?: string;
}

export interface JobStore {
  /** Adds a queued job, durably, before resolving; adding an id that exists resolves to the existing job unchanged. */
  create(job: NewJob): Promise<Job>;
  get(id: string): Promise<Job | undefined>;
  /** Queued and running jobs in acceptance order. */
  listUnfinished(): Promise<Job[]>;
  /** The earliest job of the company whose upload had this content hash (the first of any repeats). */
  firstWithContent(company: string, contentHash: string): Promise<Job | undefined>;
  /** The most recently accepted jobs first, of one company or of all; `offset` skips that many. */
  listRecent(filter: { company?: string; limit: number; offset: number }): Promise<Job[]>;
  /** Jobs waiting to run (checked on every submission: keep it cheap). */
  countQueued(): Promise<number>;
  /** queued|running → running (attempts + 1). False when the job is final or missing. */
  markRunning(id: string): Promise<boolean>;
  /**
   * Replaces the client's file name and metadata by what may be stored under the company's policy
   * now (a job accepted before its redaction policy, run under it: docs/redaction.md).
   */
  rewriteClientText(id: string, source: string, metadata: Record<string, unknown> | undefined): Promise<void>;
  /** Advisory (called per utterance); an adapter may commit it without waiting for durability. */
  setProgress(id: string, progress: number): Promise<void>;
  /**
   * queued|running → final state, clearing the archive password, and — in the same transaction —
   * the callback delivery when one is given. False (and no delivery) when already final or missing:
   * the first final state wins.
   */
  settle(id: string, settlement: Settlement, callback?: EnqueueInput): Promise<boolean>;
  /** Adds the members that are not there yet (idempotent), resolves to all items in order. */
  setItems(id: string, members: string[]): Promise<JobItem[]>;
  items(id: string): Promise<JobItem[]>;
  updateItem(id: string, member: string, patch: ItemPatch): Promise<void>;
  /** Number of queued jobs accepted before this one, plus one (0 when running or final). */
  queuePosition(id: string): Promise<number>;
  countByState(): Promise<Record<JobState, number>>;
  /** Removes the job and its items. */
  delete(id: string): Promise<boolean>;
  /** Whether the store answers (for /health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ClaimOptions {
  /** The claiming worker's name (unique per process). */
  owner: string;
  /** How long the claim lasts unless renewed (renewLeases). */
  leaseMs: number;
  /** Only jobs up to this size (a worker's slot for short jobs). */
  maxBytes?: number;
}

/** What a heartbeat learns: the ids the worker still holds, and those another node asked to cancel. */
export interface LeaseState {
  held: string[];
  cancelRequested: string[];
}

/**
 * Job leases, for several worker processes sharing one queue (the PostgreSQL store; the embedded
 * SQLite store runs jobs in one process and has none). A worker claims a job for a while and renews
 * the claim with a heartbeat; a job whose lease ran out (its worker died) is claimed by another.
 * Conformance: test/conformance/job-leases.conformance.ts.
 */
export interface JobLeases {
  /** The next job to run (queued and due, or running with an expired lease), now running for `owner`; attempts + 1. */
  claim(options: ClaimOptions): Promise<Job | undefined>;
  /** Extends `owner`'s leases on `ids`. */
  renewLeases(owner: string, ids: string[], leaseMs: number): Promise<LeaseState>;
  /** Gives a running job back to the queue, claimable after delayMs (a retry, or a worker stopping); only its lease holder can. */
  requeue(id: string, owner: string, delayMs: number): Promise<boolean>;
  /** Asks the worker running `id` to cancel it. False when it is not running. */
  requestCancel(id: string): Promise<boolean>;
  /** Whether a worker holds an unexpired lease on `id`. */
  leaseHeld(id: string): Promise<boolean>;
}

export function hasLeases(store: JobStore): store is JobStore & JobLeases {
  return typeof (store as Partial<JobLeases>).claim === 'function';
}
