/**
 * Categories (docs/analytics.md, "Categories"): named rules in the `terms` language per company, optionally
 * limited to an organization, a channel or a speaker, and the state of each category's backfill
 * over the calls already indexed (src/analytics/backfill.ts). Adapters: SQLite in the tenancy file
 * (src/store/sqlite/category-store.ts) and PostgreSQL (src/store/pg/category-store.ts); one
 * conformance suite (test/conformance/category-store.conformance.ts) runs against both.
 *
 * A put or remove bumps the category's `version` and resets its backfill to `pending` from the
 * start; progress is saved only for the version it was computed for, so a backfill that raced a
 * change never marks the new rule done. A removed category is kept (hidden) until its backfill has
 * taken its name off every call, then dropped.
 */
export interface CategoryRule {
  /** The rule in the `terms` language (docs/search.md). */
  terms: string;
  org?: string;
  channel?: number;
  speaker?: string;
  /** The terms must match in the agent's or the customer's words (calls whose roles are known). */
  role?: 'agent' | 'customer';
}

export type BackfillState = 'pending' | 'running' | 'done';

export interface BackfillProgress {
  state: BackfillState;
  /** Calls scanned so far for this version. */
  done: number;
  /** Where the scan goes on (the index's opaque cursor); absent: from the start. */
  cursor?: string;
}

export interface CategoryRecord extends CategoryRule {
  company: string;
  name: string;
  /** 1 on creation, +1 on every put and on remove. */
  version: number;
  /** ISO 8601 time of the last put. */
  updated: string;
  /** True once removed: its name is being taken off the calls. Never returned by get/list. */
  deleted: boolean;
  backfill: BackfillProgress;
}

export interface CategoryStore {
  /** Creates or replaces; the backfill starts over. */
  put(company: string, name: string, rule: CategoryRule): Promise<CategoryRecord>;
  get(company: string, name: string): Promise<CategoryRecord | undefined>;
  /** The company's categories, by name. */
  list(company: string): Promise<CategoryRecord[]>;
  /** Marks it removed (its backfill takes the name off the calls); false if there was none. */
  remove(company: string, name: string): Promise<boolean>;
  /** Every category, removed ones included, whose backfill is not done. */
  pending(): Promise<CategoryRecord[]>;
  /**
   * Saves progress for `version`; false (nothing written) when the category changed or went away
   * meanwhile. A removed category whose backfill is done is dropped.
   */
  saveProgress(company: string, name: string, version: number, progress: BackfillProgress): Promise<boolean>;
  /** saveProgress for several categories of a company in one transaction; returns the names saved. */
  saveProgressMany(company: string, items: ReadonlyArray<{ name: string; version: number; progress: BackfillProgress }>): Promise<string[]>;
  /**
   * Takes or renews the lease `key` for `owner` until now + ttlMs; false while another owner holds
   * an unexpired one. One node backfills a company at a time.
   */
  lease(key: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(key: string, owner: string): Promise<void>;
}
