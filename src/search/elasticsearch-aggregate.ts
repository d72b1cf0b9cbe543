/**
 * Dashboard aggregations in Elasticsearch (aggregate.ts): one search of size 0 whose aggregations
 * give, per day (date_histogram in the requested zone) and per group (terms on org, on `place` = org/folder, or on the field's `meta` keywords), the
 * figures the embedded store computes with GROUP BY: calls, calls analysed for sentiment and those
 * with a negative utterance, calls per label, calls with metrics, with overtalk and the summed
 * seconds, calls per category.
 */
import type { estypes } from '@elastic/elasticsearch';
import { emptyFigures, finishAggregates, NEGATIVE_LABELS } from './aggregate.js';
import { metaPair } from './elasticsearch-mapping.js';
import { MAX_GROUPS, type AggregateRequest, type Aggregates, type Figures, type GroupBy } from './transcript-index.js';

type Aggs = Record<string, estypes.AggregationsAggregationContainer>;
type Bucket = { doc_count: number; [name: string]: unknown };

const FIGURES: Aggs = {
  sent: { filter: { exists: { field: 'sentiments' } } },
  neg: { filter: { terms: { sentiments: [...NEGATIVE_LABELS] } } },
  labels: { terms: { field: 'sentiments', size: 10 } },
  met: {
    filter: { bool: { should: [{ exists: { field: 'overtalk' } }, { exists: { field: 'silence' } }], minimum_should_match: 1 } },
    aggs: { ot: { filter: { range: { overtalk: { gt: 0 } } } }, otsecs: { sum: { field: 'overtalk' } }, silsecs: { sum: { field: 'silence' } } },
  },
  cats: { terms: { field: 'categories', size: 1000 } },
};

const ORDER: estypes.AggregationsAggregateOrder = [{ _count: 'desc' }, { _key: 'asc' }];

/** `+01:00` for 60, `-05:30` for -330. */
function zoneOf(tzOffsetMin: number): string {
  const sign = tzOffsetMin < 0 ? '-' : '+';
  const m = Math.abs(tzOffsetMin);
  return `${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** The prefix of the `meta` keywords of one field (elasticsearch-mapping.ts metaPair). */
function metaPrefix(field: string): string {
  return metaPair(field, '');
}

/** A Lucene regular expression matching exactly `text` at the start. */
function literalRegex(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, (c) => (c.charCodeAt(0) < 128 ? `\\${c}` : c));
}

function groupAggs(by: GroupBy): Aggs {
  if (by.kind === 'org') return { groups: { terms: { field: 'org', size: MAX_GROUPS, order: ORDER }, aggs: FIGURES } };
  if (by.kind === 'folder') return { groups: { terms: { field: 'place', size: MAX_GROUPS, order: ORDER }, aggs: FIGURES } };
  const prefix = metaPrefix(by.field);
  return {
    groups: { terms: { field: 'meta', include: `${literalRegex(prefix)}.*`, size: MAX_GROUPS, order: ORDER }, aggs: FIGURES },
    none: { filter: { bool: { must_not: [{ prefix: { meta: prefix } }] } }, aggs: FIGURES },
  };
}

/** The aggregations of one request. */
export function aggregateBody(request: AggregateRequest): Aggs {
  return {
    days: {
      date_histogram: { field: 'dt', calendar_interval: '1d', time_zone: zoneOf(request.tzOffsetMin), min_doc_count: 1, format: 'yyyy-MM-dd' },
      aggs: FIGURES,
    },
    ...(request.by ? groupAggs(request.by) : {}),
  };
}

function buckets(agg: unknown): Bucket[] {
  const b = (agg as { buckets?: unknown } | undefined)?.buckets;
  return Array.isArray(b) ? (b as Bucket[]) : [];
}

function count(agg: unknown): number {
  return (agg as { doc_count?: number } | undefined)?.doc_count ?? 0;
}

function figuresOf(b: Bucket): Figures {
  const f = emptyFigures();
  f.calls = b.doc_count;
  f.sentiment.analysed = count(b.sent);
  f.sentiment.negative = count(b.neg);
  for (const l of buckets(b.labels)) f.sentiment.labels[String(l.key)] = l.doc_count;
  const met = b.met as Bucket & { ot: Bucket; otsecs: { value: number | null }; silsecs: { value: number | null } };
  f.metrics.analysed = met.doc_count;
  f.metrics.overtalkCalls = count(met.ot);
  f.metrics.overtalkSecs = met.otsecs.value ?? 0;
  f.metrics.silenceSecs = met.silsecs.value ?? 0;
  for (const c of buckets(b.cats)) f.categories[String(c.key)] = c.doc_count;
  return f;
}

/** The aggregations' answer → Aggregates, ordered and rounded as the embedded store's. */
export function parseAggregations(aggs: Record<string, unknown> | undefined, request: AggregateRequest): Aggregates {
  const days = new Map<string, Figures>();
  for (const b of buckets(aggs?.days)) if (b.doc_count > 0) days.set(String(b.key_as_string), figuresOf(b));
  if (!request.by) return finishAggregates(days, undefined);
  const groups = new Map<string | null, Figures>();
  const prefix = request.by.kind === 'meta' ? metaPrefix(request.by.field) : '';
  for (const b of buckets(aggs?.groups)) {
    const key = String(b.key).slice(prefix.length);
    groups.set(key, figuresOf(b));
  }
  const none = aggs?.none as Bucket | undefined;
  if (none && none.doc_count > 0) groups.set(null, figuresOf(none));
  const out = finishAggregates(days, groups);
  const other = (aggs?.groups as { sum_other_doc_count?: number } | undefined)?.sum_other_doc_count ?? 0;
  if (other > 0) out.otherGroupsCalls = other;
  return out;
}
