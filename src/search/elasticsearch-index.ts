/**
 * The transcript index on Elasticsearch 8.x through the official client. Elasticsearch finds, filters,
 * counts, sorts and pages; hits, snippets and scores come from match.ts over the stored document, so
 * results equal the embedded SQLite store's (one conformance suite runs against both). The mapping and
 * the query translation live in elasticsearch-mapping.ts; docs/elasticsearch.md has the choices.
 */
import { Client, errors, type estypes } from '@elastic/elasticsearch';
import type { Config } from '../config.js';
import type { TranscriptDocument } from '../types.js';
import { voxdexError, VoxdexError } from '../errors.js';
import { mapPaced } from './budget.js';
import { byPart, findHits, queryWords, speakerMatches, speakersOf, type ChannelWords } from './match.js';
import { withCategories } from './analytics-fields.js';
import {
  ANALYTICS_PROPERTIES,
  decodeRow,
  type EsTranscript,
  INDEX_SETTINGS,
  MAPPING_VERSION,
  MAPPINGS,
  searchQuery,
  searchSort,
  toEsTranscript,
  WORD_STEMS,
} from './elasticsearch-mapping.js';
import { aggregateBody, parseAggregations } from './elasticsearch-aggregate.js';
import type {
  AggregateRequest,
  Aggregates,
  AggregateScope,
  CategoryScanPage,
  IndexedTranscript,
  SearchQuery,
  SearchResult,
  SearchScope,
  StoredTranscript,
  SummaryRow,
  TranscriptIndex,
} from './transcript-index.js';

interface ElasticsearchIndexOptions {
  /** Elasticsearch URL, e.g. http://127.0.0.1:9200 (VOXDEX_ES_URL). Ignored when `client` is given. */
  node?: string;
  /** A client to share; the index does not close it. */
  client?: Client;
  /** The index name (`<VOXDEX_ES_INDEX_PREFIX>-transcripts` from config). */
  index: string;
  /** Transcripts per bulk request (default 500). */
  bulkSize?: number;
  /** Per-request timeout in ms (default 30 000). */
  requestTimeoutMs?: number;
  /** Matches fetched per request when sorting by score, which reads every match (default 1000). */
  scanPageSize?: number;
}

/** Characters of JSON per bulk request, well under Elasticsearch's default http.max_content_length (100 MB). */
const BULK_BYTES = 16 * 1024 * 1024;
/** Elasticsearch index names: lowercase, no \ / * ? " < > | space , #, not starting with - _ +. */
const INDEX_NAME = /^[a-z0-9][a-z0-9._-]{0,200}$/;

function transcriptIndexName(prefix: string): string {
  return `${prefix}-transcripts`;
}

/** The index the service uses when VOXDEX_ES_URL is set. */
export function elasticsearchIndexFromConfig(config: Pick<Config, 'esUrl' | 'esIndexPrefix'>): ElasticsearchIndex {
  if (!config.esUrl) throw voxdexError('BAD_ARGUMENT', 'VOXDEX_ES_URL is not set; the Elasticsearch index needs its URL.');
  return new ElasticsearchIndex({ node: config.esUrl, index: transcriptIndexName(config.esIndexPrefix) });
}

type Source = Partial<EsTranscript> & Pick<EsTranscript, 'tid'>;
type Row = Pick<EsTranscript, 'tid' | 'datetime' | 'duration' | 'nchannels' | 'model' | 'filename' | 'confidence' | 'row' | 'categories'>;
/** What summary rows fetch (the full document only for details). */
export const ROW_SOURCE: Array<keyof Row> = ['tid', 'datetime', 'duration', 'nchannels', 'model', 'filename', 'confidence', 'row', 'categories'];

/** How long purgeDeleted waits for the retention leases to let go of the deleted documents. */
const PURGE_WAIT_MS = 120_000;

export class ElasticsearchIndex implements TranscriptIndex {
  readonly indexName: string;
  readonly #client: Client;
  readonly #ownsClient: boolean;
  readonly #bulkSize: number;
  readonly #scanPage: number;
  readonly #where: string;

