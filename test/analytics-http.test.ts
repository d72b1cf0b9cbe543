/**
 * GET|POST /analytics over real HTTP (the polka app with the search, category and analytics routes,
 * the real Tenancy, the SQLite index with the conformance corpus): every figure equals the count of
 * the search that lists its calls, asked of the API itself (the links the dashboard draws).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tenancyAccess } from '../src/http/auth.js';
import { mountAnalyticsRoutes } from '../src/http/analytics-routes.js';
import { mountSearchRoutes } from '../src/http/search-routes.js';
import { createHttpApp } from '../src/http/server.js';
import { silentLogger } from '../src/log.js';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import { CORPUS } from './conformance/transcript-corpus.js';

const ROOT = 'root-token-for-tests-0123456789abcdef';
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-analytics-http-'));
const test = suite<{ base: string; acme: string; other: string; close: () => Promise<void> }>('analytics-http');

test.before(async (ctx) => {
  const tenancy = new SqliteTenancy(path.join(dir, 'tenancy.sqlite'), ROOT);
  ctx.acme = tenancy.addCompany('acme', { org: 'sales', folder: 'f1' }).token;
  tenancy.addFolder('acme', 'sales', 'f2');
  tenancy.addFolder('acme', 'support', 'f1');
  ctx.other = tenancy.addCompany('other', { org: 'sales', folder: 'f1' }).token;
  const store = new SqliteCategoryStore(tenancy.db);
  await store.put('acme', 'cancel', { terms: 'cancel' });
  await store.put('acme', 'billing', { terms: 'billing' });
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
  await index.init();
  await index.index(CORPUS.map((t, i) => {
    const d = structuredClone(t);
    if (i % 2 === 0) d.document.utterances[0]!.metadata.sentiment = i % 4 === 0 ? 'Negative' : 'Neutral';
    if (i < 5) d.document.metrics = { overtalksecs: i * 0.75, silencesecs: 1, longestsilencesecs: 1, talksecs: {}, wordsperminute: {} };
    d.document.categories = i % 3 === 0 ? ['cancel'] : i % 3 === 1 ? ['billing', 'cancel'] : [];
    return d;
  }));
  const access = tenancyAccess(tenancy);
  const app = createHttpApp(silentLogger, (routes) => {
    mountSearchRoutes(routes, { index, access, log: silentLogger, categories: store });
    mountAnalyticsRoutes(routes, { index, access, log: silentLogger, categories: store });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const server = app.server!;
  ctx.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx.close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await index.close();
    tenancy.close();
  };
});
test.after(async (ctx) => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (base: string, p: string, token: string) => {
  const r = await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  return { status: r.status, body: await r.json() };
};
const count = async (base: string, scope: string, params: Record<string, string>, token: string) =>
  Number(await (await fetch(`${base}/search/${scope}?${new URLSearchParams({ ...params, output: 'count' })}`, { headers: { authorization: `Bearer ${token}` } })).text());

test('every figure equals the count of the search that lists its calls', async ({ base, acme }) => {
  const range = { from: '2024-03-01', to: '2024-03-31' };
  const { status, body } = await get(base, `/analytics/acme/sales?${new URLSearchParams({ ...range, by: 'meta.agent' })}`, acme);
  assert.is(status, 200);
  const t = body.total;
  assert.is(t.calls, await count(base, 'acme/sales', range, acme));
  assert.is(t.sentiment.analysed, await count(base, 'acme/sales', { ...range, sentiment: 'any' }, acme));
  assert.is(t.sentiment.negative, await count(base, 'acme/sales', { ...range, sentiment: 'Negative,Mostly Negative' }, acme));
  assert.is(t.metrics.analysed, await count(base, 'acme/sales', { ...range, overtalk: '0-' }, acme));
  assert.is(t.metrics.overtalkCalls, await count(base, 'acme/sales', { ...range, overtalk: '0.01-' }, acme));
  for (const [name, n] of Object.entries(t.categories)) assert.is(n, await count(base, 'acme/sales', { ...range, category: name }, acme), name);
  for (const d of body.days) {
    assert.is(d.calls, await count(base, 'acme/sales', { from: d.day, to: d.day }, acme), d.day);
    for (const [name, n] of Object.entries(d.categories)) assert.is(n, await count(base, 'acme/sales', { from: d.day, to: d.day, category: name }, acme));
  }
  for (const g of body.groups) {
    if (g.key === null) continue;
    assert.is(g.calls, await count(base, 'acme/sales', { ...range, 'meta.agent': g.key }, acme), g.key);
    assert.is(g.sentiment.analysed, await count(base, 'acme/sales', { ...range, 'meta.agent': g.key, sentiment: 'any' }, acme));
  }
  assert.equal(body.groups.map((g: { key: string; calls: number }) => [g.key, g.calls]), [['alice', 3], ['bob', 1], ['carol', 1], ['dave', 1], ['erin', 1]]);
  assert.equal([body.company, body.org, body.from, body.to, body.tz, body.by], ['acme', 'sales', '2024-03-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z', 'Z', 'meta.agent']);
  // the period before: 2024-01-30 … 2024-02-29 (31 days), no calls
  assert.equal([body.previous.from, body.previous.to, body.previous.total.calls], ['2024-01-30T00:00:00.000Z', '2024-02-29T23:59:59.999Z', 0]);
});

test('company-wide by org and by folder; the period before counts the calls there', async ({ base, acme }) => {
  const byOrg = await get(base, '/analytics/acme?by=org&from=2024-03-16&to=2024-04-15', acme);
  assert.equal(byOrg.body.groups.map((g: { key: string; calls: number }) => [g.key, g.calls]), [['sales', 1]]);
  assert.is(byOrg.body.previous.total.calls, 8);
  assert.is(byOrg.body.previous.total.calls, await count(base, 'acme/sales', { from: '2024-02-15', to: '2024-03-15' }, acme) + await count(base, 'acme/support', { from: '2024-02-15', to: '2024-03-15' }, acme));
  const byFolder = await get(base, '/analytics/acme?by=folder', acme);
  assert.equal(byFolder.body.groups.map((g: { key: string; calls: number }) => [g.key, g.calls]), [['sales/f1', 7], ['sales/f2', 1], ['support/f1', 1]]);
  assert.is(byFolder.body.previous, undefined);
  const post = await fetch(`${base}/analytics/acme/sales`, { method: 'POST', headers: { authorization: `Bearer ${acme}`, 'content-type': 'application/json' }, body: JSON.stringify({ terms: 'cancels', tz: '+10:30', compare: 'none', from: '2024-03-01' }) });
  const posted = await post.json();
  assert.is(posted.total.calls, await count(base, 'acme/sales', { terms: 'cancels', from: '2024-03-01' }, acme));
  assert.is(posted.days[0].day, '2024-03-01');
  assert.is(posted.tz, '+10:30');
});

test('bad input: clear errors with stable codes; tokens as for search', async ({ base, acme, other }) => {
  const err = async (p: string, token = acme) => {
    const r = await get(base, p, token);
    return [r.status, r.body.error.code, r.body.error.message];
  };
  assert.equal(await err('/analytics/acme/sales?by=agent'), [400, 'BAD_ARGUMENT', 'Expected org, folder or meta.<field> (e.g. meta.agent) for by but received "agent"']);
  assert.equal(await err('/analytics/acme/sales?tz=CET'), [400, 'BAD_ARGUMENT', 'Expected a UTC offset such as +01:00, -05:30 or Z for tz but received "CET"']);
  assert.equal((await err('/analytics/acme/sales?size=10'))[1], 'UNKNOWN_PARAMETER');
  assert.equal((await err('/analytics/acme/sales?category=nope'))[1], 'UNKNOWN_CATEGORY');
  assert.equal((await err('/analytics/acme/nosuch'))[0], 404);
  assert.equal((await err('/analytics/acme/sales', other))[0], 403);
  assert.equal((await err('/analytics/acme/sales', 'wrong'))[0], 401);
  assert.equal((await err('/analytics/acme/sales?terms=%22open'))[1], 'BAD_QUERY');
  assert.equal((await get(base, '/analytics/acme/sales', ROOT)).status, 200);
});

test.run();
