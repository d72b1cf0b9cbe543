/**
 * What voxdex stores in Elasticsearch and how a search becomes an Elasticsearch query.
 *
 * One ES document per transcript (_id = tid). Each channel's word sequence (match.ts `channelWords`,
 * already normalized) is one nested `words` object whose `text` is the normalized words joined by single
 * spaces and analyzed with the built-in `whitespace` analyzer: token position = word index in the
 * channel, so phrases (match_phrase / ordered span_near) and proximity (unordered span_near) stay inside
 * one channel, and AND / OR / NOT combine nested leaf queries at transcript level, as match.ts defines.
 * Filters are keyword / date / double fields; `meta.<field>=value` is one keyword per pair. The whole
 * document is kept in _source under `doc` as JSON text (not indexed), and beside it `row`: the metadata and
 * each channel's words and times, from which hits and scores are computed with match.ts `findHits`, exactly
 * as the SQLite backend does from its `words` table.
 */
import type { estypes } from '@elastic/elasticsearch';
import { type ChannelWords, channelWords, fromSpeakerRuns, metaText, speakerRuns, type SpeakerRuns } from './match.js';
import { isWildcard, type QueryNode } from './query.js';
import { matchesForms } from './match.js';
import { wordStem, wordStems } from './word-forms.js';
import { documentAnalytics } from './analytics-fields.js';
import type { AggregateScope, IndexedTranscript, SearchQuery } from './transcript-index.js';

/**
 * Bumped when the mapping changes incompatibly; stored in the index's `_meta`.
 * 2: `words.stem` (each channel's word stems, word-forms.ts) and `place`; an index of version 1 gains the fields and
 * has its transcripts re-indexed from their stored `doc` at init (elasticsearch-index.ts `migrate`).
 */
export const MAPPING_VERSION = 2;

/** Longest metadata text (characters) that `meta.<field>=value` can find; longer values are stored, not indexed. */
const MAX_META_CHARS = 8191;

export const INDEX_SETTINGS: estypes.IndicesIndexSettings = {
  number_of_shards: 1,
  // Stored documents are most of the index; DEFLATE/zstd instead of LZ4 roughly halves them.
  codec: 'best_compression',
  // Deep `offset` paging, as the embedded store allows; memory grows with offset + size only.
  max_result_window: 1_000_000,
};

/**
 * Call analytics (analytics-fields.ts): categories (changed by the backfill with partial updates),
 * the distinct utterance sentiment labels, overtalk and silence seconds. Added to mapping version 1
 * with a put-mapping at init, so an index created before gains them without a reindex.
 */
export const ANALYTICS_PROPERTIES: Record<string, estypes.MappingProperty> = {
  categories: { type: 'keyword' },
  sentiments: { type: 'keyword' },
  /** The kinds redacted (or marked) in the call: `redacted=`. */
  redacted: { type: 'keyword' },
  overtalk: { type: 'double' },
  silence: { type: 'double' },
};

export const WORD_STEMS: estypes.MappingProperty = { type: 'text', analyzer: 'whitespace', index_options: 'docs', norms: false };

export const MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  _meta: { voxdex_mapping_version: MAPPING_VERSION },
  // The word text is only for matching: hits are computed from `row`, so it is not stored twice.
  _source: { excludes: ['words.text', 'words.stem'] },
  properties: {
    tid: { type: 'keyword' },
    company: { type: 'keyword' },
    org: { type: 'keyword' },
    folder: { type: 'keyword' },
    /** `org/folder`: a folder's group key in dashboard aggregations (folder names repeat across orgs). */
    place: { type: 'keyword' },
    /** Call time as given (summary rows show it verbatim) … */
    datetime: { type: 'keyword', index: false, doc_values: false },
    /** … and as epoch milliseconds for range filters and sorting. */
    dt: { type: 'date', format: 'epoch_millis' },
    indexedAt: { type: 'date' },
    duration: { type: 'double' },
    nchannels: { type: 'integer' },
    model: { type: 'keyword' },
    filename: { type: 'keyword' },
    requestid: { type: 'keyword' },
    confidence: { type: 'double' },
    /** `${field.length}:${field}=${metaText(value)}` per metadata field: exact, no dotted-key ambiguity. */
    meta: { type: 'keyword', ignore_above: MAX_META_CHARS },
    words: {
      type: 'nested',
      properties: {
        channel: { type: 'integer' },
        text: { type: 'text', analyzer: 'whitespace', index_options: 'positions', norms: false },
        /** The stems of `text`'s words, computed by voxdex (a word typed without quotes is looked up here). */
        stem: WORD_STEMS,
      },
    },
    /** The transcript document as JSON text: stored, never parsed by Elasticsearch (cheaper to index and fetch). */
    doc: { type: 'keyword', index: false, doc_values: false },
    /** What a summary row needs besides the fields above (`encodeRow`), so searches need not fetch `doc`. */
    row: { type: 'keyword', index: false, doc_values: false },
    ...ANALYTICS_PROPERTIES,
  },
};

