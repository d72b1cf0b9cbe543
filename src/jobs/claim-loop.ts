/**
 * A worker's side of the shared queue (distributed mode): claims jobs from the store under a lease
 * and runs them, `concurrency` at a time plus one slot for short jobs (≤ shortBytes), the same shape
 * as the in-process scheduler. A heartbeat renews the leases of running jobs; a job whose lease this
 * worker lost (it was taken over after a stall, or settled elsewhere) is aborted here, and a cancel
 * asked on another node aborts the run with 'cancel'. It wakes on NOTIFY voxdex_jobs and polls every
 * pollMs in any case. Stopping lets running jobs finish within the grace period, then aborts the
 * rest and gives them back (requeue) so another worker takes them over at once.
 */
import type { Logger } from '../log.js';
import { CANCEL, SHUTDOWN } from '../scheduler.js';
import type { Job, JobLeases, JobStore } from '../store/job-store.js';

/** Abort reason of a run whose lease this worker lost: stop quietly, the job is someone else's now. */
export const LEASE_LOST = 'lease-lost';

interface ClaimLoopOptions {
  store: JobStore & JobLeases;
  /** This worker's name in the lease (unique per process). */
  owner: string;
  leaseMs: number;
  /** Jobs at a time, plus one slot for short jobs. */
  concurrency: number;
  shortBytes: number;
  /** Longest wait between looks at the queue (default 1 s). */
  pollMs?: number;
  /** Runs one claimed job to its end (settle, requeue for a retry, or leave it on abort). */
  run: (job: Job, signal: AbortSignal) => Promise<void>;
  log: Logger;
  /** Observes how long each claim took (ms), for the coordination-overhead figures. */
  onClaim?: (ms: number) => void;
}

interface Running {
  job: Job;
  controller: AbortController;
  short: boolean;
  done: Promise<void>;
}

export class ClaimLoop {
  readonly #o: Required<Pick<ClaimLoopOptions, 'pollMs'>> & ClaimLoopOptions;
  readonly #running = new Map<string, Running>();
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #filling = false;
  #again = false;

  constructor(options: ClaimLoopOptions) {
    this.#o = { pollMs: 1_000, ...options };
  }

  get active(): number {
    return this.#running.size;
  }

  isRunning(id: string): boolean {
    return this.#running.has(id);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#heartbeat = setInterval(() => void this.#renew(), Math.max(100, Math.floor(this.#o.leaseMs / 3)));
    this.#heartbeat.unref();
    this.wake();
  }

  /** Looks at the queue now (a NOTIFY, or a slot came free). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#filling) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    void this.#fill();
  }

  /** Aborts a job running here (a cancel announced on voxdex_cancel). */
  cancel(id: string): boolean {
    const r = this.#running.get(id);
    if (!r) return false;
    r.controller.abort(CANCEL);
    return true;
  }

  async settled(id: string): Promise<void> {
    await this.#running.get(id)?.done;
  }

  /**
   * Stops claiming; waits up to graceMs for running jobs, then aborts them ('shutdown') and gives
   * them back to the queue. Resolves true when some had to be aborted.
   */
  async stop(graceMs: number): Promise<boolean> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const all = () => Promise.allSettled([...this.#running.values()].map((r) => r.done));
    let t: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([all().then(() => false), new Promise<boolean>((r) => (t = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(t);
    let aborted = false;
    if (timedOut && this.#running.size > 0) {
      aborted = true;
      const ids = [...this.#running.keys()];
      for (const r of this.#running.values()) r.controller.abort(SHUTDOWN);
      await all();
      for (const id of ids) await this.#o.store.requeue(id, this.#o.owner, 0).catch((err) => this.#o.log.warn({ err, requestid: id }, 'giving a job back failed; it is taken over when its lease ends'));
    }
    clearInterval(this.#heartbeat);
    return aborted;
  }

  async #fill(): Promise<void> {
    this.#filling = true;
    try {
      do {
        this.#again = false;
        while (!this.#stopped) {
          const normal = [...this.#running.values()].filter((r) => !r.short).length;
          const shortBusy = [...this.#running.values()].some((r) => r.short);
          let short: boolean;
          if (normal < this.#o.concurrency) short = false;
          else if (!shortBusy) short = true;
          else break;
          const t0 = performance.now();
          const job = await this.#o.store.claim({ owner: this.#o.owner, leaseMs: this.#o.leaseMs, maxBytes: short ? this.#o.shortBytes : undefined });
          this.#o.onClaim?.(performance.now() - t0);
          if (!job) break;
          if (this.#stopped) {
            await this.#o.store.requeue(job.id, this.#o.owner, 0);
            break;
          }
          this.#start(job, short);
        }
      } while (this.#again && !this.#stopped);
    } catch (err) {
      this.#o.log.warn({ err }, 'claiming a job failed; trying again shortly');
    } finally {
      this.#filling = false;
    }
    if (!this.#stopped) {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.wake(), this.#o.pollMs);
      this.#timer.unref();
    }
  }

  #start(job: Job, short: boolean): void {
    const controller = new AbortController();
    const done = this.#o
      .run(job, controller.signal)
      .catch((err) => this.#o.log.error({ err, requestid: job.id }, 'job runner failed'))
      .finally(() => {
        this.#running.delete(job.id);
        this.wake();
      });
    this.#running.set(job.id, { job, controller, short, done });
  }

  /** The heartbeat: renew every running job's lease; abort those lost or asked to cancel. */
  async #renew(): Promise<void> {
    const ids = [...this.#running.keys()];
    if (ids.length === 0) return;
    try {
      const { held, cancelRequested } = await this.#o.store.renewLeases(this.#o.owner, ids, this.#o.leaseMs);
      const kept = new Set(held);
      for (const id of ids) {
        const r = this.#running.get(id);
        if (!r || r.controller.signal.aborted) continue;
        if (!kept.has(id)) {
          this.#o.log.warn({ requestid: id }, 'lost the lease of a running job (taken over or settled elsewhere); stopping it here');
          r.controller.abort(LEASE_LOST);
        } else if (cancelRequested.includes(id)) r.controller.abort(CANCEL);
      }
    } catch (err) {
      this.#o.log.warn({ err }, 'renewing job leases failed; retrying at the next heartbeat');
    }
  }
}
