/**
 * A CPU budget for work on the event loop that a request's words decide the cost of: a search
 * (VOXDEX_SEARCH_BUDGET_MS) and the scoring of one call against one category
 * (VOXDEX_CATEGORY_BUDGET_MS). It counts the CPU time of this thread (the native addon's
 * CLOCK_THREAD_CPUTIME_ID: not the ASR pool's threads, not time spent waiting) across the work's
 * slices, and it keeps the server answering:
 *  - `spend()` in the inner loops (every CHECK_EVERY units it reads the clock): over the budget, or
 *    one slice longer than MAX_SLICE_MS of CPU without a break (the longest `/status` may wait), it
 *    throws QUERY_TOO_EXPENSIVE — refused within its budget, not a stall;
 *  - `pace()` between units (a transcript, a call): once the slice has run SLICE_MS, it lets the
 *    event loop answer what waits (`/status`, uploads) before going on.
 */
import { threadCpuMs } from '../addon/native.js';
import { VoxdexError } from '../errors.js';

/** A slice of work yields to the event loop after this much wall time. */
const SLICE_MS = 20;
/** The most CPU one slice may take without a break: what a request arriving meanwhile waits at worst. */
const MAX_SLICE_MS = 100;
/**
 * Units of work between two reads of the clock (a read costs a few microseconds). A unit is one word
 * compared, or one character a wildcard test reads: 4096 of them are well under a millisecond.
 */
const CHECK_EVERY = 4096;

interface BudgetOptions {
  /** CPU milliseconds the whole work may use. */
  limitMs: number;
  /** What the work is, for the message ("The search", "Category refund on call …"). */
  what: string;
  /** What to do about it, for the message. */
  advice: string;
  /** The setting that holds the limit, for the message. */
  setting: string;
  /** Default MAX_SLICE_MS. */
  maxSliceMs?: number;
}

export class CpuBudget {
  readonly #o: Required<BudgetOptions>;
  /** CPU of the slices already closed. */
  #usedMs = 0;
  #sliceCpu = threadCpuMs();
  /** When the event loop last turned for this work (a pace() that yielded, or awaited I/O). */
  #turned = performance.now();
  #units = 0;

  constructor(o: BudgetOptions) {
    this.#o = { maxSliceMs: MAX_SLICE_MS, ...o };
  }

  /** CPU milliseconds the work may use. */
  get limitMs(): number {
    return this.#o.limitMs;
  }

  /** What is left of the budget, ms (at least 1). */
  get remainingMs(): number {
    return Math.max(1, Math.floor(this.#o.limitMs - this.usedMs));
  }

  /** CPU milliseconds used so far. */
  get usedMs(): number {
    return this.#usedMs + (threadCpuMs() - this.#sliceCpu);
  }

  /** Counts `units` of work; every CHECK_EVERY of them, throws when over the budget or the slice cap. */
  spend(units = 1): void {
    this.#units += units;
    if (this.#units < CHECK_EVERY) return;
    this.#units = 0;
    this.check();
  }

  /** Throws QUERY_TOO_EXPENSIVE when the work is over its budget, or this slice over its cap. */
  check(): void {
    const slice = threadCpuMs() - this.#sliceCpu;
    if (this.#usedMs + slice > this.#o.limitMs) {
      throw this.refusal(`used its CPU budget of ${this.#o.limitMs} ms (${this.#o.setting}) before it finished`);
    }
    if (slice > this.#o.maxSliceMs) {
      throw this.refusal(`ran more than ${this.#o.maxSliceMs} ms of CPU without a break (one transcript, or one step, too costly)`);
    }
  }

  /** Between units: checks, and once the slice has run SLICE_MS lets the event loop answer what waits. */
  async pace(): Promise<void> {
    this.check();
    if (performance.now() - this.#turned < SLICE_MS) return;
    this.#usedMs += threadCpuMs() - this.#sliceCpu;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.restart();
  }

  /** Starts a new slice without counting what ran since the last one (after waiting for I/O: other requests ran meanwhile). */
  restart(): void {
    this.#sliceCpu = threadCpuMs();
    this.#turned = performance.now();
  }

  /** Adds `ms` spent elsewhere on the work's behalf (an Elasticsearch request's time), then checks the total. */
  charge(ms: number): void {
    this.#usedMs += ms;
    this.restart();
    this.check();
  }

  /**
   * Counts the running slice and starts a new one (before waiting for I/O; after one statement that
   * cannot be interrupted, such as an SQLite query: it counts, but it is no slice of ours to cap).
   */
  pause(): void {
    const now = threadCpuMs();
    this.#usedMs += now - this.#sliceCpu;
    this.#sliceCpu = now;
  }

  /** The error that refuses the work: what it is, why, and what to do. */
  refusal(why: string): VoxdexError {
    return new VoxdexError('QUERY_TOO_EXPENSIVE', `${this.#o.what} ${why}; ${this.#o.advice}`);
  }
}

/** The budget of one search. */
export function searchBudget(limitMs: number): CpuBudget {
  return new CpuBudget({
    limitMs,
    what: 'The search',
    setting: 'VOXDEX_SEARCH_BUDGET_MS',
    advice: 'narrow it: fewer wildcards and more letters around them, fewer words in OR, a date range (from/to) or one folder.',
  });
}

/** The budget of one category's rule on one call (src/analytics/categories.ts). */
export function categoryBudget(category: string, limitMs: number): CpuBudget {
  return new CpuBudget({
    limitMs,
    maxSliceMs: limitMs,
    what: `The rule of category ${category}`,
    setting: 'VOXDEX_CATEGORY_BUDGET_MS',
    advice: 'narrow its wildcards (more letters around them, fewer of them).',
  });
}

/** Paces a loop without limiting it: the event loop answers what waits every SLICE_MS. */
export function pacer(): CpuBudget {
  return new CpuBudget({ limitMs: Infinity, maxSliceMs: Infinity, what: '', setting: '', advice: '' });
}

/** `items.map(fn)`, pacing `budget` before each item (no budget: a plain map). */
export async function mapPaced<T, R>(items: readonly T[], budget: Pick<CpuBudget, 'pace'> | undefined, fn: (item: T) => R): Promise<R[]> {
  const out: R[] = [];
  for (const item of items) {
    await budget?.pace();
    out.push(fn(item));
  }
  return out;
}
