/**
 * `GET|POST|DELETE /search/{CO}/{ORG}[/{FOLDER}]` (docs/search.md). One handler mounted on
 * `/search/*`; it parses the path itself (works whether or not the router strips the mount prefix),
 * validates options once for GET and POST alike, asks the auth edge who may do it, takes one request
 * from the principal's rate limit, queries the index and renders. Errors go to the app's onError,
 * rendered like search answers (text/html, or JSON when asked). The token comes from the query
 * string, the POST body or `Authorization: Bearer`, and is never logged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { voxdexError, VoxdexError } from '../errors.js';
import { invalidParameter, isShortName } from '../is.js';
import type { Logger } from '../log.js';
import { requestToken } from './bearer.js';
import {
  fromJsonBody,
  fromSearchParams,
  parseDeleteOptions,
  parseSearchOptions,
  type RawOptions,
} from '../search/search-options.js';
import { renderCount, renderError, type Rendered } from '../search/render.js';
import { inlineAnswers, type SearchAnswers } from '../search/search-answer.js';
import type { SearchScope, TranscriptIndex } from '../search/transcript-index.js';
import type { Access } from './auth.js';
import type { CategoryStore } from '../store/category-store.js';
import { checkCategoriesKnown } from '../search/analytics-fields.js';
import type { Limiter } from '../rate-limit/limiter.js';
import type { ErrorStyle, RouteTable } from './server.js';

export interface SearchRouteOptions {
  index: TranscriptIndex;
  access: Access;
  /** Per-principal limit on /search (RATE_LIMITED, 429); absent = none. */
  rateLimit?: Limiter;
  log: Logger;
  /** Largest POST body accepted (default 1 MiB). */
  maxBodyBytes?: number;
  /** The companies' categories: a `category=` that names none of them is UNKNOWN_CATEGORY (absent: not checked). */
  categories?: Pick<CategoryStore, 'list'>;
  /** CPU budget of one search, ms (VOXDEX_SEARCH_BUDGET_MS; src/search/budget.ts); default 2000. */
  budgetMs?: number;
  /** Where searches are answered (the SQLite index's read thread: search-thread.ts); default inline on `index`. */
  answers?: SearchAnswers;
}

const ALLOW = 'GET, POST, DELETE';
const SAFE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'no-store',
};

/** `/search/CO/ORG[/FOLDER]` (or, mount prefix stripped, `/CO/ORG[/FOLDER]`) → scope. */
export function parseSearchPath(pathname: string): SearchScope {
  const parts = pathname.split('/').filter((p) => p !== '');
  if (parts[0] === 'search') parts.shift();
  if (parts.length < 2 || parts.length > 3) {
    throw voxdexError('NOT_FOUND', `No such search path ${JSON.stringify(pathname)}; use /search/{CO_SHORT}/{ORG_SHORT}[/{FOLDERNAME}]`);
  }
  const names = ['company', 'org', 'folder'] as const;
  const values = parts.map((p, i) => {
    let v: string;
    try {
      v = decodeURIComponent(p);
    } catch {
      v = p;
    }
    if (!isShortName(v)) throw invalidParameter(names[i]!, 'a short name of 1-64 characters A-Z a-z 0-9 _ . -', v, 'BAD_NAME');
    return v;
  });
  return values.length === 3 ? { company: values[0]!, org: values[1]!, folder: values[2]! } : { company: values[0]!, org: values[1]! };
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= limit) {
        chunks.push(c);
        return;
      }
      // Answer 413 first, then close: the rest of the body is discarded (SEARCH_ERRORS drains it), never
      // destroyed before the answer is written.
      req.off('data', onData);
      reject(new VoxdexError('TOO_LARGE', `The search request body is larger than ${limit} bytes; send fewer options.`, { closeConnection: true }));
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Options from the query string and, for POST, the body (JSON object or urlencoded form); the dashboard figures read them the same way. */
export async function collectOptions(req: IncomingMessage, url: URL, limit: number): Promise<RawOptions> {
  const fromQuery = fromSearchParams(url.searchParams);
  if (req.method !== 'POST') return fromQuery;
  const text = await readBody(req, limit);
  if (text.trim() === '') return fromQuery;
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  let fromBody: RawOptions;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    fromBody = fromSearchParams(new URLSearchParams(text));
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw voxdexError('BAD_ARGUMENT', 'The POST body is not valid JSON; send the search options as a JSON object.');
    }
    fromBody = fromJsonBody(parsed);
  }
  for (const name of Object.keys(fromBody)) {
    if (Object.hasOwn(fromQuery, name)) throw voxdexError('BAD_ARGUMENT', `The option ${name} was given both in the URL and in the body; give it once.`);
  }
  return { ...fromQuery, ...fromBody };
}

