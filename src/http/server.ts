/**
 * The HTTP app (polka). One onError renders every error as `{"error":{"code","message"}}` with the
 * status carried on the error (err.status); unknown paths are 404 NOT_FOUND, known paths with the
 * wrong method 405 METHOD_NOT_ALLOWED with an Allow header. Handlers are async: `route()` catches
 * their rejections into the same onError.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka from 'polka';
import { toVoxdexError, voxdexError } from '../errors.js';
import type { Logger } from '../log.js';

export type Req = IncomingMessage & { params: Record<string, string>; query: Record<string, string | string[]>; path: string; originalUrl: string };
export type Res = ServerResponse;
export type Handler = (req: Req, res: Res) => Promise<void> | void;
type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH' | 'HEAD';

export interface RouteTable {
  add(method: Method | Method[], pattern: string, handler: Handler): void;
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

/** Renders any error as the contract's JSON error body. */
export function sendError(res: Res, err: unknown, log?: Logger): void {
  const e = toVoxdexError(err);
  if (e.status >= 500 && e.code === 'INTERNAL') log?.error({ err: (e.cause as Error | undefined) ?? e }, 'internal error');
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string | number> = {};
  const retryAfter = (err as { retryAfterSec?: number } | null)?.retryAfterSec;
  if (e.status === 503 || e.status === 429) headers['Retry-After'] = retryAfter ?? 30;
  if (e.status === 405 && (err as { allow?: string }).allow) headers.Allow = (err as { allow: string }).allow;
  if ((err as { closeConnection?: boolean } | null)?.closeConnection) headers.Connection = 'close';
  sendJson(res, e.status, { error: { code: e.code, message: e.message } }, headers);
}

/** Creates the polka app. `mount` registers the routes; an error or rejection anywhere ends in sendError. */
export function createHttpApp(log: Logger, mount: (routes: RouteTable) => void) {
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
        const err = Object.assign(voxdexError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${allowed.join(' or ')}`), {
          allow: allowed.join(', '),
        });
        sendError(res, err, log);
      } else {
        sendError(res, voxdexError('NOT_FOUND', `No such endpoint: ${req.method} ${path}. See the API documentation for the paths voxdex serves.`), log);
      }
    },
  });
  const routes: RouteTable = {
    add(method, pattern, handler) {
      const methods = Array.isArray(method) ? method : [method];
      known.push({ methods, pattern, regex: patternRegex(pattern), literals: pattern.split('/').filter((seg) => seg !== '' && seg !== '*' && !seg.startsWith(':')).length });
      const wrapped = (req: Req, res: Res) => {
        try {
          const p = handler(req, res);
          if (p && typeof (p as Promise<void>).catch === 'function') (p as Promise<void>).catch((err) => sendError(res, err, log));
        } catch (err) {
          sendError(res, err, log);
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