  constructor(options: ElasticsearchIndexOptions) {
    if (!INDEX_NAME.test(options.index)) {
      throw voxdexError(
        'BAD_ARGUMENT',
        `Expected an Elasticsearch index name (lowercase letters, digits, . _ -) but received ${JSON.stringify(options.index)}; check VOXDEX_ES_INDEX_PREFIX.`,
      );
    }
    if (!options.client && !options.node) throw voxdexError('BAD_ARGUMENT', 'Elasticsearch index needs `node` (a URL) or `client`.');
    this.indexName = options.index;
    this.#ownsClient = !options.client;
    this.#client = options.client ?? new Client({ node: options.node!, requestTimeout: options.requestTimeoutMs ?? 30_000, maxRetries: 2 });
    this.#bulkSize = options.bulkSize ?? 500;
    this.#scanPage = options.scanPageSize ?? 1000;
    this.#where = `Elasticsearch index ${options.index}${options.node ? ` at ${withoutCredentials(options.node)}` : ''}`;
  }

  /** The client, for callers that send their own requests (the benchmark's direct peer). */
  get client(): Client {
    return this.#client;
  }

  async init(): Promise<void> {
    const existing = await this.#call(() => this.#client.indices.exists({ index: this.indexName }));
    if (!existing) {
      try {
        await this.#client.indices.create({ index: this.indexName, settings: INDEX_SETTINGS, mappings: MAPPINGS });
        return;
      } catch (err) {
        // Another process created it first: fall through and check its mapping.
        if (errorType(err) !== 'resource_already_exists_exception') throw this.#translate(err);
      }
    }
    const mapping = await this.#call(() => this.#client.indices.getMapping({ index: this.indexName }));
    const version = Object.values(mapping)[0]?.mappings._meta?.voxdex_mapping_version;
    if (version === 1) {
      await this.#migrateFrom1();
    } else if (version !== MAPPING_VERSION) {
      throw voxdexError(
        'INDEX_UNAVAILABLE',
        `${this.#where} has mapping version ${String(version)}, this voxdex needs ${MAPPING_VERSION}; reindex into a new VOXDEX_ES_INDEX_PREFIX (docs/elasticsearch.md).`,
      );
    }
    await this.#call(() => this.#client.indices.putMapping({ index: this.indexName, properties: ANALYTICS_PROPERTIES }));
  }

