/**
 * The durable callback outbox interface: one row per (requestid, kind) delivery and one row per
 * attempt, in the same store as the jobs (so a job's final state and its callback commit in one
 * transaction: JobStore.settle). State machine: pending → inflight → delivered | failed, or back to
 * pending with a later next_at. An item left inflight by a process that died is put back to pending
 * on start (at-least-once; the delivery id stays the same so receivers can de-duplicate).
 * Every adapter runs test/conformance/job-store.conformance.ts.
 */
type CallbackKind = 'result' | 'error';
type DeliveryState = 'pending' | 'inflight' | 'delivered' | 'failed';

export interface EnqueueInput {
  requestid: string;
  company: string;
  url: string;
  kind: CallbackKind;
  /** The `file` part: the bytes themselves, or the path of a file read at delivery time. */
  body: Buffer | string;
  contentType: string;
  filename: string;
  /**
   * The company's callback secret, kept in the row; only for dispatchers without `secretFor`. The
   * service never stores it here (a copy of the jobs database alone must not sign callbacks).
   */
  secret?: string;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  durationMs?: number;
  status?: number;
  error?: string;
}

/** What the request status shows about one callback. */
export interface DeliveryStatus {
  delivery: string;
  kind: CallbackKind;
  url: string;
  state: DeliveryState;
  attempts: AttemptRecord[];
  nextAttemptAt?: string;
  deliveredAt?: string;
  lastError?: string;
}

export interface DeliveryRow {
  id: string;
  requestid: string;
  kind: CallbackKind;
  company: string;
  url: string;
  body: Buffer | null;
  body_path: string | null;
  content_type: string;
  filename: string;
  secret: string | null;
  state: DeliveryState;
  attempts: number;
  next_at: number;
  created_at: number;
  updated_at: number;
  last_error: string | null;
}

/** How one attempt ended: delivered, failed for good, or pending again at `nextAt`. */
export interface AttemptResult {
  status?: number;
  error?: string;
  durationMs: number;
  state: 'delivered' | 'failed' | 'pending';
  nextAt?: number;
}

export interface CallbackOutbox {
  /** Adds a delivery unless one exists for (requestid, kind); resolves to its delivery id either way. */
  enqueue(input: EnqueueInput, now?: number): Promise<string>;
  /** Called (asynchronously) after each enqueue, also by JobStore.settle; the dispatcher uses it to wake up. */
  onEnqueue(listener: () => void): () => void;
  get(id: string): Promise<DeliveryRow | undefined>;
  /** Pending deliveries whose time has come, oldest first. */
  due(now: number, limit: number): Promise<DeliveryRow[]>;
  /** When the next pending delivery is due (ms epoch), if any. */
  nextDueAt(): Promise<number | undefined>;
  /** pending → inflight and opens attempt N; resolves to N, or 0 when another dispatcher took it. */
  claim(id: string, now?: number): Promise<number>;
  /** Closes attempt N and moves the delivery on: delivered, failed, or pending again at `nextAt`. */
  settle(id: string, attempt: number, result: AttemptResult, now?: number): Promise<void>;
  /** Puts deliveries left inflight by a stopped process back to pending, due now. Resolves to how many. */
  recoverInflight(now?: number): Promise<number>;
  /** Every callback of a request with its attempts, for the request status. */
  deliveries(requestid: string): Promise<DeliveryStatus[]>;
  /**
   * Sends a request's callbacks again (docs/callbacks.md, "Sending a callback again"): every delivery
   * of the request that is not in flight (delivered, failed or waiting) becomes pending, due `now`; its
   * delivery id stays and its attempts are numbered on. Resolves to how many were put back.
   */
  resend(requestid: string, now?: number): Promise<number>;
  /** Removes a request's deliveries and attempts (when the request itself is deleted). */
  forget(requestid: string): Promise<void>;
  /**
   * Forgets every stored secret (the service signs with the company's secret from tenancy, sealed
   * there, read at delivery time; earlier versions copied it into each row). Resolves to how many rows had one.
   */
  dropSecrets(): Promise<number>;
}
