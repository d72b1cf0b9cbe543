/**
 * The transcript index interface (docs/search.md). Every backend — the embedded SQLite store and
 * Elasticsearch — implements it and passes the one conformance suite in
 * test/conformance/transcript-index.conformance.ts. Options arrive here already validated
 * (src/search/search-options.ts); the inside trusts them.
 *
 * Shared semantics both backends follow (docs/search.md has the long form):
 * - Words are normalized with `normalizeWord` (src/search/match.ts). Each channel of a transcript is
 *   one word sequence: its utterances in time order, fillers dropped. Phrases and proximity match
 *   within one channel's sequence (across utterance boundaries of that channel, never across channels);
 *   AND / OR / NOT combine at transcript level.
 * - `hits` and `score` are computed with `findHits` (src/search/match.ts) from the document itself, so
 *   both backends return identical hits and scores: score = number of hits.
 * - Sorting: by `sort` in `sortdir`, missing values lowest, ties broken by tid ascending.
 */
import type { RedactKind, TranscriptDocument } from '../types.js';
import type { ChannelWords } from './match.js';
import type { CpuBudget } from './budget.js';
import type { SearchAnswers } from './search-answer.js';
import type { QueryNode } from './query.js';

/** One transcript as handed to the index. Re-indexing the same tid replaces it. */
export interface IndexedTranscript {
  /** Transcript id, unique per installation (assigned by the pipeline). */
  tid: string;
  company: string;
  org: string;
  folder: string;
  /** ISO 8601 call time (the request's `datetime`; default: upload time). */
  datetime: string;
  /** ISO 8601 time of indexing; the backend fills it in when absent. */
  indexedAt?: string;
  document: TranscriptDocument;
}

/** Where a search or delete looks: one organization, optionally one folder of it. */
export interface SearchScope {
  company: string;
  org: string;
  folder?: string;
}

/** Where an aggregation looks: a whole company, one organization, or one folder of it. */
export interface AggregateScope {
  company: string;
  org?: string;
  folder?: string;
}

