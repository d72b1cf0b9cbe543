/**
 * The answer to one search (count, summary, details or zip), computed and rendered to bytes, and the
 * dashboard's figures (/analytics), in one place: inline for an index that does its work elsewhere (Elasticsearch), or on the SQLite index's
 * read thread (search-thread.ts), so that neither the statements, the scoring, the JSON nor the zip's
 * assembly run on the event loop (docs/search.md, "Off the event loop").
 */
import type { Readable } from 'node:stream';
import { searchBudget } from './budget.js';
import { renderCount, renderDetails, renderSummaryCsv, renderSummaryJson, renderZip, type Rendered } from './render.js';
import { parseSearchOptions, type RawOptions } from './search-options.js';
import { parseAggregateOptions } from './aggregate-options.js';
import type { Aggregates, AggregateScope, SearchScope, TranscriptIndex } from './transcript-index.js';

/** One search as the route hands it over: structured-clonable, so that it can cross to a thread. */
export interface SearchRequest {
  scope: SearchScope;
  /** The options as received (they are parsed again where the search runs; the route has validated them). */
  raw: RawOptions;
  accept: string | undefined;
  /** CPU budget, ms (VOXDEX_SEARCH_BUDGET_MS). */
  budgetMs: number;
}

/** The answer, rendered: what the route writes. */
export interface SearchAnswer {
  status: number;
  type: string;
  /** `attachment; filename=…` for a zip. */
  disposition?: string;
  /** X-Total-Count, where the output has one. */
  total?: number;
  body: Uint8Array;
  /** For the request's log line (no transcript text). */
  log: { total: number; rows?: number };
}

/** The dashboard's figures (/analytics): the period asked for, and the one before when asked. */
export interface AggregateAnswer {
  current: Aggregates;
  previous?: Aggregates;
}

/** Where searches are answered: inline (`inlineAnswers`) or on a thread (search-thread.ts). */
export interface SearchAnswers {
  answer(request: SearchRequest): Promise<SearchAnswer>;
  /** The /analytics figures of `raw` (options as received; the route has validated them). */
  aggregate(scope: AggregateScope, raw: RawOptions): Promise<AggregateAnswer>;
  close(): Promise<void>;
}

export function inlineAnswers(index: Pick<TranscriptIndex, 'count' | 'search' | 'details' | 'aggregate'>): SearchAnswers {
  return { answer: (r) => answerSearch(index, r), aggregate: (scope, raw) => answerAggregate(index, scope, raw), close: async () => {} };
}

export async function answerAggregate(index: Pick<TranscriptIndex, 'aggregate'>, scope: AggregateScope, raw: RawOptions): Promise<AggregateAnswer> {
  const opts = parseAggregateOptions(raw);
  const [current, previous] = await Promise.all([
    index.aggregate(scope, opts.query, opts.request),
    opts.previous ? index.aggregate(scope, { ...opts.query, ...opts.previous }, { tzOffsetMin: opts.request.tzOffsetMin }) : undefined,
  ]);
  return previous ? { current, previous } : { current };
}

export async function answerSearch(index: Pick<TranscriptIndex, 'count' | 'search' | 'details'>, r: SearchRequest): Promise<SearchAnswer> {
  const opts = parseSearchOptions(r.raw, r.accept);
  // Over its CPU budget a search is refused (QUERY_TOO_EXPENSIVE), and it lets other work in as it goes.
  const query = { ...opts.query, budget: searchBudget(r.budgetMs) };
  const rendered = (x: Rendered, log: SearchAnswer['log'], total?: number): SearchAnswer => ({
    status: x.status,
    type: x.type,
    body: Buffer.from(x.body),
    log,
    ...(total === undefined ? {} : { total }),
  });
  switch (opts.output) {
    case 'count': {
      const n = await index.count(r.scope, query);
      return rendered(renderCount(n, r.accept), { total: n });
    }
    case 'summary': {
      const { total, rows } = await index.search(r.scope, query);
      const x = opts.format === 'csv' ? renderSummaryCsv(rows, opts.fields, r.accept) : renderSummaryJson(rows, opts.fields, r.accept);
      return rendered(x, { total, rows: rows.length }, total);
    }
    case 'details': {
      const [total, docs] = await Promise.all([index.count(r.scope, query), index.details(r.scope, query)]);
      return rendered(renderDetails(docs, r.accept), { total, rows: docs.length }, total);
    }
    case 'zip': {
      const [total, docs] = await Promise.all([index.count(r.scope, query), index.details(r.scope, query)]);
      const body = await collect(renderZip(docs, opts.zipfiles));
      return { status: 200, type: 'application/zip', disposition: 'attachment; filename="search.zip"', total, body, log: { total, rows: docs.length } };
    }
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