/** The ES document for one transcript (its _id is the tid). */
export interface EsTranscript {
  tid: string;
  company: string;
  org: string;
  folder: string;
  place: string;
  datetime: string;
  dt: number;
  indexedAt: string;
  duration: number;
  nchannels: number;
  model: string;
  filename: string;
  requestid: string;
  confidence?: number;
  meta: string[];
  words: Array<{ channel: number; text: string; stem: string }>;
  /** JSON.stringify(document). */
  doc: string;
  /** encodeRow(): metadata and per-channel words and times. */
  row: string;
  categories: string[];
  sentiments: string[];
  redacted: string[];
  overtalk?: number;
  silence?: number;
}

export function metaPair(field: string, text: string): string {
  return `${field.length}:${field}=${text}`;
}

/** Same fields and defaults as the SQLite backend's `transcripts` row. `dt` must be a valid epoch ms. */
export function toEsTranscript(t: IndexedTranscript, dt: number, now: string): EsTranscript {
  const d = t.document;
  const cws = channelWords(d);
  const analytics = documentAnalytics(d);
  const meta: string[] = [];
  for (const [field, value] of Object.entries(d.streamtags?.metadata ?? {})) {
    const text = metaText(value);
    if (text !== undefined) meta.push(metaPair(field, text));
  }
  const out: EsTranscript = {
    tid: t.tid,
    company: t.company,
    org: t.org,
    folder: t.folder,
    place: `${t.org}/${t.folder}`,
    datetime: t.datetime,
    dt,
    indexedAt: t.indexedAt ?? now,
    duration: d.audiosecs ?? 0,
    nchannels: d.nchannels ?? 0,
    model: d.model ?? '',
    filename: d.source ?? '',
    requestid: d.requestid ?? '',
    meta,
    words: cws.map((cw) => ({ channel: cw.channel, text: cw.norm.join(' '), stem: wordStems(cw.norm).join(' ') })),
    doc: JSON.stringify(d),
    row: encodeRow(d.streamtags?.metadata ?? {}, cws),
    categories: analytics.categories,
    sentiments: analytics.sentiments,
    redacted: analytics.redacted,
  };
  if (d.confidence !== undefined && d.confidence !== null) out.confidence = d.confidence;
  if (analytics.overtalk !== undefined) out.overtalk = analytics.overtalk;
  if (analytics.silence !== undefined) out.silence = analytics.silence;
  return out;
}

/**
 * Compact row data, cheap to decode for every summary row: `{m: metadata, c: [[channel, norm, words, times, speakers?, roles?]]}`
 * where `norm` is the normalized words joined by spaces; `words` the original words joined by spaces, ''
 * when they equal the normalized ones, or a JSON array when one contains a space; `times` base64 of
 * little-endian int32 milliseconds [start0, end0, start1, …]. Times are kept to the millisecond, as the
 * embedded store keeps them (times in seconds with ms precision), so both order equal-time hits alike;
 * `speakers` (diarized transcripts) the words' speakers as runs [[first word, speaker], …] (null when only roles
 * are known); `roles` (calls whose roles are known) the words' roles as runs.
 */