  /**
   * Mapping 1 → 2: adds `words.stem` and re-indexes every transcript from its stored `doc` (each only if
   * unchanged since read), then records version 2. Idempotent: a node stopped half-way, or two nodes
   * starting together, only repeat work.
   */
  async #migrateFrom1(): Promise<void> {
    await this.#call(() =>
      this.#client.indices.putMapping({
        index: this.indexName,
        properties: { ...ANALYTICS_PROPERTIES, place: { type: 'keyword' }, words: { type: 'nested', properties: { stem: WORD_STEMS } } },
      }),
    );
    type Stored = Pick<EsTranscript, 'tid' | 'company' | 'org' | 'folder' | 'datetime' | 'indexedAt' | 'doc' | 'categories'>;
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await this.#call(() =>
        this.#client.search<Stored>({
          index: this.indexName,
          sort: [{ tid: { order: 'asc' } }],
          size: this.#bulkSize,
          search_after: after,
          seq_no_primary_term: true,
          _source: ['tid', 'company', 'org', 'folder', 'datetime', 'indexedAt', 'doc', 'categories'],
        }),
      );
      const operations = res.hits.hits.flatMap((h) => {
        const s = h._source!;
        const es = toEsTranscript(
          { tid: s.tid, company: s.company, org: s.org, folder: s.folder, datetime: s.datetime, indexedAt: s.indexedAt, document: JSON.parse(s.doc) as TranscriptDocument },
          Date.parse(s.datetime),
          s.indexedAt,
        );
        es.categories = [...(s.categories ?? [])];
        return [{ index: { _index: this.indexName, _id: s.tid, if_seq_no: h._seq_no!, if_primary_term: h._primary_term! } }, es];
      });
      if (operations.length > 0) await this.#call(() => this.#client.bulk({ operations: operations as estypes.BulkOperationContainer[], refresh: false }));
      if (res.hits.hits.length < this.#bulkSize) break;
      after = res.hits.hits.at(-1)!.sort;
    }
    await this.#call(() => this.#client.indices.refresh({ index: this.indexName }));
    await this.#call(() => this.#client.indices.putMapping({ index: this.indexName, _meta: { voxdex_mapping_version: MAPPING_VERSION } }));
  }

  async index(docs: readonly IndexedTranscript[]): Promise<void> {
    if (docs.length === 0) return;
    const now = new Date().toISOString();
    // Validate everything before writing anything, as the embedded store does in one transaction.
    const prepared = docs.map((t) => {
      const dt = Date.parse(t.datetime);
      if (!Number.isFinite(dt)) throw voxdexError('BAD_ARGUMENT', `Transcript ${t.tid} has an invalid datetime ${JSON.stringify(t.datetime)}`);
      return toEsTranscript(t, dt, now);
    });
    // Bulk requests of at most bulkSize transcripts and about BULK_BYTES (long calls make big documents).
    let batch: EsTranscript[] = [];
    let bytes = 0;
    for (const [i, doc] of prepared.entries()) {
      batch.push(doc);
      bytes += doc.doc.length + doc.row.length * 2;
      if (batch.length >= this.#bulkSize || bytes >= BULK_BYTES || i === prepared.length - 1) {
        await this.#bulk(batch);
        batch = [];
        bytes = 0;
      }
    }
    // Visible to the next search once this resolves.
    await this.#call(() => this.#client.indices.refresh({ index: this.indexName }));
  }

  async #bulk(docs: EsTranscript[]): Promise<void> {
    const operations = docs.flatMap((doc) => [{ index: { _index: this.indexName, _id: doc.tid } }, doc]);
    const res = await this.#call(() => this.#client.bulk({ operations, refresh: false }));
    if (!res.errors) return;
    const failed = res.items.find((item) => item.index?.error)?.index;
    const status = failed?.status ?? 500;
    throw voxdexError(
      status === 429 || status >= 500 ? 'INDEX_UNAVAILABLE' : 'INTERNAL',
      `${this.#where} rejected transcript ${failed?._id}: ${failed?.error?.type}: ${failed?.error?.reason}`,
    );
  }

  async purgeDeleted(): Promise<void> {
    // A flush ends the translog generations holding the old operations; the merge drops deleted documents,
    // but only those no retention lease still holds (soft deletes): the shard copies' peer-recovery leases
    // move past the last operation within about 30 s (index.soft_deletes.retention_lease.sync_interval),
    // so wait for that first (checked on a real server: a merge right after a replace keeps the old document).
    await this.#call(() => this.#client.indices.flush({ index: this.indexName }));
    const shards = async () => {
      const stats = await this.#call(() => this.#client.indices.stats({ index: this.indexName, level: 'shards' }));
      return Object.values(stats.indices?.[this.indexName]?.shards ?? {}).flat() as Array<{
        seq_no?: { max_seq_no?: number };
        retention_leases?: { leases?: Array<{ retaining_seq_no: number }> };
      }>;
    };
    const last = Math.max(-1, ...(await shards()).map((s) => s.seq_no?.max_seq_no ?? -1));
    for (const until = Date.now() + PURGE_WAIT_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 1000))) {
      const retained = Math.min(Infinity, ...(await shards()).flatMap((s) => (s.retention_leases?.leases ?? []).map((l) => l.retaining_seq_no)));
      if (retained > last) break;
    }
    await this.#call(() => this.#client.indices.forcemerge({ index: this.indexName, only_expunge_deletes: true }));
  }

  async delete(scope: SearchScope, tids: readonly string[]): Promise<number> {
    const ids = [...new Set(tids)];
    if (ids.length === 0) return 0;
    const filter: estypes.QueryDslQueryContainer[] = [{ term: { company: scope.company } }, { term: { org: scope.org } }, { ids: { values: ids } }];
    if (scope.folder !== undefined) filter.push({ term: { folder: scope.folder } });
    // _delete_by_query lives in a module the minimal distribution lacks: find those in scope, then delete
    // each only if unchanged since (a transcript re-indexed elsewhere meanwhile is left alone).
    const found = await this.#call(() =>
      this.#client.search({ index: this.indexName, query: { bool: { filter } }, size: ids.length, _source: false, seq_no_primary_term: true }),
    );
    if (found.hits.hits.length === 0) return 0;
    const operations = found.hits.hits.map((h) => ({
      delete: { _index: this.indexName, _id: h._id!, if_seq_no: h._seq_no!, if_primary_term: h._primary_term! },
    }));
    const res = await this.#call(() => this.#client.bulk({ operations, refresh: true }));
    return res.items.filter((item) => item.delete?.result === 'deleted').length;
  }

  async count(scope: SearchScope, query: SearchQuery): Promise<number> {
    if (byPart(query)) return (await this.#scan(searchQuery(scope, query), query)).length;
    const res = await this.#call(() => this.#client.count({ index: this.indexName, query: searchQuery(scope, query) }));
    return res.count;
  }

  async search(scope: SearchScope, query: SearchQuery): Promise<SearchResult> {
    const { total, page } = await this.#page(scope, query, ROW_SOURCE);
    const rows = await mapPaced(page, query.budget, ({ source, words }): SummaryRow => {
      const s = source as Row;
      const data = decodeRow(s.row);
      const all = words ?? data.words;
      const { score, hits } = findHits(query.terms, queryWords(all, query), query.channel, query.budget);
      const speakers = speakersOf(all);
      const row: SummaryRow = {
        tid: s.tid,
        filename: s.filename,
        datetime: s.datetime,
        duration: s.duration,
        nchannels: s.nchannels,
        model: s.model,
        score,
        metadata: data.metadata,
        hits,
      };
      if (speakers.length > 0) row.speakers = speakers;
      if (s.confidence !== undefined && s.confidence !== null) row.confidence = s.confidence;
      if (s.categories && s.categories.length > 0) row.categories = [...s.categories].sort();
      return row;
    });
    return { total, rows };
  }

  async details(scope: SearchScope, query: SearchQuery): Promise<StoredTranscript[]> {
    const { page } = await this.#page(scope, query, ['tid', 'doc', 'categories']);
    return page.map(({ source }) => ({ tid: source.tid, ...withCategories(JSON.parse(source.doc!) as TranscriptDocument, [...(source.categories ?? [])].sort()) }));
  }

  async categoryScan(company: string, cursor: string | undefined, limit: number): Promise<CategoryScanPage> {
    const res = await this.#call(() =>
      this.#client.search<Pick<EsTranscript, 'tid' | 'org' | 'row' | 'categories'>>({
        index: this.indexName,
        query: { bool: { filter: [{ term: { company } }] } },
        sort: [{ tid: { order: 'asc' } }],
        size: limit,
        search_after: cursor === undefined ? undefined : [cursor],
        _source: ['tid', 'org', 'row', 'categories'],
      }),
    );
    const items = res.hits.hits.map((h) => {
      const s = h._source!;
      return {
        tid: s.tid,
        org: s.org,
        words: decodeRow(s.row).words,
        categories: [...(s.categories ?? [])].sort(),
        document: async () => {
          const got = await this.#call(() => this.#client.get<Pick<EsTranscript, 'doc'>>({ index: this.indexName, id: s.tid, _source: ['doc'] }));
          return JSON.parse(got._source!.doc) as TranscriptDocument;
        },
      };
    });
    return items.length < limit ? { items } : { items, next: items.at(-1)!.tid };
  }

  /**
   * Re-indexes each transcript from its stored `doc` with the new categories (a partial update would
   * lose `words.text`, which _source excludes), only if unchanged since it was read: one re-indexed
   * meanwhile got its categories at indexing and is left alone.
   */
  async setCategories(company: string, updates: ReadonlyArray<{ tid: string; categories: string[] }>): Promise<void> {
    if (updates.length === 0) return;
    const wanted = new Map(updates.map((u) => [u.tid, u.categories]));
    type Stored = Pick<EsTranscript, 'tid' | 'company' | 'org' | 'folder' | 'datetime' | 'indexedAt' | 'doc'>;
    const got = await this.#call(() =>
      this.#client.mget<Stored>({ index: this.indexName, ids: [...wanted.keys()], _source: ['tid', 'company', 'org', 'folder', 'datetime', 'indexedAt', 'doc'] }),
    );
    const operations: unknown[] = [];
    for (const d of got.docs) {
      if (!('found' in d) || !d.found || !d._source || d._source.company !== company) continue;
      const s = d._source;
      const es = toEsTranscript(
        { tid: s.tid, company: s.company, org: s.org, folder: s.folder, datetime: s.datetime, indexedAt: s.indexedAt, document: JSON.parse(s.doc) as TranscriptDocument },
        Date.parse(s.datetime),
        s.indexedAt,
      );
      es.categories = [...wanted.get(s.tid)!];
      operations.push({ index: { _index: this.indexName, _id: s.tid, if_seq_no: d._seq_no, if_primary_term: d._primary_term } }, es);
    }
    if (operations.length === 0) return;
    const res = await this.#call(() => this.#client.bulk({ operations: operations as estypes.BulkOperationContainer[], refresh: true }));
    const failed = res.items.find((item) => item.index?.error && item.index.status !== 409)?.index;
    if (failed) throw voxdexError('INDEX_UNAVAILABLE', `${this.#where} rejected a category update of ${failed._id}: ${failed.error?.type}: ${failed.error?.reason}`);
  }

  async categoryCounts(company: string): Promise<Record<string, number>> {
    const res = await this.#call(() =>
      this.#client.search({
        index: this.indexName,
        size: 0,
        query: { bool: { filter: [{ term: { company } }] } },
        aggs: { categories: { terms: { field: 'categories', size: 10_000 } } },
      }),
    );
    const buckets = (res.aggregations?.categories as estypes.AggregationsStringTermsAggregate | undefined)?.buckets;
    const list = Array.isArray(buckets) ? buckets : [];
    return Object.fromEntries(list.map((b) => [String(b.key), b.doc_count]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)));
  }

  async aggregate(scope: AggregateScope, query: SearchQuery, request: AggregateRequest): Promise<Aggregates> {
    const res = await this.#call(() =>
      this.#client.search({ index: this.indexName, size: 0, track_total_hits: false, query: searchQuery(scope, query), aggs: aggregateBody(request) }),
    );
    return parseAggregations(res.aggregations as Record<string, unknown> | undefined, request);
  }

  async close(): Promise<void> {
    if (this.#ownsClient) await this.#client.close();
  }

  /** One page in the requested order, and the total. Sorting by score reads every match (see docs). */
  async #page(
    scope: SearchScope,
    q: SearchQuery,
    fields: Array<keyof EsTranscript>,
  ): Promise<{ total: number; page: Array<{ source: Source; words?: ChannelWords[] }> }> {
    const query = searchQuery(scope, q);
    if ((q.sort === 'score' && q.terms) || byPart(q)) return this.#pageScanned(query, q, fields);
    const res = await this.#searchCall(q, (timeout) =>
      this.#client.search<Source>({
        index: this.indexName,
        query,
        sort: searchSort(q),
        from: q.offset,
        size: q.size,
        track_total_hits: true,
        _source: fields,
        timeout,
      }),
    );
    return { total: totalOf(res.hits.total), page: res.hits.hits.map((h) => ({ source: h._source! })) };
  }

  /**
   * Every match read in order (by tid for a score sort, else the requested sort), scored in the app and,
   * with `speaker`, kept only when that speaker's words match: sorting by score and the speaker filter.
   */
  async #scan(query: estypes.QueryDslQueryContainer, q: SearchQuery): Promise<Array<{ tid: string; score: number; words: ChannelWords[] }>> {
    const scored: Array<{ tid: string; score: number; words: ChannelWords[] }> = [];
    const byScore = q.sort === 'score' && q.terms !== undefined;
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await this.#searchCall(q, (timeout) =>
        this.#client.search<Pick<EsTranscript, 'tid' | 'row'>>({
          index: this.indexName,
          query,
          sort: byScore ? [{ tid: { order: 'asc' } }] : searchSort(q),
          size: this.#scanPage,
          search_after: after,
          _source: ['tid', 'row'],
          timeout,
        }),
      );
      for (const h of res.hits.hits) {
        await q.budget?.pace();
        const { words } = decodeRow(h._source!.row);
        const mine = queryWords(words, q);
        if (byPart(q) && !speakerMatches(q, mine)) continue;
        scored.push({ tid: h._source!.tid, words, score: findHits(q.terms, mine, q.channel, q.budget).score });
      }
      if (res.hits.hits.length < this.#scanPage) break;
      after = res.hits.hits.at(-1)!.sort;
    }
    if (byScore) {
      const dir = q.sortdir === 'asc' ? 1 : -1;
      scored.sort((a, b) => dir * (a.score - b.score) || (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0));
    }
    return scored;
  }

  async #pageScanned(query: estypes.QueryDslQueryContainer, q: SearchQuery, fields: Array<keyof EsTranscript>) {
    const scored = await this.#scan(query, q);
    const slice = scored.slice(q.offset, q.offset + q.size);
    if (slice.length === 0) return { total: scored.length, page: [] };
    const res = await this.#call(() =>
      this.#client.search<Source>({
        index: this.indexName,
        query: { bool: { filter: [query, { ids: { values: slice.map((s) => s.tid) } }] } },
        size: slice.length,
        _source: fields,
      }),
    );
    const byTid = new Map(res.hits.hits.map((h) => [h._source!.tid, h._source!]));
    const page = slice.filter((s) => byTid.has(s.tid)).map((s) => ({ source: byTid.get(s.tid)!, words: s.words }));
    return { total: scored.length, page };
  }

  /**
   * A request made for a search, within its budget: Elasticsearch gets what is left of it as its
   * `timeout` (an answer it cut short is refused, never passed on as half an answer), and the request's
   * whole time — Elasticsearch's work and the client's reading of the answer — is charged to it.
   */
  async #searchCall<T extends { timed_out?: boolean }>(q: SearchQuery, fn: (timeout: string | undefined) => Promise<T>): Promise<T> {
    const budget = q.budget;
    budget?.pause();
    const t0 = performance.now();
    const res = await this.#call(() => fn(budget ? `${budget.remainingMs}ms` : undefined));
    if (res.timed_out) throw budget!.refusal(`did not finish in Elasticsearch within its budget of ${budget!.limitMs} ms (VOXDEX_SEARCH_BUDGET_MS)`);
    budget?.charge(performance.now() - t0);
    return res;
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.#translate(err);
    }
  }

  /** Client errors → the error table: unreachable / overloaded is retryable, a query ES refuses is the caller's. */
  #translate(err: unknown): VoxdexError {
    if (err instanceof VoxdexError) return err;
    if (err instanceof errors.ResponseError) {
      const status = err.statusCode ?? 500;
      const type = errorType(err);
      const reason = errorReason(err);
      if (type === 'index_not_found_exception') {
        return voxdexError('INDEX_UNAVAILABLE', `${this.#where} does not exist; call init() (the service does at start).`, err);
      }
      const text = `${type} ${reason}`;
      if (/Determinizing automaton|would require more than \d+ effort|too_complex_to_determinize/i.test(text)) {
        // Lucene's own bound on a wildcard's automaton (10,000 states of effort): refused at once, never run.
        return voxdexError('QUERY_TOO_EXPENSIVE', `A wildcard word is too complex for Elasticsearch (${reason}); use fewer * and ? in one word, and more letters between them.`, err);
      }
      if (/maxClauseCount|too_many_clauses|too many clauses|too_many_nested_clauses|too_complex/i.test(text)) {
        return voxdexError(
          'BAD_QUERY',
          `Invalid terms: a wildcard matches too many different words for Elasticsearch (${reason}); add letters to narrow the wildcard.`,
          err,
        );
      }
      if (/result window is too large/i.test(text)) {
        return voxdexError('BAD_ARGUMENT', `offset + size is beyond what Elasticsearch pages (${reason}); narrow the search instead.`, err);
      }
      if (status === 429 || status >= 500) return voxdexError('INDEX_UNAVAILABLE', `${this.#where} failed (${status} ${type}): ${reason}`, err);
      return voxdexError('INTERNAL', `${this.#where} rejected a request (${status} ${type}): ${reason}`, err);
    }
    if (err instanceof errors.ElasticsearchClientError) {
      return voxdexError('INDEX_UNAVAILABLE', `${this.#where} is unreachable (${err.name}: ${err.message}); check VOXDEX_ES_URL and that it is running.`, err);
    }
    return voxdexError('INTERNAL', `internal error talking to ${this.#where}: ${(err as Error)?.message ?? String(err)}`, err);
  }
}

/** The URL as errors may show it: no user name or password. */
function withoutCredentials(node: string): string {
  try {
    const u = new URL(node);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}

function totalOf(total: estypes.SearchTotalHits | number | undefined): number {
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

function errorType(err: unknown): string | undefined {
  const body = (err as { meta?: { body?: { error?: { type?: string } } } })?.meta?.body;
  return body?.error?.type;
}

function errorReason(err: unknown): string {
  const e = (err as { meta?: { body?: { error?: { reason?: string; root_cause?: Array<{ reason?: string }>; caused_by?: { reason?: string } } } } })
    ?.meta?.body?.error;
  return e?.root_cause?.[0]?.reason ?? e?.caused_by?.reason ?? e?.reason ?? (err as Error).message;
}
