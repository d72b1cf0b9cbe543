/**
 * The category backfill: when a category is created, changed or removed, the calls already indexed
 * are scored against it in the background (issue 20).
 *
 * - Per company, one node at a time: the store lease `categories:<company>` (renewed every batch;
 *   another node takes over when it expires, e.g. after kill -9).
 * - The company's unfinished categories that stand at the same cursor are done together in one scan
 *   of the index (`categoryScan`, BATCH calls a page); each call's list changes only for those names
 *   (removed categories: taken off), written with `setCategories`, and only then is the new cursor
 *   saved (`saveProgress`, for the version scored). A crash between the two repeats one batch, which
 *   writes the same lists again: resumable after kill -9 without a gap.
 * - A category changed while its backfill runs gets a new version; the old progress is refused and it
 *   starts over with its new rule.
 */
import type { Logger } from '../log.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { BackfillState, CategoryRecord, CategoryStore } from '../store/category-store.js';
import { pacer } from '../search/budget.js';
import { compileCategory, type CompiledCategory, needsDocument, scoreCallPaced } from './categories.js';

export const BATCH = 1000;
export const LEASE_MS = 30_000;

export interface BackfillOptions {
  store: CategoryStore;
  index: TranscriptIndex;
  log: Logger;
  /** This node's name in leases. */
  owner: string;
  /** How often to look for unfinished backfills (ms; default 2000). 0: only when kicked. */
  pollMs?: number;
  batch?: number;
  /** Lease length (ms; default LEASE_MS): how long a dead node's lease holds off the others. */
  leaseMs?: number;
  /** CPU ms one rule may take on one call (VOXDEX_CATEGORY_BUDGET_MS; default 100): over it, the call is not in that category. */
  budgetMs?: number;
}

/** What one `runCompany` did: calls scanned and calls whose categories changed. */
export interface BackfillRun {
  scanned: number;
  changed: number;
}

export class CategoryBackfill {
  readonly #o: Required<BackfillOptions>;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(o: BackfillOptions) {
    this.#o = { pollMs: 2000, batch: BATCH, leaseMs: LEASE_MS, budgetMs: 100, ...o };
  }

  start(): void {
    this.#stopped = false;
    this.kick();
    if (this.#o.pollMs > 0) {
      this.#timer = setInterval(() => this.kick(), this.#o.pollMs);
      this.#timer.unref();
    }
  }

  /** Looks for work now (after a put or remove); a call while running runs once more after it. */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.runAll()
      .catch((err: unknown) => this.#o.log.warn({ err }, 'category backfill failed; retrying later'))
      .finally(() => {
        this.#running = undefined;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** Waits for the pass under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.idle();
  }

  /** Every company with unfinished backfills, one after the other. */
  async runAll(): Promise<void> {
    const companies = [...new Set((await this.#o.store.pending()).map((c) => c.company))];
    for (const company of companies) {
      if (this.#stopped) return;
      await this.runCompany(company);
    }
  }

  /** Backfills one company until nothing is pending (or the lease is another node's). */
  async runCompany(company: string): Promise<BackfillRun> {
    const { store, owner } = this.#o;
    const key = `categories:${company}`;
    const run: BackfillRun = { scanned: 0, changed: 0 };
    if (!(await store.lease(key, owner, this.#o.leaseMs))) return run;
    try {
      for (;;) {
        if (this.#stopped) return run;
        const pending = (await store.pending()).filter((c) => c.company === company);
        if (pending.length === 0) return run;
        // The categories at the first one's cursor go together.
        const cursor = pending[0]!.backfill.cursor;
        await this.#scan(company, pending.filter((c) => c.backfill.cursor === cursor), cursor, run);
      }
    } finally {
      await store.releaseLease(key, owner).catch(() => undefined);
    }
  }

  async #scan(company: string, group: CategoryRecord[], start: string | undefined, run: BackfillRun): Promise<void> {
    const { store, index, owner, log } = this.#o;
    let live = group;
    const compiled = new Map<string, CompiledCategory | undefined>();
    for (const c of group) compiled.set(c.name, c.deleted ? undefined : compileCategory(c.name, c));
    let cursor = start;
    for (;;) {
      if (!(await store.lease(`categories:${company}`, owner, this.#o.leaseMs))) return;
      const page = await index.categoryScan(company, cursor, this.#o.batch);
      const names = new Set(live.map((c) => c.name));
      const rules = live.map((c) => compiled.get(c.name)).filter((c): c is CompiledCategory => c !== undefined);
      const withDoc = needsDocument(rules);
      const updates: Array<{ tid: string; categories: string[] }> = [];
      // Scoring yields between rules and calls (/status and uploads answer), each rule within its budget on each call.
      const pace = pacer();
      const score = { budgetMs: this.#o.budgetMs, onOverBudget: (c: CompiledCategory) => log.warn({ company, category: c.name }, 'category rule over its CPU budget on a call: counted as not matching') };
      for (const item of page.items) {
        // No restart here: reading the document is no wait for I/O (SQLite reads it in place), and a
        // restart before every call would keep the slice from ever reaching SLICE_MS (the stall of issue 33.5).
        const document = withDoc && item.document ? await item.document() : undefined;
        const matched = await scoreCallPaced(rules, { org: item.org, words: item.words, document }, score, pace);
        const next = [...new Set([...item.categories.filter((n) => !names.has(n)), ...matched])].sort();
        if (next.join('\u0000') !== item.categories.join('\u0000')) updates.push({ tid: item.tid, categories: next });
      }
      await index.setCategories(company, updates);
      run.scanned += page.items.length;
      run.changed += updates.length;
      const state: BackfillState = page.next === undefined ? 'done' : 'running';
      const next = live.map((c) => ({ ...c, backfill: { state, done: c.backfill.done + page.items.length, ...(page.next === undefined ? {} : { cursor: page.next }) } }));
      const saved = new Set(await store.saveProgressMany(company, next.map((c) => ({ name: c.name, version: c.version, progress: c.backfill }))));
      live = next.filter((c) => saved.has(c.name));
      if (page.next === undefined || live.length === 0) {
        if (page.next === undefined) log.info({ company, categories: group.map((c) => c.name), scanned: run.scanned }, 'category backfill done');
        return;
      }
      cursor = page.next;
    }
  }
}
