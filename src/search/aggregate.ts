/**
 * Dashboard aggregations (docs/analytics.md, "Dashboard figures"): what both indexes compute over the
 * calls a search matches — calls, sentiment with its own denominator (calls analysed for sentiment),
 * overtalk and silence over the calls with metrics, category counts — for the whole set, per day and
 * per group. The indexes fill `Figures` cells (one per day or group); the helpers here build, merge,
 * round and order them the same way for both.
 */
import type { Aggregates, Figures } from './transcript-index.js';
import { MAX_GROUPS } from './transcript-index.js';

/** The labels that count as negative in `sentiment.negative`. */
export const NEGATIVE_LABELS = ['Negative', 'Mostly Negative'] as const;

const DAY_MS = 86_400_000;

/**
 * The count maps (labels, categories) are keyed by names a company chooses: they have no prototype
 * while they are filled, so that a category named `constructor` or `__proto__` is a key like any other.
 */
export function emptyFigures(): Figures {
  return {
    calls: 0,
    sentiment: { analysed: 0, negative: 0, labels: Object.create(null) as Record<string, number> },
    metrics: { analysed: 0, overtalkCalls: 0, overtalkSecs: 0, silenceSecs: 0 },
    categories: Object.create(null) as Record<string, number>,
  };
}

/** Adds `b` into `a` (cells are disjoint sets of calls, so every figure adds up). */
function addFigures(a: Figures, b: Figures): Figures {
  a.calls += b.calls;
  a.sentiment.analysed += b.sentiment.analysed;
  a.sentiment.negative += b.sentiment.negative;
  for (const [k, n] of Object.entries(b.sentiment.labels)) a.sentiment.labels[k] = (a.sentiment.labels[k] ?? 0) + n;
  a.metrics.analysed += b.metrics.analysed;
  a.metrics.overtalkCalls += b.metrics.overtalkCalls;
  a.metrics.overtalkSecs += b.metrics.overtalkSecs;
  a.metrics.silenceSecs += b.metrics.silenceSecs;
  for (const [k, n] of Object.entries(b.categories)) a.categories[k] = (a.categories[k] ?? 0) + n;
  return a;
}

/** Seconds to 0.01 and maps in key order, so that both backends' answers compare equal. */
export function tidyFigures<T extends Figures>(f: T): T {
  f.metrics.overtalkSecs = Math.round(f.metrics.overtalkSecs * 100) / 100;
  f.metrics.silenceSecs = Math.round(f.metrics.silenceSecs * 100) / 100;
  f.sentiment.labels = sortedRecord(f.sentiment.labels);
  f.categories = sortedRecord(f.categories);
  return f;
}

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The day (YYYY-MM-DD, in the zone `tzOffsetMin` minutes east of UTC) of an epoch-ms time. */
export function dayOf(ms: number, tzOffsetMin: number): string {
  return new Date(Math.floor((ms + tzOffsetMin * 60_000) / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

export function dayFromNumber(n: number): string {
  return new Date(n * DAY_MS).toISOString().slice(0, 10);
}

/** Days in order; groups by calls (desc), key (asc), at most MAX_GROUPS, then the calls without a value (key null). */
export function finishAggregates(
  days: Map<string, Figures>,
  groups: Map<string | null, Figures> | undefined,
): Aggregates {
  const total = emptyFigures();
  const dayList = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, f]) => {
    addFigures(total, f);
    return { day, ...tidyFigures(f) };
  });
  const out: Aggregates = { total: tidyFigures(total), days: dayList };
  if (groups) {
    const sorted = [...groups.entries()]
      .filter((e): e is [string, Figures] => e[0] !== null && e[1].calls > 0)
      .sort(([ka, a], [kb, b]) => b.calls - a.calls || (ka < kb ? -1 : ka > kb ? 1 : 0));
    out.groups = sorted.slice(0, MAX_GROUPS).map(([key, f]) => ({ key, ...tidyFigures(f) }));
    const none = groups.get(null);
    if (none && none.calls > 0) out.groups.push({ key: null, ...tidyFigures(none) });
    const rest = sorted.slice(MAX_GROUPS).reduce((n, [, f]) => n + f.calls, 0);
    if (rest > 0) out.otherGroupsCalls = rest;
  }
  return out;
}
