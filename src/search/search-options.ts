/**
 * The edge of search: GET query strings and POST JSON bodies (same option names, docs/search.md) are
 * turned into one flat `RawOptions` map and validated by ONE parser, so both give identical results.
 */
import { voxdexError } from '../errors.js';
import { invalidParameter, parseInteger, setOwn } from '../is.js';
import { ANALYTICS_OPTION_NAMES, parseAnalyticsOptions, REPEATABLE_OPTION } from './analytics-fields.js';
import { parseTerms } from './query.js';
import { DEFAULT_SIZE, MAX_SIZE, SORT_KEYS, type SearchQuery, type SortDir, type SortKey } from './transcript-index.js';

const OUTPUTS = ['count', 'summary', 'details', 'zip'] as const;
type SearchOutput = (typeof OUTPUTS)[number];
/** Summary columns in their stable order (CSV: `metadata` expands to `meta.<field>` columns, sorted). */
export const SUMMARY_FIELDS = ['tid', 'filename', 'datetime', 'duration', 'nchannels', 'model', 'confidence', 'score', 'metadata', 'speakers', 'hits', 'categories'] as const;
export type SummaryField = (typeof SUMMARY_FIELDS)[number];
const ZIP_FILES = ['json', 'text'] as const;
export type ZipFile = (typeof ZIP_FILES)[number];

export const SEARCH_OPTION_NAMES = [
  'token', 'output', 'json', 'csv', 'format', 'terms', 'channel', 'speaker', 'role', 'from', 'to', 'duration', 'model', 'filename',
  'requestid', 'meta.<field>', 'offset', 'size', 'sort', 'sortdir', 'fields', 'zipfiles', ...ANALYTICS_OPTION_NAMES,
] as const;
const DELETE_OPTION_NAMES = ['token', 'tid'] as const;

const MAX_OFFSET = 10_000_000;
const MAX_CHANNEL = 255;
/** What `metadata.speaker` holds (src/speakers/stage.ts): S<n>, C<channel>, C<channel>S<n>. */
const SPEAKER_LABEL = /^(S[1-9]\d{0,2}|C\d{1,3}(S[1-9]\d{0,2})?)$/;
const MAX_VALUE_LENGTH = 1000;

/** Options by name; a flag given without value (`?csv`) is ''. */
export type RawOptions = Record<string, string>;

interface SearchOptions {
  token: string | undefined;
  output: SearchOutput;
  /** Summary format: an explicit `json`/`csv` flag or `format`, else `text/csv` in Accept, else json. */
  format: 'json' | 'csv';
  query: SearchQuery;
  fields: SummaryField[];
  zipfiles: ZipFile[];
}

interface DeleteOptions {
  token: string | undefined;
  tids: string[];
}

/** A URL query string as RawOptions; a repeated name is an error. */
export function fromSearchParams(params: URLSearchParams): RawOptions {
  const out: RawOptions = {};
  for (const [name, value] of params) {
    if (name === REPEATABLE_OPTION && Object.hasOwn(out, name)) {
      out[name] += `,${value}`;
      continue;
    }
    if (Object.hasOwn(out, name)) throw voxdexError('BAD_ARGUMENT', `The option ${name} was given more than once; give it once.`);
    setOwn(out, name, value);
  }
  return out;
}

/**
 * A POST JSON body as RawOptions: strings as they are, numbers and booleans as text, `true`/`false`
 * for the json/csv flags, null as absent; `meta: {field: value}` is the same as `"meta.field": value`.
 */
export function fromJsonBody(body: unknown): RawOptions {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw voxdexError('BAD_ARGUMENT', 'Expected a JSON object of search options as the POST body.');
  }
  const out: RawOptions = {};
  const put = (name: string, value: unknown) => {
    if (value === null || value === undefined) {
      checkNames({ [name]: '' }, SEARCH_OPTION_NAMES); // absent, but still a name the API knows
      return;
    }
    if (Object.hasOwn(out, name)) throw voxdexError('BAD_ARGUMENT', `The option ${name} was given more than once; give it once.`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalidParameter(name, 'a string, number or boolean', JSON.stringify(value));
    }
    if (name === 'json' || name === 'csv') {
      if (value === false) return;
      setOwn(out, name, value === true ? '' : String(value));
    } else {
      setOwn(out, name, String(value));
    }
  };
  for (const [name, value] of Object.entries(body)) {
    if (name === 'meta' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [field, v] of Object.entries(value)) put(`meta.${field}`, v);
    } else {
      put(name, value);
    }
  }
  return out;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], def: T): T {
  if (raw === undefined) return def;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw invalidParameter(name, `one of ${allowed.join(', ')}`, raw);
}