export const SORT_KEYS = ['datetime', 'duration', 'filename', 'score', 'confidence', 'overtalk', 'silence'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';

/** A validated search. Absent filters do not restrict. */
export interface SearchQuery {
  /** Parsed `terms` (src/search/query.ts); absent: every transcript in scope matches (no hits). */
  terms?: QueryNode;
  /** Terms match on this channel only; without terms: transcripts that have this channel. */
  channel?: number;
  /** Terms match in this speaker's words only (`metadata.speaker`); without terms: transcripts with this speaker. */
  speaker?: string;
  /** Terms match in this role's words only (`metadata.role`: agent, customer); without terms: transcripts with this role. */
  role?: 'agent' | 'customer';
  /** Call datetime range, epoch milliseconds, both inclusive. */
  fromMs?: number;
  toMs?: number;
  /** Duration (document.audiosecs) range in seconds, both inclusive. */
  durationMin?: number;
  durationMax?: number;
  /** Exact (case-sensitive) filters on document.model, document.source, document.requestid. */
  model?: string;
  filename?: string;
  requestid?: string;
  /** streamtags.metadata[field] equals value, compared as text (`metaText`). */
  meta: Record<string, string>;
  /**
   * Call analytics (src/search/analytics-fields.ts): any of these categories; an utterance with any of
   * these sentiment labels (all five: any labelled utterance, i.e. the call was analysed); overtalk seconds range.
   */
  categories?: string[];
  sentiment?: string[];
  overtalkMin?: number;
  overtalkMax?: number;
  /** Calls where a word of any of these kinds was redacted (or marked by scrubtext=tag). */
  redacted?: RedactKind[];
  offset: number;
  size: number;
  sort: SortKey;
  sortdir: SortDir;
  /** The search's CPU budget (budget.ts), set by the route: backends report their matching work to it and pace their loops. */
  budget?: CpuBudget;
}

/** One matched occurrence: the channel, the time span of the matched words, and a short snippet. */
export interface Hit {
  channel: number;
  /** The speaker of the hit's first word, when the transcript is diarized. */
  speaker?: string;
  /** The role of the hit's first word (agent, customer), when the call's roles are known. */
  role?: string;
  start: number;
  end: number;
  text: string;
}

/** One row of `output=summary`. */
export interface SummaryRow {
  tid: string;
  filename: string;
  datetime: string;
  duration: number;
  nchannels: number;
  model: string;
  confidence?: number;
  score: number;
  metadata: Record<string, unknown>;
  /** The diarized transcript's speakers in order of first appearance (absent when not diarized). */
  speakers?: string[];
  hits: Hit[];
  /** The company's categories the call matches (absent when none). */
  categories?: string[];
}

export interface SearchResult {
  /** Every match in scope, regardless of offset/size. */
  total: number;
  rows: SummaryRow[];
}

/** `output=details` / zip: the stored document with its tid first. */
export type StoredTranscript = { tid: string } & TranscriptDocument;

export interface TranscriptIndex {
  /** Creates tables / indices; idempotent. Must be called once before anything else. */
  init(): Promise<void>;
  /** Adds or replaces (by tid) the given transcripts. Visible to searches once the promise resolves. */
  index(docs: readonly IndexedTranscript[]): Promise<void>;
  /** Deletes those of `tids` that lie in scope; returns how many were deleted. */
  delete(scope: SearchScope, tids: readonly string[]): Promise<number>;
  /** Number of matches (offset/size ignored). */
  count(scope: SearchScope, query: SearchQuery): Promise<number>;
  /** Sorted, paged summary rows with hits, and the total. */
  search(scope: SearchScope, query: SearchQuery): Promise<SearchResult>;
  /** Sorted, paged full documents (same order and page as `search`). */
  details(scope: SearchScope, query: SearchQuery): Promise<StoredTranscript[]>;
  close(): Promise<void>;
  /**
   * Privacy (issue 17): makes sure nothing deleted or replaced so far lingers in the index's storage
   * (old words of a transcript re-indexed redacted by `voxdex redact`). SQLite: merges the full-text
   * index, VACUUMs with secure_delete on and truncates the WAL; Elasticsearch: flushes and force-merges
   * the deleted documents away. Slow on a big index: for once after a bulk rewrite, not per request.
   */
  purgeDeleted(): Promise<void>;
  /** Category backfill (src/analytics/backfill.ts): a company's transcripts after `cursor`, in a stable order. */
  categoryScan(company: string, cursor: string | undefined, limit: number): Promise<CategoryScanPage>;
  /** Replaces the category lists of these transcripts (by tid, within the company). */
  setCategories(company: string, updates: ReadonlyArray<{ tid: string; categories: string[] }>): Promise<void>;
  /** Number of the company's transcripts in each category. */
  categoryCounts(company: string): Promise<Record<string, number>>;
  /**
   * Dashboard figures (src/search/aggregate.ts) over the transcripts matching `query` (its paging and
   * sort ignored; `speaker` is not supported here), computed by the index itself: totals, per day and
   * per group.
   */
  aggregate(scope: AggregateScope, query: SearchQuery, request: AggregateRequest): Promise<Aggregates>;
  /**
   * Where the search route has searches answered when not inline on this index (search-answer.ts):
   * the SQLite index's read thread. Absent or undefined: inline.
   */
  searchAnswers?(): SearchAnswers | undefined;
}

/** How to group an aggregation besides by day: by organization, by folder (`org/folder`) or by a metadata field's value. */
export type GroupBy = { kind: 'org' } | { kind: 'folder' } | { kind: 'meta'; field: string };

export interface AggregateRequest {
  /** Days are counted in this zone: its offset from UTC in minutes (+60 for UTC+01:00). */
  tzOffsetMin: number;
  by?: GroupBy;
}

/**
 * The figures of a set of calls. Every share has its own denominator: sentiment over the calls that
 * were analysed for sentiment (they have a labelled utterance), overtalk and silence over the calls
 * that have metrics, categories over all calls.
 */
export interface Figures {
  calls: number;
  sentiment: {
    analysed: number;
    /** Calls with a `Negative` or `Mostly Negative` utterance. */
    negative: number;
    /** Calls with an utterance of each label (a call counts under each label it has). */
    labels: Record<string, number>;
  };
  metrics: {
    analysed: number;
    /** Calls with more than 0 s of overtalk. */
    overtalkCalls: number;
    /** Seconds summed over the calls, rounded to 0.01. */
    overtalkSecs: number;
    silenceSecs: number;
  };
  /** Calls in each category (categories without calls are absent). */
  categories: Record<string, number>;
}

export interface Aggregates {
  total: Figures;
  /** Days with calls, in order: `YYYY-MM-DD` in the requested zone. */
  days: Array<{ day: string } & Figures>;
  /** With `by`: the groups with most calls (at most MAX_GROUPS, by calls, then key); `key` null: calls without a value. */
  groups?: Array<{ key: string | null } & Figures>;
  /** Calls in groups beyond MAX_GROUPS. */
  otherGroupsCalls?: number;
}

export const MAX_GROUPS = 100;

/** One page of a category scan: per transcript its org, words per channel, speakers (when any) and current categories. */
export interface CategoryScanPage {
  items: Array<{ tid: string; org: string; words: ChannelWords[]; categories: string[]; document?: () => Promise<TranscriptDocument> }>;
  /** Pass back for the next page; absent after the last. */
  next?: string;
}

export const DEFAULT_SIZE = 100;
export const MAX_SIZE = 1000;

/** A query with every option at its default; spread over it in tests and callers. */
export function defaultQuery(overrides: Partial<SearchQuery> = {}): SearchQuery {
  return { meta: {}, offset: 0, size: DEFAULT_SIZE, sort: 'datetime', sortdir: 'desc', ...overrides };
}
