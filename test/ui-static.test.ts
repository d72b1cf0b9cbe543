/**
 * src/http/ui-routes.ts over real HTTP: the built web UI at /ui/, `/` redirecting there, only the
 * built files served (with CSP, nosniff, ETag/304), a clear 404 for anything else or an unbuilt UI.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createHttpApp, type Req, type Res } from '../src/http/server.js';
import { mountUiRoutes, UI_CSP } from '../src/http/ui-routes.js';
import { silentLogger } from '../src/log.js';
import { makeTempDir, removeDir } from './fixtures/make-audio.js';

const st = suite('ui-routes: the static web UI');
let dir = '';
const servers: Server[] = [];

async function serve(uiDir: string): Promise<string> {
  const app = createHttpApp(silentLogger, (routes) => mountUiRoutes(routes, uiDir));
  const server = createServer((req, res) => (app.handler as unknown as (q: Req, s: Res) => void)(req as Req, res as Res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

st.before(() => {
  dir = makeTempDir('voxdex-ui-static-');
  mkdirSync(path.join(dir, 'built'));
  writeFileSync(path.join(dir, 'built', 'index.html'), '<!doctype html><title>voxdex</title>');
  writeFileSync(path.join(dir, 'built', 'app.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'built', 'styles.css'), 'body{}');
  writeFileSync(path.join(dir, 'built', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dir, 'built', 'notes.md'), 'not served: no known type');
  writeFileSync(path.join(dir, 'secret.txt'), 'outside the UI folder');
});

st.after(() => {
  for (const s of servers) s.close();
  removeDir(dir);
});

st('serves the built files with their types, CSP, nosniff and an ETag; 304 when unchanged', async () => {
  const url = await serve(path.join(dir, 'built'));
  const index = await fetch(`${url}/ui/`);
  assert.is(index.status, 200);
  assert.is(index.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(index.headers.get('content-security-policy'), UI_CSP);
  assert.is(index.headers.get('x-content-type-options'), 'nosniff');
  assert.is(index.headers.get('x-frame-options'), 'DENY');
  assert.is(await index.text(), readFileSync(path.join(dir, 'built', 'index.html'), 'utf8'));
  const js = await fetch(`${url}/ui/app.js`);
  assert.is(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.is(await js.text(), 'console.log(1)');
  const etag = js.headers.get('etag')!;
  const again = await fetch(`${url}/ui/app.js`, { headers: { 'If-None-Match': etag } });
  assert.is(again.status, 304);
  assert.is((await fetch(`${url}/ui/styles.css`)).headers.get('content-type'), 'text/css; charset=utf-8');
  assert.is((await fetch(`${url}/favicon.ico`)).headers.get('content-type'), 'image/svg+xml');
});

st('redirects / and /ui to /ui/', async () => {
  const url = await serve(path.join(dir, 'built'));
  for (const p of ['/', '/ui']) {
    const r = await fetch(`${url}${p}`, { redirect: 'manual' });
    assert.is(r.status, 302, p);
    assert.is(r.headers.get('location'), '/ui/');
  }
});

st('serves nothing but the built files: other names, other types and paths outside are 404', async () => {
  const url = await serve(path.join(dir, 'built'));
  for (const p of ['/ui/notes.md', '/ui/nope.js', '/ui/..%2Fsecret.txt', '/ui/%2e%2e/secret.txt', '/ui/a/b.js']) {
    const r = await fetch(`${url}${p}`);
    assert.is(r.status, 404, p);
    const body = await r.json();
    assert.is(body.error.code, 'NOT_FOUND', p);
  }
  const r = await fetch(`${url}/ui/nope.js`);
  assert.is((await r.json()).error.message, 'The web UI has no file "nope.js"; open /ui/');
});

st('says how to build the UI when it is not built', async () => {
  const url = await serve(path.join(dir, 'missing'));
  const r = await fetch(`${url}/ui/`);
  assert.is(r.status, 404);
  assert.is((await r.json()).error.message, 'The web UI is not built: run `npm run build:ui` (scripts/install.sh does it) and restart voxdex');
});

st.run();
