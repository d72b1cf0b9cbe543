/**
 * The options of `GET|POST /analytics/{CO}[/{ORG}[/{FOLDER}]]` (docs/analytics.md, "Dashboard
 * figures"): every search filter (the search's own parser validates them), plus `by` (group by `org`,
 * `folder` or `meta.<field>`), `tz` (the zone whose days the figures are counted in) and `compare`
 * (`previous`, the default: the same figures for the period of the same length just before; `none`).
 * Paging, sorting, output and `speaker` (checked in the app, not in the index) are not options here.
 */
import { voxdexError } from '../errors.js';
import { invalidParameter } from '../is.js';
import { parseSearchOptions, SEARCH_OPTION_NAMES, type RawOptions } from './search-options.js';
import type { AggregateRequest, GroupBy, SearchQuery } from './transcript-index.js';

const NOT_FILTERS = new Set(['output', 'json', 'csv', 'format', 'offset', 'size', 'sort', 'sortdir', 'fields', 'zipfiles', 'speaker']);
export const AGGREGATE_OPTION_NAMES = [...SEARCH_OPTION_NAMES.filter((n) => !NOT_FILTERS.has(n)), 'by', 'tz', 'compare'];

interface AggregateOptions {
  token: string | undefined;
  query: SearchQuery;
  request: AggregateRequest;
  /** The zone as given back (`+01:00`, `Z`). */
  tz: string;
  /** The period just before [fromMs, toMs], as long, when both are given and compare is not `none`. */
  previous?: { fromMs: number; toMs: number };
}

/** `Z`, `+01:00`, `-0530` → minutes east of UTC (−14:00 to +14:00). */
function parseZone(raw: string): number {
  if (raw === 'Z' || raw === 'UTC') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(raw.trim());
  const minutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : NaN;
  if (!m || Number(m[3]) > 59 || Math.abs(minutes) > 14 * 60) throw invalidParameter('tz', 'a UTC offset such as +01:00, -05:30 or Z', raw);
  return minutes;
}

function parseGroupBy(raw: string): GroupBy {
  if (raw === 'org' || raw === 'folder') return { kind: raw };
  if (raw.startsWith('meta.') && raw.length > 5 && raw.length <= 205) return { kind: 'meta', field: raw.slice(5) };
  throw invalidParameter('by', 'org, folder or meta.<field> (e.g. meta.agent)', raw);
}

export function parseAggregateOptions(raw: RawOptions): AggregateOptions {
  for (const name of Object.keys(raw)) {
    if (!AGGREGATE_OPTION_NAMES.includes(name) && !name.startsWith('meta.')) {
      throw voxdexError('UNKNOWN_PARAMETER', `Unknown option ${JSON.stringify(name)}; accepted: ${AGGREGATE_OPTION_NAMES.join(', ')}.`);
    }
  }
  const { by, tz, compare, ...filters } = raw;
  const { token, query } = parseSearchOptions(filters);
  const tzOffsetMin = tz === undefined ? 0 : parseZone(tz);
  const request: AggregateRequest = { tzOffsetMin, ...(by === undefined ? {} : { by: parseGroupBy(by) }) };
  if (compare !== undefined && compare !== 'previous' && compare !== 'none') throw invalidParameter('compare', 'previous or none', compare);
  const out: AggregateOptions = { token, query, request, tz: tz === undefined ? 'Z' : tz };
  if (compare !== 'none' && query.fromMs !== undefined && query.toMs !== undefined) {
    const length = query.toMs - query.fromMs + 1;
    out.previous = { fromMs: query.fromMs - length, toMs: query.fromMs - 1 };
  }
  return out;
}
