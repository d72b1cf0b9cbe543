/**
 * The HTTP app (polka). One onError renders every error with the status carried on the error
 * (err.status) and its typed hints (Retry-After, Allow, Connection: close): as the contract's
 * `{"error":{"code","message"}}`, or in a route's own ErrorStyle (/search). Unknown paths are 404
 * NOT_FOUND, known paths with the wrong method 405 METHOD_NOT_ALLOWED with an Allow header.
 * Handlers are async: `route()` catches their rejections into the same onError.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka from 'polka';
import { toVoxdexError, voxdexError, VoxdexError } from '../errors.js';
import type { Logger } from '../log.js';

export type Req = IncomingMessage & { params: Record<string, string>; query: Record<string, string | string[]>; path: string; originalUrl: string };
export type Res = ServerResponse;
export type Handler = (req: Req, res: Res) => Promise<void> | void;
type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD';

/** How a route's errors are answered, when not as the contract's JSON body. */
export interface ErrorStyle {
  /** Content type, body and extra headers of the answer (the status is the error's). */
  render(e: VoxdexError, req: Req): { type: string; body: string; headers?: Record<string, string> };
  /** Log every 5xx under this message (by default only INTERNAL errors are logged). */
  logAs?: string;
  /** Read and discard a request body left unread. */
  drain?: boolean;
}

export interface RouteTable {
  add(method: Method | Method[], pattern: string, handler: Handler, errors?: ErrorStyle): void;
}

interface Route {
  methods: Method[];
  pattern: string;
  regex: RegExp;
  /** Segments that are not parameters: the more, the more specific. */
  literals: number;
}

export function sendJson(res: Res, status: number, body: unknown, headers: Record<string, string | number> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendText(res: Res, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** The one onError: renders any error as the contract's JSON error body, or in the route's style. */
export function sendError(res: Res, err: unknown, log?: Logger, req?: Req, style?: ErrorStyle): void {
  const e = toVoxdexError(err);
  if (e.status >= 500 && style?.logAs) log?.error({ err: (e.cause as Error | undefined) ?? e, code: e.code }, style.logAs);
  else if (e.status >= 500 && e.code === 'INTERNAL') log?.error({ err: (e.cause as Error | undefined) ?? e }, 'internal error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string | number> = {};
  if (e.status === 503 || e.status === 429) headers['Retry-After'] = e.retryAfterSec ?? 30;
  if (e.status === 405 && e.allow) headers.Allow = e.allow;
  if (e.status === 416 && e.contentRange) headers['Content-Range'] = e.contentRange;
  if (e.closeConnection) headers.Connection = 'close';
  if (style && req) {
    const r = style.render(e, req);
    res.writeHead(e.status, { ...r.headers, 'Content-Type': r.type, 'Content-Length': Buffer.byteLength(r.body), ...headers });
    res.end(r.body);
    if (style.drain && !req.complete) req.resume();
    return;
  }
  sendJson(res, e.status, { error: { code: e.code, message: e.message } }, headers);
}

/** What the app tells about the errors it sends: a token nobody holds (the audit trail's `token.refused`, docs/audit.md). */
export interface ErrorObserver {
  refused(req: Req): Promise<void>;
}

/**
 * Creates the polka app. `mount` registers the routes; an error or rejection anywhere ends in sendError
 * (and a BAD_TOKEN is told to `observe`, which may not fail the answer).
 */
export function createHttpApp(log: Logger, mount: (routes: RouteTable) => void, observe?: ErrorObserver) {
  const known: Route[] = [];
  const app = polka({
    onError: (err: unknown, _req: unknown, res: Res) => sendError(res, err, log),
    onNoMatch: (req: Req, res: Res) => {
      const path = (req.path ?? req.url ?? '/').split('?')[0]!;
      // Like OpenAPI path matching: the patterns with the most literal segments that match win
      // (GET /transcribe/download/{id} is not POST /transcribe/{org}/{folder}).
      const matching = known.filter((r) => r.regex.test(path));
      const best = Math.max(0, ...matching.map((r) => r.literals));
      const allowed = [...new Set(matching.filter((r) => r.literals === best).flatMap((r) => r.methods))];
      if (allowed.length > 0) {
        const err = new VoxdexError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${allowed.join(' or ')}`, {
          allow: allowed.join(', '),
        });
        sendError(res, err, log);
      } else {
        sendError(res, voxdexError('NOT_FOUND', `No such endpoint: ${req.method} ${path}. See the API documentation for the paths voxdex serves.`), log);
      }
    },
  });
  const routes: RouteTable = {
    add(method, pattern, handler, errors) {
      const methods = Array.isArray(method) ? method : [method];
      const route: Route = { methods, pattern, regex: patternRegex(pattern), literals: pattern.split('/').filter((seg) => seg !== '' && seg !== '*' && !seg.startsWith(':')).length };
      known.push(route);
      const wrapped = (req: Req, res: Res) => {
        const fail = (err: unknown) => {
          if (observe && toVoxdexError(err).code === 'BAD_TOKEN') observe.refused(req).catch((e: unknown) => log.warn({ err: e }, 'the audit trail could not record a refused token'));
          sendError(res, err, log, req, errors);
        };
        try {
          // A path that a more specific route owns is not this route's (POST /transcribe/download/{id}/audio
          // is no upload to a company named "download"): 405 with that route's methods.
          const reserved = moreSpecific(known, route, (req.path ?? req.url ?? '/').split('?')[0]!);
          if (reserved && !reserved.includes(req.method as Method)) {
            throw new VoxdexError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; use ${reserved.join(' or ')}`, {
              allow: reserved.join(', '),
              closeConnection: true,
            });
          }
          const p = handler(req, res);
          if (p && typeof (p as Promise<void>).catch === 'function') (p as Promise<void>).catch(fail);
        } catch (err) {
          fail(err);
        }
      };
      for (const m of methods) (app as unknown as Record<string, (p: string, h: unknown) => void>)[m.toLowerCase()]!.call(app, pattern, wrapped);
    },
  };
  mount(routes);
  return Object.assign(app, {
    /** Every route mounted: its methods and polka pattern (`:name` parameters, `*` rest). */
    routeList: (): Array<{ methods: Method[]; pattern: string }> => known.map((r) => ({ methods: r.methods, pattern: r.pattern })),
  });
}

/** The methods of the routes more specific than `route` (more literal segments) that match `path`, if any. */
function moreSpecific(known: Route[], route: Route, path: string): Method[] | undefined {
  const matching = known.filter((r) => r.literals > route.literals && r.regex.test(path));
  if (matching.length === 0) return undefined;
  const best = Math.max(...matching.map((r) => r.literals));
  return [...new Set(matching.filter((r) => r.literals === best).flatMap((r) => r.methods))];
}

function patternRegex(pattern: string): RegExp {
  const body = pattern
    .split('/')
    .map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/** One value of a query parameter (the last when repeated). */
export function queryValue(req: Req, name: string): string | undefined {
  const v = req.query?.[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}
