/**
 * What both indexes store about a call's analytics (docs/analytics.md) and the search options on
 * them: `category=NAME` (repeatable or a comma list: any of them), `sentiment=<label>` (calls with an
 * utterance of that label), `overtalk=MIN-MAX` (seconds of overtalk, inclusive), `redacted=KIND,…`
 * (calls where a word of any of these kinds was redacted or marked) and the sort keys
 * `overtalk` / `silence` (transcript-index.ts SORT_KEYS). Categories of an indexed call change
 * without re-indexing it (the backfill), so backends keep them beside the stored document and
 * overlay them on it when reading (`withCategories`).
 */
import { voxdexError } from '../errors.js';
import { invalidParameter } from '../is.js';
import { REDACT_KINDS, type RedactKind, type SentimentLabel, type TranscriptDocument } from '../types.js';
import type { SearchQuery } from './transcript-index.js';

const SENTIMENT_LABELS: readonly SentimentLabel[] = ['Positive', 'Mostly Positive', 'Neutral', 'Mostly Negative', 'Negative'];

export const ANALYTICS_OPTION_NAMES = ['category', 'sentiment', 'overtalk', 'redacted'] as const;
/** The one option that may be given several times in a query string (values join as a comma list). */
export const REPEATABLE_OPTION = 'category';
/**
 * Category names: short names (docs/service.md, "Tenancy choices") that start with a letter, digit or `_` and hold a letter or
 * digit: `.` and `..` are path segments (`PUT /categories/acme/..` is another path to a client or a
 * proxy), and a leading `-` reads as a flag (`voxdex category remove -x`) or a NOT.
 */
export const CATEGORY_NAME = /^(?=.*[A-Za-z0-9])[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const MAX_CATEGORY_FILTERS = 50;

type AnalyticsQuery = Pick<SearchQuery, 'categories' | 'sentiment' | 'overtalkMin' | 'overtalkMax' | 'redacted'>;

/** Validates the analytics options of a search (raw values as given). */
export function parseAnalyticsOptions(raw: Record<string, string | undefined>): AnalyticsQuery {
  const out: AnalyticsQuery = {};
  if (raw.category !== undefined) {
    const names = [...new Set(raw.category.split(',').map((s) => s.trim()).filter((s) => s !== ''))];
    if (names.length === 0 || names.length > MAX_CATEGORY_FILTERS || names.some((n) => !CATEGORY_NAME.test(n))) {
      throw invalidParameter('category', `1 to ${MAX_CATEGORY_FILTERS} category names (letters, digits, _ . -; repeat the option or give a comma list)`, raw.category);
    }
    out.categories = names;
  }
  if (raw.sentiment !== undefined) out.sentiment = sentimentLabels(raw.sentiment);
  if (raw.redacted !== undefined) {
    const kinds = [...new Set(raw.redacted.split(',').map((k) => k.trim().toLowerCase()).filter((k) => k !== ''))];
    if (kinds.length === 0 || kinds.some((k) => !(REDACT_KINDS as readonly string[]).includes(k))) {
      throw invalidParameter('redacted', `a comma list of redaction kinds (${REDACT_KINDS.join(', ')}): calls where one was redacted or marked`, raw.redacted);
    }
    out.redacted = kinds as RedactKind[];
  }
  if (raw.overtalk !== undefined) {
    const m = /^\s*(\d+(?:\.\d+)?)?\s*-\s*(\d+(?:\.\d+)?)?\s*$/.exec(raw.overtalk);
    if (!m || (m[1] === undefined && m[2] === undefined) || (m[1] !== undefined && m[2] !== undefined && Number(m[1]) > Number(m[2]))) {
      throw invalidParameter('overtalk', 'MIN-MAX seconds of overtalk, MIN not above MAX (e.g. 5-60, 5- or -60)', raw.overtalk);
    }
    if (m[1] !== undefined) out.overtalkMin = Number(m[1]);
    if (m[2] !== undefined) out.overtalkMax = Number(m[2]);
  }
  return out;
}

/**
 * `sentiment=`: a label as typed (any case, `_` or spaces between words: `mostly_negative`), a comma
 * list of them (calls with an utterance of any of them) or `any` (every label: the calls analysed for
 * sentiment) → the labels; else BAD_ARGUMENT listing them.
 */
function sentimentLabels(raw: string): SentimentLabel[] {
  const out = new Set<SentimentLabel>();
  for (const part of raw.split(',')) {
    const key = part.trim().replace(/[\s_]+/g, ' ').toLowerCase();
    const label = SENTIMENT_LABELS.find((l) => l.toLowerCase() === key);
    if (label) out.add(label);
    else if (key === 'any') SENTIMENT_LABELS.forEach((l) => out.add(l));
    else throw invalidParameter('sentiment', `one of ${SENTIMENT_LABELS.join(', ')} (any case; a comma list for any of them; any: every label)`, raw);
  }
  return SENTIMENT_LABELS.filter((l) => out.has(l));
}

/** The names of `wanted` that are not among the company's categories (`known`): a search for them is UNKNOWN_CATEGORY. */
export function checkCategoriesKnown(company: string, wanted: readonly string[], known: readonly string[]): void {
  const missing = wanted.filter((n) => !known.includes(n));
  if (missing.length === 0) return;
  const list = known.length === 0 ? `${company} has no categories yet` : `the categories of ${company} are ${known.join(', ')}`;
  throw voxdexError(
    'UNKNOWN_CATEGORY',
    `Unknown ${missing.length === 1 ? 'category' : 'categories'} ${missing.map((n) => JSON.stringify(n)).join(', ')}: ${list} (names are case-sensitive; GET /categories/${company} lists them).`,
  );
}

/**
 * What an index stores for filtering and sorting: the distinct utterance labels, the metrics, and the
 * kinds redacted (or marked by scrubtext=tag) in the call — `redacted=name` finds the calls where a
 * name was redacted (compliance audits it); the words themselves are never stored.
 */
export function documentAnalytics(doc: TranscriptDocument): { sentiments: string[]; overtalk?: number; silence?: number; categories: string[]; redacted: string[] } {
  const d = doc as Omit<TranscriptDocument, 'categories'> & { categories?: unknown };
  const sentiments = new Set<string>();
  const redacted = new Set<string>();
  for (const u of doc.utterances ?? []) {
    const label = u.metadata?.sentiment;
    if (label !== undefined && SENTIMENT_LABELS.includes(label)) sentiments.add(label);
    for (const e of u.events ?? []) {
      const kind = e.redacted ?? e.pii;
      if (kind !== undefined && (REDACT_KINDS as readonly string[]).includes(kind)) redacted.add(kind);
    }
  }
  const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const categories = Array.isArray(d.categories) ? d.categories.filter((c): c is string => typeof c === 'string' && CATEGORY_NAME.test(c)) : [];
  return {
    sentiments: [...sentiments].sort(), overtalk: num(d.metrics?.overtalksecs), silence: num(d.metrics?.silencesecs), categories: [...new Set(categories)].sort(),
    redacted: [...redacted].sort(),
  };
}

/** The stored document with its current categories (kept beside it) in place of those it was indexed with. */
export function withCategories<T extends TranscriptDocument>(doc: T, categories: readonly string[]): T {
  const had = Object.hasOwn(doc, 'categories');
  if (!had && categories.length === 0) return doc;
  return { ...doc, categories: [...categories] };
}