function flag(raw: string | undefined): boolean {
  return raw !== undefined && raw !== 'false' && raw !== '0';
}

function text(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw === '' || raw.length > MAX_VALUE_LENGTH) throw invalidParameter(name, `a value of 1 to ${MAX_VALUE_LENGTH} characters`, raw);
  return raw;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** ISO 8601 → epoch ms. No zone: UTC. A date alone as `to` means the end of that day. */
export function parseIsoDate(name: string, raw: string, endOfDay = false): number {
  const m = ISO_DATE.exec(raw.trim());
  const fail = () => invalidParameter(name, 'an ISO 8601 date or date-time (2024-05-01 or 2024-05-01T13:45:00Z)', raw);
  if (!m) throw fail();
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  if (h === undefined) {
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d));
    if (new Date(ms).getUTCDate() !== Number(d)) throw fail();
    return endOfDay ? ms + 86_399_999 : ms;
  }
  const z = zone === undefined || zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${frac ? frac.slice(0, 4).padEnd(4, '0') : ''}${z}`);
  if (!Number.isFinite(ms) || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) throw fail();
  return ms;
}

function parseDuration(raw: string): { min?: number; max?: number } {
  const m = /^\s*(\d+(?:\.\d+)?)?\s*-\s*(\d+(?:\.\d+)?)?\s*$/.exec(raw);
  if (!m || (m[1] === undefined && m[2] === undefined)) throw invalidParameter('duration', 'MIN-MAX seconds (e.g. 30-120, 30- or -120)', raw);
  const min = m[1] === undefined ? undefined : Number(m[1]);
  const max = m[2] === undefined ? undefined : Number(m[2]);
  if (min !== undefined && max !== undefined && min > max) throw invalidParameter('duration', 'MIN not above MAX', raw);
  return { min, max };
}

/** `fields`: a comma list of columns, `-name` excludes; the result keeps the stable column order. */
export function parseFields(raw: string | undefined): SummaryField[] {
  if (raw === undefined) return [...SUMMARY_FIELDS];
  const items = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw invalidParameter('fields', `a comma list of ${SUMMARY_FIELDS.join(', ')} (-name excludes)`, raw);
  const include = new Set<string>();
  const exclude = new Set<string>();
  for (const item of items) {
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (!(SUMMARY_FIELDS as readonly string[]).includes(name)) {
      throw invalidParameter('fields', `column names among ${SUMMARY_FIELDS.join(', ')} (-name excludes)`, item);
    }
    (item.startsWith('-') ? exclude : include).add(name);
  }
  return SUMMARY_FIELDS.filter((f) => (include.size === 0 || include.has(f)) && !exclude.has(f));
}

function checkNames(raw: RawOptions, allowed: readonly string[]): void {
  for (const name of Object.keys(raw)) {
    if (name.startsWith('meta.') && allowed.includes('meta.<field>')) continue;
    if (!allowed.includes(name)) {
      throw voxdexError('UNKNOWN_PARAMETER', `Unknown option ${JSON.stringify(name)}; accepted: ${allowed.join(', ')}.`);
    }
  }
}

/** Validates search options. `accept` is the request's Accept header (for the summary format). */
export function parseSearchOptions(raw: RawOptions, accept = ''): SearchOptions {
  checkNames(raw, SEARCH_OPTION_NAMES);
  const output = oneOf('output', raw.output, OUTPUTS, 'summary');

  const explicit = new Set<'json' | 'csv'>();
  if (flag(raw.json)) explicit.add('json');
  if (flag(raw.csv)) explicit.add('csv');
  if (raw.format !== undefined) explicit.add(oneOf('format', raw.format, ['json', 'csv'] as const, 'json'));
  if (explicit.size > 1) throw voxdexError('BAD_ARGUMENT', 'Conflicting formats: give one of json, csv (or format=json|csv).');
  if (explicit.has('csv') && output !== 'summary') {
    throw voxdexError('BAD_ARGUMENT', `The csv format applies to output=summary only, not output=${output}.`);
  }
  const format =
    explicit.size === 1 ? [...explicit][0]! : output === 'summary' && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept) ? 'csv' : 'json';

  const meta: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!name.startsWith('meta.')) continue;
    const field = name.slice(5);
    if (field === '' || field.length > 200) throw invalidParameter('meta.<field>', 'a field name of 1 to 200 characters', name);
    setOwn(meta, field, text(name, value) ?? '');
  }

  const query: SearchQuery = {
    meta,
    offset: raw.offset === undefined ? 0 : parseInteger('offset', raw.offset, 0, MAX_OFFSET),
    size: raw.size === undefined ? DEFAULT_SIZE : parseInteger('size', raw.size, 0, MAX_SIZE),
    sort: oneOf<SortKey>('sort', raw.sort, SORT_KEYS, 'datetime'),
    sortdir: oneOf<SortDir>('sortdir', raw.sortdir, ['asc', 'desc'], 'desc'),
  };
  const terms = raw.terms === undefined ? undefined : parseTerms(raw.terms);
  if (terms) query.terms = terms;
  if (raw.channel !== undefined) query.channel = parseInteger('channel', raw.channel, 0, MAX_CHANNEL);
  if (raw.speaker !== undefined) {
    if (!SPEAKER_LABEL.test(raw.speaker)) throw invalidParameter('speaker', 'a speaker label such as S1, S2 (diarized mono) or C0, C1S2 (channels)', raw.speaker);
    query.speaker = raw.speaker;
  }
  if (raw.role !== undefined) {
    if (raw.role !== 'agent' && raw.role !== 'customer') throw invalidParameter('role', 'agent or customer', raw.role);
    query.role = raw.role;
  }
  if (raw.from !== undefined) query.fromMs = parseIsoDate('from', raw.from);
  if (raw.to !== undefined) query.toMs = parseIsoDate('to', raw.to, true);
  if (query.fromMs !== undefined && query.toMs !== undefined && query.fromMs > query.toMs) {
    throw voxdexError('BAD_ARGUMENT', `The range from=${raw.from} to=${raw.to} is empty: from must not be after to.`);
  }
  if (raw.duration !== undefined) {
    const { min, max } = parseDuration(raw.duration);
    if (min !== undefined) query.durationMin = min;
    if (max !== undefined) query.durationMax = max;
  }
  for (const name of ['model', 'filename', 'requestid'] as const) {
    const v = text(name, raw[name]);
    if (v !== undefined) query[name] = v;
  }

  Object.assign(query, parseAnalyticsOptions(raw));

  const zipfiles = raw.zipfiles === undefined ? [...ZIP_FILES] : raw.zipfiles.split(',').map((s) => s.trim());
  for (const z of zipfiles) if (!(ZIP_FILES as readonly string[]).includes(z)) throw invalidParameter('zipfiles', 'a comma list of json, text', raw.zipfiles);

  return {
    token: raw.token,
    output,
    format,
    query,
    fields: parseFields(raw.fields),
    zipfiles: ZIP_FILES.filter((z) => zipfiles.includes(z)),
  };
}

/** `DELETE /search/…?token=…&tid=a,b`: the comma list of tids (1 to 1000, each 1–256 characters). */
export function parseDeleteOptions(raw: RawOptions): DeleteOptions {
  checkNames(raw, DELETE_OPTION_NAMES);
  const tids = (raw.tid ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (tids.length === 0 || tids.length > 1000 || tids.some((t) => t.length > 256)) {
    throw invalidParameter('tid', 'a comma list of 1 to 1000 transcript ids', raw.tid);
  }
  return { token: raw.token, tids };
}
