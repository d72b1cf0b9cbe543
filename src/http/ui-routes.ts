/**
 * The web UI (docs/ui.md): static files built at install (`npm run build:ui` → dist/ui/) served at
 * /ui/, and `/` redirecting there. Only the files the build wrote are served (a fixed list read at
 * start, no paths from the request reach the file system). The page talks to the public API only.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';
import type { Res, RouteTable } from './server.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** The page may load only its own scripts, styles and media and talk only to this server. */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

export function defaultUiDir(): string {
  return path.join(PACKAGE_ROOT, 'dist', 'ui');
}

function load(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (!type || !/^[\w.-]+$/.test(name)) continue;
    const body = readFileSync(path.join(dir, name));
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
  }
  return files;
}

export function mountUiRoutes(routes: RouteTable, dir = defaultUiDir()): void {
  const files = load(dir);
  const send = (req: { headers: Record<string, string | string[] | undefined>; method?: string }, res: Res, name: string) => {
    const f = files.get(name);
    if (!f) {
      if (files.size === 0) throw voxdexError('NOT_FOUND', 'The web UI is not built: run `npm run build:ui` (scripts/install.sh does it) and restart voxdex');
      throw voxdexError('NOT_FOUND', `The web UI has no file ${JSON.stringify(name)}; open /ui/`);
    }
    const headers = {
      'Content-Type': f.type,
      'Cache-Control': 'no-cache',
      ETag: f.etag,
      'Content-Security-Policy': UI_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
    };
    if (req.headers['if-none-match'] === f.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': f.body.length });
    res.end(req.method === 'HEAD' ? undefined : f.body);
  };
  const redirect = (res: Res) => {
    res.writeHead(302, { Location: '/ui/', 'Content-Length': 0 });
    res.end();
  };
  routes.add(['GET', 'HEAD'], '/', (_req, res) => redirect(res));
  routes.add(['GET', 'HEAD'], '/ui', (req, res) => ((req.originalUrl ?? req.url ?? '').split('?')[0] === '/ui/' ? send(req, res, 'index.html') : redirect(res)));
  routes.add(['GET', 'HEAD'], '/ui/:file', (req, res) => send(req, res, req.params.file!));
  routes.add(['GET', 'HEAD'], '/favicon.ico', (req, res) => send(req, res, 'icon.svg'));
}