function send(res: ServerResponse, r: Rendered, headers: Record<string, string | number> = {}): void {
  res.writeHead(r.status, { ...SAFE_HEADERS, 'Content-Type': r.type, 'Content-Length': Buffer.byteLength(r.body), ...headers });
  res.end(r.body);
}

/** Search errors as search answers: text/html (or JSON when asked), with the same safe headers. */
export const SEARCH_ERRORS: ErrorStyle = {
  render: (e, req) => {
    const r = renderError(e, req.headers.accept);
    return { type: r.type, body: r.body, headers: SAFE_HEADERS };
  },
  logAs: 'search failed',
  drain: true,
};

/** Mounts the search handler on `/search/*` for GET, POST and DELETE, its errors rendered as SEARCH_ERRORS. */
export function mountSearchRoutes(routes: RouteTable, options: SearchRouteOptions): void {
  routes.add(['GET', 'POST', 'DELETE'], '/search/*', createSearchHandler(options), SEARCH_ERRORS);
}

/** The handler; it throws its errors (mount it with SEARCH_ERRORS). */
export function createSearchHandler(options: SearchRouteOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { index, access, log } = options;
  const answers = options.answers ?? index.searchAnswers?.() ?? inlineAnswers(index);
  const limit = options.maxBodyBytes ?? 1024 * 1024;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const accept = req.headers.accept;
    const url = new URL((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'DELETE') {
      throw new VoxdexError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on /search; use ${ALLOW}.`, { allow: ALLOW });
    }
    const scope = parseSearchPath(url.pathname);
    const raw = await collectOptions(req, url, limit);
    // Who is asking comes before what is asked: an unknown token learns nothing about option syntax.
    const principal = await access.check(requestToken(req, raw.token), () => scope);
    await options.rateLimit?.take(principal);
    const where = { method: req.method, ...scope };
    const target = [scope.company, scope.org, scope.folder].filter((x) => x !== undefined).join('/');
    const { token: _token, ...asked } = raw;

    if (req.method === 'DELETE') {
      const del = parseDeleteOptions(raw);
      await access.record(req, principal, { company: scope.company, action: 'search.delete', target, detail: { tids: del.tids.length } });
      const deleted = await index.delete(scope, del.tids);
      log.info({ ...where, requested: del.tids.length, deleted, ms: Math.round(performance.now() - started) }, 'search delete');
      send(res, renderCount(deleted, accept));
      return;
    }

    const opts = parseSearchOptions(raw, accept);
    if (opts.query.categories && options.categories) {
      checkCategoriesKnown(scope.company, opts.query.categories, (await options.categories.list(scope.company)).map((c) => c.name));
    }
    await access.record(req, principal, { company: scope.company, action: opts.output === 'zip' ? 'download' : 'search', target, detail: { output: opts.output }, typed: asked });
    // Counted, scored and rendered where the index reads (SQLite: its read thread), not on the event loop.
    const a = await answers.answer({ scope, raw, accept, budgetMs: options.budgetMs ?? 2000 });
    log.info({ ...where, output: opts.output, ...a.log, ms: Math.round(performance.now() - started) }, 'search');
    res.writeHead(a.status, {
      ...SAFE_HEADERS,
      'Content-Type': a.type,
      'Content-Length': a.body.byteLength,
      ...(a.disposition ? { 'Content-Disposition': a.disposition } : {}),
      ...(a.total === undefined ? {} : { 'X-Total-Count': a.total }),
    });
    res.end(a.body);
  }

  return handle;
}

