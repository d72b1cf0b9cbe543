/**
 * The job store interface: transcription requests (jobs) and their per-file items.
 * A job moves queued → running → done | failed | cancelled; items move queued → running → done | failed.
 * Every adapter runs the same conformance suite (test/job-store.test.ts).
 */
import type { ErrorInfo } from '../errors.js';
import type { Destination, OutputFormat } from '../types.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type ItemState = 'queued' | 'running' | 'done' | 'failed';
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];
export const FINAL_STATES: readonly JobState[] = ['done', 'failed', 'cancelled'];

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

export interface JobStore {
  /** Adds a queued job; adding an id that exists returns the existing job unchanged. */
  create(job: NewJob): Job;
  get(id: string): Job | undefined;
  /** Queued and running jobs in acceptance order. */
  listUnfinished(): Job[];
  /** The most recently accepted jobs first, of one company or of all; `offset` skips that many. */
  listRecent(filter: { company?: string; limit: number; offset: number }): Job[];
  /** queued|running → running (attempts + 1). False when the job is final or missing. */
  markRunning(id: string): boolean;
  setProgress(id: string, progress: number): void;
  /** queued|running → final state. False when already final or missing (first final state wins). */
  finish(id: string, state: 'done' | 'failed' | 'cancelled', extra?: { error?: ErrorInfo; resultPath?: string }): boolean;
  /** Adds the members that are not there yet (idempotent), returns all items in order. */
  setItems(id: string, members: string[]): JobItem[];
  items(id: string): JobItem[];
  updateItem(id: string, member: string, patch: ItemPatch): void;
  /** Number of queued jobs accepted before this one (0 when running or final). */
  queuePosition(id: string): number;
  countByState(): Record<JobState, number>;
  /** Removes the job and its items. */
  delete(id: string): boolean;
  /** Whether the store answers (for /health). */
  ping(): boolean;
  close(): void;
}
