/**
 * `GET|POST /analytics/{CO}[/{ORG}[/{FOLDER}]]` (docs/analytics.md, "Dashboard figures"): the figures
 * of the calls a search would find — calls, sentiment over the calls analysed for it, overtalk and
 * silence over the calls with metrics, calls per category — in total, per day and per group, and the
 * same totals for the period before. Computed by the index (TranscriptIndex.aggregate), never by
 * loading calls. Token, company and scope are checked as for /search; errors are the contract's JSON.
 */
import { voxdexError } from '../errors.js';
import { invalidParameter, isShortName } from '../is.js';
import type { Logger } from '../log.js';
import type { Limiter } from '../rate-limit/limiter.js';
import { checkCategoriesKnown } from '../search/analytics-fields.js';
import { parseAggregateOptions } from '../search/aggregate-options.js';
import type { AggregateScope, TranscriptIndex } from '../search/transcript-index.js';
import { answerAggregate } from '../search/search-answer.js';
import type { CategoryStore } from '../store/category-store.js';
import type { Access } from './auth.js';
import { requestToken } from './bearer.js';
import { collectOptions } from './search-routes.js';
import { type Handler, type RouteTable, sendJson } from './server.js';

export interface AnalyticsRouteOptions {
  /** Its figures are computed on its read thread where it has one (`searchAnswers`), else inline. */
  index: Pick<TranscriptIndex, 'aggregate' | 'searchAnswers'>;
  access: Access;
  categories?: Pick<CategoryStore, 'list'>;
  rateLimit?: Limiter;
  log: Logger;
}

/** `/analytics/CO[/ORG[/FOLDER]]` → the scope (names checked as short names). */
export function parseAnalyticsPath(pathname: string): AggregateScope {
  const parts = pathname.split('/').filter((p) => p !== '');
  if (parts[0] === 'analytics') parts.shift();
  if (parts.length < 1 || parts.length > 3) {
    throw voxdexError('NOT_FOUND', `No such path ${JSON.stringify(pathname)}; use /analytics/{CO_SHORT}[/{ORG_SHORT}[/{FOLDERNAME}]]`);
  }
  const names = ['company', 'org', 'folder'] as const;
  const [company, org, folder] = parts.map((p, i) => {
    let v = p;
    try {
      v = decodeURIComponent(p);
    } catch {
      /* kept as is: fails the name check */
    }
    if (!isShortName(v)) throw invalidParameter(names[i]!, 'a short name of 1-64 characters A-Z a-z 0-9 _ . -', v, 'BAD_NAME');
    return v;
  });
  return { company: company!, ...(org === undefined ? {} : { org }), ...(folder === undefined ? {} : { folder }) };
}

export function mountAnalyticsRoutes(routes: RouteTable, o: AnalyticsRouteOptions): void {
  const handler: Handler = async (req, res) => {
    const started = performance.now();
    const url = new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost');
    const scope = parseAnalyticsPath(url.pathname);
    const raw = await collectOptions(req, url, 64 * 1024);
    const principal = await o.access.check(requestToken(req, raw.token), () => scope);
    await o.rateLimit?.take(principal);
    const opts = parseAggregateOptions(raw);
    if (opts.query.categories && o.categories) {
      checkCategoriesKnown(scope.company, opts.query.categories, (await o.categories.list(scope.company)).map((c) => c.name));
    }
    // Computed where the index reads (SQLite: its read thread), not on the event loop.
    const thread = o.index.searchAnswers?.();
    const { current, previous } = await (thread ? thread.aggregate(scope, raw) : answerAggregate(o.index, scope, raw));
    const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
    const body = {
      ...scope,
      ...(opts.query.fromMs !== undefined ? { from: iso(opts.query.fromMs) } : {}),
      ...(opts.query.toMs !== undefined ? { to: iso(opts.query.toMs) } : {}),
      tz: opts.tz,
      ...(raw.by !== undefined ? { by: raw.by } : {}),
      ...current,
      ...(previous && opts.previous ? { previous: { from: iso(opts.previous.fromMs), to: iso(opts.previous.toMs), total: previous.total } } : {}),
    };
    o.log.info({ ...scope, calls: current.total.calls, ms: Math.round(performance.now() - started) }, 'analytics');
    sendJson(res, 200, body, { 'Cache-Control': 'no-store' });
  };
  routes.add(['GET', 'POST'], '/analytics/*', handler);
}
