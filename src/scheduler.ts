/**
 * The in-process job scheduler. Jobs wait in a bounded queue and run `concurrency` at a time, plus
 * one slot kept for short jobs so a short call is never stuck behind long ones. The next job is the
 * one of the highest priority (a named field, as bullmq's: a live call's job has LIVE_PRIORITY, an
 * upload 0), then the smallest size after ageing (size / (1 + waited/agingSec)), so long jobs are
 * not starved. A job with a priority above 0 may also take the short-job slot.
 * Cancelling aborts a running job's signal with reason 'cancel'; stopping aborts with 'shutdown'
 * (the job stays unfinished in the store and resumes after the next start). The scheduler never drops
 * a job: admission (OVERLOADED) happens before a job is accepted, not here.
 */
import type { Logger } from './log.js';

export interface SchedulableJob {
  id: string;
  sizeBytes: number;
  /** Higher runs first; absent = 0 (docs/service.md, "Queue"). */
  priority?: number;
}

/** A live call's job: its client waits on the connection for the `result` message. */
export const LIVE_PRIORITY = 10;

interface SchedulerOptions {
  concurrency: number;
  /** Jobs up to this size may use the extra short-job slot. */
  shortBytes: number;
  /** Seconds of waiting that halve a job's effective size (default 60). */
  agingSec?: number;
  run: (id: string, signal: AbortSignal) => Promise<void>;
  log: Logger;
  now?: () => number;
}

export const CANCEL = 'cancel';
export const SHUTDOWN = 'shutdown';

interface Waiting {
  id: string;
  sizeBytes: number;
  priority: number;
  since: number;
}

interface Running {
  controller: AbortController;
  short: boolean;
  done: Promise<void>;
}

export class Scheduler {
  readonly #o: SchedulerOptions;
  readonly #waiting = new Map<string, Waiting>();
  readonly #running = new Map<string, Running>();
  #stopped = false;
  #idle: (() => void)[] = [];

  constructor(options: SchedulerOptions) {
    this.#o = options;
  }

  get queued(): number {
    return this.#waiting.size;
  }

  get active(): number {
    return this.#running.size;
  }

  has(id: string): boolean {
    return this.#waiting.has(id) || this.#running.has(id);
  }

  isRunning(id: string): boolean {
    return this.#running.has(id);
  }

  /** Adds a job (a second add of the same id is ignored). */
  enqueue(job: SchedulableJob): void {
    if (this.#stopped || this.has(job.id)) return;
    this.#waiting.set(job.id, { id: job.id, sizeBytes: job.sizeBytes, priority: job.priority ?? 0, since: this.#now() });
    this.#pump();
  }

  /** Removes a waiting job or aborts a running one. Returns where it was, or false. */
  cancel(id: string): 'queued' | 'running' | false {
    if (this.#waiting.delete(id)) return 'queued';
    const r = this.#running.get(id);
    if (!r) return false;
    r.controller.abort(CANCEL);
    return 'running';
  }

  /** Waits until the job (if running) has settled. */
  async settled(id: string): Promise<void> {
    await this.#running.get(id)?.done;
  }

  /**
   * Stops starting jobs; waits up to graceMs for running ones, then aborts them with 'shutdown'
   * and waits for them to unwind. Resolves true when some job had to be aborted.
   */
  async stop(graceMs: number): Promise<boolean> {
    this.#stopped = true;
    this.#waiting.clear();
    const all = () => Promise.allSettled([...this.#running.values()].map((r) => r.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([all().then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (timedOut && this.#running.size > 0) {
      for (const r of this.#running.values()) r.controller.abort(SHUTDOWN);
      await all();
      return true;
    }
    return false;
  }

  /** Resolves when nothing is waiting or running (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.#waiting.size === 0 && this.#running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #now(): number {
    return (this.#o.now ?? Date.now)();
  }

  #pump(): void {
    while (!this.#stopped && this.#waiting.size > 0) {
      const normal = [...this.#running.values()].filter((r) => !r.short).length;
      const shortBusy = [...this.#running.values()].some((r) => r.short);
      let pick: Waiting | undefined;
      let short = false;
      if (normal < this.#o.concurrency) {
        pick = this.#best([...this.#waiting.values()]);
      } else if (!shortBusy) {
        pick = this.#best([...this.#waiting.values()].filter((w) => w.sizeBytes <= this.#o.shortBytes || w.priority > 0));
        short = true;
      }
      if (!pick) break;
      this.#start(pick, short);
    }
    if (this.#waiting.size === 0 && this.#running.size === 0) {
      const waiters = this.#idle;
      this.#idle = [];
      waiters.forEach((w) => w());
    }
  }

  #best(candidates: Waiting[]): Waiting | undefined {
    const now = this.#now();
    const aging = (this.#o.agingSec ?? 60) * 1000;
    let best: Waiting | undefined;
    let bestScore = Infinity;
    for (const w of candidates) {
      const score = w.sizeBytes / (1 + (now - w.since) / aging);
      if (!best || w.priority > best.priority || (w.priority === best.priority && score < bestScore)) {
        best = w;
        bestScore = score;
      }
    }
    return best;
  }

  #start(w: Waiting, short: boolean): void {
    this.#waiting.delete(w.id);
    const controller = new AbortController();
    // Started on the next turn of the event loop, not in a microtask: a job queued by an HTTP request
    // must not put its first synchronous work (store commits) ahead of that request's answer.
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#o.run(w.id, controller.signal))
      .catch((err) => this.#o.log.error({ err, requestid: w.id }, 'job runner failed'))
      .finally(() => {
        this.#running.delete(w.id);
        this.#pump();
      });
    this.#running.set(w.id, { controller, short, done });
  }
}
