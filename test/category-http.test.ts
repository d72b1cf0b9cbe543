/**
 * /categories over real HTTP: the polka app with the category and search routes, the real Tenancy,
 * the SQLite category store in its file and the SQLite index holding the conformance corpus; the
 * backfill runs in the background as in the service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CategoryBackfill } from '../src/analytics/backfill.js';
import { checkCategoryName } from '../src/analytics/categories.js';
import { tenancyAccess } from '../src/http/auth.js';
import { mountCategoryRoutes } from '../src/http/category-routes.js';
import { mountSearchRoutes } from '../src/http/search-routes.js';
import { createHttpApp } from '../src/http/server.js';
import { silentLogger } from '../src/log.js';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { searchSetup } from './fixtures/search-setup.js';

const ROOT = 'root-token-for-tests-0123456789abcdef';
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-category-http-'));
const test = suite<{ base: string; acme: string; other: string; backfill: CategoryBackfill; close: () => Promise<void> }>('category-http');

test.before(async (ctx) => {
  const { tenancy, acme, other, index } = await searchSetup(dir, ROOT);
  ctx.acme = acme;
  ctx.other = other;
  const store = new SqliteCategoryStore(tenancy.db);
  const backfill = new CategoryBackfill({ store, index, log: silentLogger, owner: 'test', pollMs: 0 });
  ctx.backfill = backfill;
  const access = tenancyAccess(tenancy);
  const app = createHttpApp(silentLogger, (routes) => {
    mountSearchRoutes(routes, { index, access, log: silentLogger, categories: store });
    mountCategoryRoutes(routes, { access, store, index, onChange: () => backfill.kick() });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const server = app.server!;
  ctx.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx.close = async () => {
    await backfill.stop();
    await new Promise((resolve) => server.close(resolve));
    await index.close();
    tenancy.close();
  };
});
test.after(async (ctx) => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (base: string, p: string, body: unknown, token?: string) =>
  fetch(`${base}${p}${token ? `?token=${token}` : ''}`, { method: 'PUT', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

test('PUT creates (201) and replaces (200); GET shows the rule, its calls and the backfill once done', async ({ base, acme, backfill }) => {
  let r = await put(base, '/categories/acme/cancel', { terms: '"cancel my subscription"' }, acme);
  assert.is(r.status, 201);
  const created = await r.json();
  assert.equal({ ...created, updated: 'x' }, { name: 'cancel', terms: '"cancel my subscription"', updated: 'x', version: 1, calls: 0, backfill: { state: 'pending', done: 0 } });
  await backfill.idle();
  r = await fetch(`${base}/categories/acme/cancel`, { headers: { authorization: `Bearer ${acme}` } });
  assert.is(r.status, 200);
  const got = await r.json();
  assert.equal([got.calls, got.backfill], [3, { state: 'done', done: 9 }]);
  // the same search finds the same calls
  const s = await fetch(`${base}/search/acme/sales?token=${acme}&output=count&terms=${encodeURIComponent('"cancel my subscription"')}`);
  const c = await fetch(`${base}/search/acme/sales?token=${acme}&output=count&category=cancel`);
  assert.is(await c.text(), await s.text());
  r = await put(base, '/categories/acme/cancel', { terms: 'cancel', channel: 1 }, acme);
  assert.is(r.status, 200);
  assert.is((await r.json()).version, 2);
  await backfill.idle();
});

test('a form body works too; GET /categories/CO lists each with its count', async ({ base, acme, backfill }) => {
  const r = await fetch(`${base}/categories/acme/refund`, { method: 'PUT', body: new URLSearchParams({ token: acme, terms: 'refund*', org: 'sales' }) });
  assert.is(r.status, 201);
  await backfill.idle();
  const list = await (await fetch(`${base}/categories/acme?token=${acme}`)).json();
  assert.is(list.company, 'acme');
  assert.equal(list.categories.map((c: { name: string; calls: number; org?: string }) => [c.name, c.calls, c.org]), [['cancel', 3, undefined], ['refund', 4, 'sales']]);
  const rows = await (await fetch(`${base}/search/acme/sales?token=${acme}&category=refund&category=cancel&fields=tid,categories`, { headers: { accept: 'application/json' } })).json();
  assert.ok(rows.length > 0);
  for (const row of rows) assert.ok(row.categories.includes('refund') || row.categories.includes('cancel'));
  const csv = await (await fetch(`${base}/search/acme/sales?token=${acme}&category=refund&fields=tid,categories&csv&sort=datetime&sortdir=asc`)).text();
  assert.is(csv.split('\r\n')[0], 'tid,categories');
  assert.is(csv.split('\r\n')[1], 't01,cancel;refund');
});

test('a rule with a syntax error is 400 BAD_QUERY naming the position; other bad input is 400', async ({ base, acme }) => {
  let r = await put(base, '/categories/acme/bad', { terms: 'refund (cancel' }, acme);
  assert.is(r.status, 400);
  assert.equal(await r.json(), { error: { code: 'BAD_QUERY', message: 'Invalid terms: the "(" at position 7 is not closed. See docs/search.md for the syntax.' } });
  r = await put(base, '/categories/acme/bad', { terms: 'x', channel: -1 }, acme);
  assert.is(r.status, 400);
  // JSON types as documented: null is not a name, "1" is not a number (a form field is text: there it is)
  assert.is((await put(base, '/categories/acme/bad', { terms: 'x', org: null }, acme)).status, 400);
  assert.is((await put(base, '/categories/acme/bad', { terms: 'x', channel: '1' }, acme)).status, 400);
  r = await put(base, '/categories/acme/b%20ad', { terms: 'x' }, acme);
  assert.is((await r.json()).error.code, 'BAD_NAME');
  r = await put(base, '/categories/acme/bad', { terms: 'x', org: 'nosuchorg' }, acme);
  assert.is(r.status, 404);
  r = await fetch(`${base}/categories/acme/bad?token=${acme}`, { method: 'PUT', body: '{', headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 400);
});

test('tokens: none is 401, another company\'s is 403, root may', async ({ base, acme, other }) => {
  assert.is((await fetch(`${base}/categories/acme`)).status, 401);
  assert.is((await fetch(`${base}/categories/acme?token=${other}`)).status, 403);
  assert.is((await put(base, '/categories/acme/x', { terms: 'x' }, other)).status, 403);
  assert.is((await fetch(`${base}/categories/acme?token=${ROOT}`)).status, 200);
  void acme;
});

/** A request with its path sent as it is (fetch would resolve `.` and `..` segments, also %2E%2E). */
function rawRequest(base: string, method: string, rawPath: string, body?: string): Promise<{ status: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const r = request({ host: url.hostname, port: url.port, method, path: rawPath, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

test('the token is checked before the rule: a bad rule without a token is 401, with another company\'s 403 (issue 24)', async ({ base, other }) => {
  let r = await put(base, '/categories/acme/bad', { terms: 'refund (cancel' });
  assert.is(r.status, 401, await r.text());
  r = await put(base, '/categories/acme/bad', { terms: 'refund (cancel' }, other);
  assert.is(r.status, 403);
  r = await fetch(`${base}/categories/acme/bad`, { method: 'PUT', body: '{', headers: { 'content-type': 'application/json' } });
  assert.is(r.status, 401, 'a body that is not JSON is read only for a known token');
  r = await put(base, '/categories/acme/b%20ad', { terms: 'x' });
  assert.is(r.status, 401);
});

test('the root token cannot make categories for a company that does not exist: 404 (issue 24)', async ({ base }) => {
  const r = await put(base, '/categories/nosuchco/x', { terms: 'refund' }, ROOT);
  assert.is(r.status, 404);
  assert.equal(await r.json(), { error: { code: 'NOT_FOUND', message: 'Company nosuchco does not exist; voxdex company list shows those that do' } });
  assert.is((await fetch(`${base}/categories/nosuchco?token=${ROOT}`)).status, 404);
  assert.is((await fetch(`${base}/categories/nosuchco/x?token=${ROOT}`, { method: 'DELETE' })).status, 404);
  assert.is((await fetch(`${base}/categories/nosuchco?token=${ROOT}`)).status, 404, 'nothing was made');
});

test('category names ".", "..", "-" and others without a letter or digit, or starting with "-" or ".", are 400 BAD_NAME (issue 24)', async ({ base, acme }) => {
  for (const name of ['.', '..', '-', '_', '--', '.hidden', '-x']) {
    const r = await rawRequest(base, 'PUT', `/categories/acme/${name}?token=${acme}`, JSON.stringify({ terms: 'refund' }));
    assert.is(r.status, 400, `${name}: ${r.body}`);
    assert.is(JSON.parse(r.body).error.code, 'BAD_NAME', name);
    assert.throws(() => checkCategoryName(name), /starts with a letter, a digit or _ and holds a letter or digit/);
  }
  for (const name of ['a', '_x', 'x.y', 'a-b', 'refund-2']) assert.is(checkCategoryName(name), name);
  const list = await (await fetch(`${base}/categories/acme?token=${acme}`)).json();
  assert.not.ok(list.categories.some((c: { name: string }) => /^[-.]|^_$|^--$/.test(c.name)), 'none was made');
});

test('DELETE removes it (404 after); its name goes from the calls', async ({ base, acme, backfill }) => {
  let r = await fetch(`${base}/categories/acme/refund?token=${acme}`, { method: 'DELETE' });
  assert.is(r.status, 200);
  assert.equal(await r.json(), { company: 'acme', name: 'refund', deleted: true });
  await backfill.idle();
  assert.is((await fetch(`${base}/categories/acme/refund?token=${acme}`)).status, 404);
  assert.is((await fetch(`${base}/categories/acme/refund?token=${acme}`, { method: 'DELETE' })).status, 404);
  r = await fetch(`${base}/search/acme/sales?token=${acme}&output=count&category=refund`, { headers: { accept: 'application/json' } });
  assert.is(r.status, 400);
  assert.equal((await r.json()).error.code, 'UNKNOWN_CATEGORY');
});

test('search: an unknown category= is 400 UNKNOWN_CATEGORY naming it and the known ones; sentiment labels in any case', async ({ base, acme, other }) => {
  let r = await fetch(`${base}/search/acme/sales?token=${acme}&category=cancel,Cancel,nope`, { headers: { accept: 'application/json' } });
  assert.is(r.status, 400);
  assert.equal(await r.json(), {
    error: { code: 'UNKNOWN_CATEGORY', message: 'Unknown categories "Cancel", "nope": the categories of acme are cancel (names are case-sensitive; GET /categories/acme lists them).' },
  });
  r = await fetch(`${base}/search/other/sales?token=${other}&category=cancel`, { headers: { accept: 'application/json' } });
  assert.equal((await r.json()).error.message, 'Unknown category "cancel": other has no categories yet (names are case-sensitive; GET /categories/other lists them).');
  for (const label of ['mostly negative', 'MOSTLY_NEGATIVE', 'Mostly Negative']) {
    r = await fetch(`${base}/search/acme/sales?token=${acme}&output=count&sentiment=${encodeURIComponent(label)}`);
    assert.is(r.status, 200, label);
  }
  r = await fetch(`${base}/search/acme/sales?token=${acme}&sentiment=angry`, { headers: { accept: 'application/json' } });
  assert.equal(await r.json(), {
    error: { code: 'BAD_ARGUMENT', message: 'Expected one of Positive, Mostly Positive, Neutral, Mostly Negative, Negative (any case; a comma list for any of them; any: every label) for sentiment but received "angry"' },
  });
});

test.run();
