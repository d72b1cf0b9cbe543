/**
 * The public voxdex REST API, as the page uses it. Every call carries the token in
 * `Authorization: Bearer` and asks for JSON; errors become ApiError with the API's code and message.
 */
import type { Aggregates, Figures, StoredTranscript, SummaryRow } from '../../src/search/transcript-index.js';
import type { CategoryView as Category } from '../../src/http/category-routes.js';
import { signOut, token } from './session.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the token stops being accepted (401) anywhere but at sign-in. */
let onUnauthorized: (message: string) => void = () => {};
export function whenUnauthorized(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

export interface CallOptions {
  method?: string;
  /** JSON body (sent as application/json) or FormData. */
  body?: unknown;
  accept?: string;
  /** The token to use instead of the session's (sign-in). */
  token?: string;
}

export async function call(path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: o.accept ?? 'application/json' };
  const t = o.token ?? token();
  if (t) headers.Authorization = `Bearer ${t}`;
  let body: BodyInit | undefined;
  if (o.body instanceof FormData) body = o.body;
  else if (o.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method: o.method ?? (body ? 'POST' : 'GET'), headers, body, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'NETWORK', 'The voxdex server cannot be reached; check the connection and try again.');
  }
  if (res.ok) return res;
  const text = await res.text();
  let code = `HTTP_${res.status}`;
  let message = text.trim() || res.statusText;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (parsed.error?.message) {
      code = parsed.error.code ?? code;
      message = parsed.error.message;
    }
  } catch {
    /* a text body */
  }
  const err = new ApiError(res.status, code, message);
  if (res.status === 401 && !o.token) {
    signOut();
    onUnauthorized(message);
  }
  throw err;
}

export async function json<T>(path: string, o: CallOptions = {}): Promise<T> {
  return (await call(path, o)).json() as Promise<T>;
}

// ------------------------------------------------------------ shapes of the API's answers

/** The API's own shapes (type-only imports from the service: erased in the bundle). */
export type { AccountBody as Account, RequestSummary } from '../../src/http/account-routes.js';
export type { Hit } from '../../src/search/transcript-index.js';
export type { Utterance, WordEvent } from '../../src/types.js';
export type Row = SummaryRow;
export type Transcript = StoredTranscript;

export interface Scope {
  company: string;
  org: string;
  folder?: string;
}

export function searchPath(s: Scope): string {
  return `/search/${[s.company, s.org, s.folder].filter(Boolean).map((p) => encodeURIComponent(p!)).join('/')}`;
}

/** POST /search/… with the options as a JSON body: rows and the total from X-Total-Count. */
export async function search(scope: Scope, options: Record<string, unknown>): Promise<{ total: number; rows: Row[] }> {
  const res = await call(searchPath(scope), { body: { ...options, output: 'summary', format: 'json' } });
  const rows = (await res.json()) as Row[];
  return { total: Number(res.headers.get('X-Total-Count') ?? rows.length), rows };
}

export async function details(scope: Scope, options: Record<string, unknown>): Promise<Transcript[]> {
  return json<Transcript[]>(searchPath(scope), { body: { ...options, output: 'details' } });
}

/** A signed, expiring link to the recording as playable WAV (no token in it). */
export async function audioLink(requestid: string, file: string, channel: string): Promise<string> {
  const q = new URLSearchParams({ file, channel });
  return json<string>(`/transcribe/${encodeURIComponent(requestid)}/audio?${q}`);
}

export type { Aggregates, Figures } from '../../src/search/transcript-index.js';

/** The answer of GET /analytics/… (docs/analytics.md, "Dashboard figures"). */
export type Analytics = Aggregates & {
  company: string;
  org?: string;
  folder?: string;
  from?: string;
  to?: string;
  tz: string;
  by?: string;
  previous?: { from: string; to: string; total: Figures };
};

export interface AnalyticsScope {
  company: string;
  org?: string;
  folder?: string;
}

/** POST /analytics/CO[/ORG[/FOLDER]] with the options as JSON. */
export async function analytics(scope: AnalyticsScope, options: Record<string, unknown>): Promise<Analytics> {
  const path = `/analytics/${[scope.company, scope.org, scope.folder].filter(Boolean).map((p) => encodeURIComponent(p!)).join('/')}`;
  return json<Analytics>(path, { body: options });
}

/** A category as GET /categories/CO lists it. */
export type { Category };

const categoryCache = new Map<string, Promise<Category[]>>();

/** The company's categories (fetched once per page load and company). */
export function categories(company: string): Promise<Category[]> {
  let p = categoryCache.get(company);
  if (!p) {
    p = json<{ categories: Category[] }>(`/categories/${encodeURIComponent(company)}`).then((r) => r.categories);
    p.catch(() => categoryCache.delete(company));
    categoryCache.set(company, p);
  }
  return p;
}

/** The company's categories, fetched again when one of `names` (a call's categories) is not among them: it was added since. */
export async function categoriesHaving(company: string, names: readonly string[]): Promise<Category[]> {
  const list = await categories(company);
  if (names.every((n) => list.some((c) => c.name === n))) return list;
  categoryCache.delete(company);
  return categories(company);
}