export function encodeRow(metadata: Record<string, unknown>, cws: readonly ChannelWords[]): string {
  return JSON.stringify({
    m: metadata,
    c: cws.map((cw) => {
      const times = Buffer.alloc(cw.starts.length * 8);
      cw.starts.forEach((st, i) => {
        times.writeInt32LE(Math.round(st * 1000), 8 * i);
        times.writeInt32LE(Math.round(cw.ends[i]! * 1000), 8 * i + 4);
      });
      const norm = cw.norm.join(' ');
      const joined = cw.words.join(' ');
      const words = joined === norm ? '' : cw.words.some((w) => w.includes(' ')) ? cw.words : joined;
      const row: unknown[] = [cw.channel, norm, words, times.toString('base64')];
      if (cw.speakers || cw.roles) row.push(cw.speakers ? speakerRuns(cw.speakers) : null);
      if (cw.roles) row.push(speakerRuns(cw.roles));
      return row;
    }),
  });
}

export function decodeRow(text: string): { metadata: Record<string, unknown>; words: ChannelWords[] } {
  const row = JSON.parse(text) as { m: Record<string, unknown>; c: Array<[number, string, string | string[], string, (SpeakerRuns | null)?, SpeakerRuns?]> };
  return { metadata: row.m, words: row.c.map(([channel, norm, words, times, runs, roleRuns]) => new StoredChannel(channel, norm, words, times, runs ?? undefined, roleRuns)) };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * One channel decoded from `row`: `norm` at once (every search scans it); the original words and the times
 * only when a hit needs them (most channels of most rows have none).
 */
class StoredChannel implements ChannelWords {
  readonly norm: string[];
  #words: string | string[];
  #times: string;
  #starts: number[] | undefined;
  #ends: number[] | undefined;
  readonly speakers?: (string | undefined)[];
  readonly roles?: (string | undefined)[];

  constructor(
    readonly channel: number,
    norm: string,
    words: string | string[],
    times: string,
    runs?: SpeakerRuns,
    roleRuns?: SpeakerRuns,
  ) {
    this.norm = norm === '' ? [] : norm.split(' ');
    this.#words = words;
    this.#times = times;
    if (runs) this.speakers = fromSpeakerRuns(runs, this.norm.length);
    if (roleRuns) this.roles = fromSpeakerRuns(roleRuns, this.norm.length);
  }

  get words(): string[] {
    if (typeof this.#words === 'string') this.#words = this.#words === '' ? this.norm : this.#words.split(' ');
    return this.#words;
  }

  get starts(): number[] {
    if (!this.#starts) this.#decodeTimes();
    return this.#starts!;
  }

  get ends(): number[] {
    if (!this.#ends) this.#decodeTimes();
    return this.#ends!;
  }

  #decodeTimes(): void {
    const bytes = Buffer.from(this.#times, 'base64');
    const n = bytes.length / 8;
    const starts = new Array<number>(n);
    const ends = new Array<number>(n);
    if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) {
      const t = new Int32Array(bytes.buffer, bytes.byteOffset, 2 * n);
      for (let i = 0; i < n; i++) {
        starts[i] = t[2 * i]! / 1000;
        ends[i] = t[2 * i + 1]! / 1000;
      }
    } else {
      for (let i = 0; i < n; i++) {
        starts[i] = bytes.readInt32LE(8 * i) / 1000;
        ends[i] = bytes.readInt32LE(8 * i + 4) / 1000;
      }
    }
    this.#starts = starts;
    this.#ends = ends;
  }
}

// ---------------------------------------------------------------- queries

const FIELD = 'words.text';
const STEM_FIELD = 'words.stem';

function clause(word: string): estypes.QueryDslSpanQuery {
  return isWildcard(word)
    ? { span_multi: { match: { wildcard: { [FIELD]: { value: word } } } } }
    : { span_term: { [FIELD]: word } };
}

/** One word / phrase / proximity leaf against one channel's text. */
function leafQuery(node: QueryNode): estypes.QueryDslQueryContainer {
  switch (node.type) {
    case 'word':
      if (matchesForms(node)) return { term: { [STEM_FIELD]: wordStem(node.word) } };
      return isWildcard(node.word) ? { wildcard: { [FIELD]: { value: node.word } } } : { term: { [FIELD]: node.word } };
    case 'phrase':
      if (!node.words.some(isWildcard)) return { match_phrase: { [FIELD]: { query: node.words.join(' '), slop: 0 } } };
      return { span_near: { clauses: node.words.map(clause), slop: 0, in_order: true } };
    case 'near':
      // match.ts: occurrences p1…pk (positions may coincide) with max − min − 1 ≤ distance. Lucene's
      // unordered span_near (overlap allowed): (max − min + 1) − k ≤ slop. Hence slop = distance + 2 − k,
      // which may be negative (accepted by Lucene).
      return { span_near: { clauses: node.words.map(clause), slop: node.distance + 2 - node.words.length, in_order: false } };
    default:
      throw new Error(`not a leaf: ${node.type}`);
  }
}

/** The terms AST as a filter: every leaf is a nested query, so it matches within one channel. */
function termsQuery(node: QueryNode, channel?: number): estypes.QueryDslQueryContainer {
  switch (node.type) {
    case 'and':
      return { bool: { filter: node.children.map((c) => termsQuery(c, channel)) } };
    case 'or':
      return { bool: { should: node.children.map((c) => termsQuery(c, channel)), minimum_should_match: 1 } };
    case 'not':
      return { bool: { must_not: [termsQuery(node.child, channel)] } };
    default: {
      const leaf = leafQuery(node);
      const inner: estypes.QueryDslQueryContainer =
        channel === undefined ? leaf : { bool: { filter: [{ term: { 'words.channel': channel } }, leaf] } };
      return { nested: { path: 'words', query: inner, score_mode: 'none' } };
    }
  }
}

/** Scope (tenancy: always), filters and terms as one non-scoring bool query. */
export function searchQuery(scope: AggregateScope, q: SearchQuery): estypes.QueryDslQueryContainer {
  const filter: estypes.QueryDslQueryContainer[] = [{ term: { company: scope.company } }];
  if (scope.org !== undefined) filter.push({ term: { org: scope.org } });
  if (scope.folder !== undefined) filter.push({ term: { folder: scope.folder } });
  if (q.fromMs !== undefined || q.toMs !== undefined) filter.push({ range: { dt: { gte: q.fromMs, lte: q.toMs } } });
  if (q.durationMin !== undefined || q.durationMax !== undefined) {
    filter.push({ range: { duration: { gte: q.durationMin, lte: q.durationMax } } });
  }
  if (q.model !== undefined) filter.push({ term: { model: q.model } });
  if (q.filename !== undefined) filter.push({ term: { filename: q.filename } });
  if (q.requestid !== undefined) filter.push({ term: { requestid: q.requestid } });
  for (const [field, value] of Object.entries(q.meta)) filter.push({ term: { meta: metaPair(field, value) } });
  if (q.categories) filter.push({ terms: { categories: q.categories } });
  if (q.sentiment !== undefined) filter.push({ terms: { sentiments: q.sentiment } });
  if (q.redacted) filter.push({ terms: { redacted: q.redacted } });
  if (q.overtalkMin !== undefined || q.overtalkMax !== undefined) filter.push({ range: { overtalk: { gte: q.overtalkMin, lte: q.overtalkMax } } });
  if (q.terms) filter.push(termsQuery(q.terms, q.channel));
  else if (q.channel !== undefined) filter.push({ range: { nchannels: { gt: q.channel } } });
  return { bool: { filter } };
}

const SORT_FIELD = { datetime: 'dt', duration: 'duration', filename: 'filename', confidence: 'confidence', overtalk: 'overtalk', silence: 'silence' } as const;

/** Sort for every key but `score` (computed in the app): missing values lowest, ties by tid ascending. */
export function searchSort(q: SearchQuery): estypes.SortCombinations[] {
  if (q.sort === 'score') return [{ tid: { order: 'asc' } }];
  const order = q.sortdir;
  return [{ [SORT_FIELD[q.sort]]: { order, missing: order === 'asc' ? '_first' : '_last' } }, { tid: { order: 'asc' } }];
}
