/**
 * /search over real HTTP: a polka app (src/http/server.ts) on 127.0.0.1:0 with the search handler,
 * the real Tenancy (src/tenancy) and the real SQLite index holding the conformance corpus.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import yauzl from 'yauzl';
import { createHttpApp } from '../src/http/server.js';
import { tenancyAccess, type Access } from '../src/http/auth.js';
import { createSearchHandler, mountSearchRoutes, SEARCH_ERRORS } from '../src/http/search-routes.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { CORPUS, makeTranscript, SPECS } from './conformance/transcript-corpus.js';
import { searchSetup } from './fixtures/search-setup.js';

const ROOT = 'root-token-for-tests-0123456789abcdef';
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-search-http-'));
const test = suite<{ base: string; acme: string; other: string; logs: string[]; close: () => Promise<void> }>('search-http');

test.before(async (ctx) => {
  const { tenancy, acme, other, index } = await searchSetup(dir, ROOT);
  ctx.acme = acme;
  ctx.other = other;
  await index.index([
    makeTranscript({ ...SPECS[0]!, tid: 'x01', scope: ['acme', 'support', 'f1'], metadata: { agent: '<script>alert(1)</script>' } }),
    makeTranscript({
      ...SPECS[0]!, tid: 'x02', scope: ['acme', 'support', 'f1'], requestid: 'req-formula', source: '=HYPERLINK("http://evil.example","open")',
      metadata: { a: '+1+1', b: '-2+3', c: '@SUM(A1)', d: '\tcmd', e: '\rcmd', f: '=1', g: 'a=b', h: -4, i: 'x-1' },
    }),
  ]);
  ctx.logs = [];
  const logs = ctx.logs;
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _e, cb) => (logs.push(String(chunk)), cb()) }));
  const app = createHttpApp(log, (routes) => mountSearchRoutes(routes, { index, access: tenancyAccess(tenancy), log }));
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

type Opts = Record<string, string>;
const get = (base: string, p: string, opts: Opts, headers: Record<string, string> = {}) =>
  fetch(`${base}${p}?${new URLSearchParams(opts)}`, { headers });
const post = (base: string, p: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${p}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });

test('count: the number as text/html', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales/f1', { token: acme, output: 'count', terms: '"cancel my subscription"' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(await res.text(), '2');
});

test('summary: JSON rows as text/html by default, total in X-Total-Count', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales', { token: acme, terms: 'refund', size: '2' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(res.headers.get('x-total-count'), '4');
  const rows = (await res.json()) as Array<{ tid: string; hits: unknown[] }>;
  assert.equal(rows.map((r) => r.tid), ['t06', 't10']);
  assert.equal(rows[0]!.hits, [{ channel: 0, start: 0, end: 0.4, text: 'refund request for the' }]);
});

test('summary: Accept: application/json gets application/json', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales/f1', { token: acme, terms: 'colour', fields: 'tid,score' }, { accept: 'application/json' });
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(await res.text(), '[{"tid":"t09","score":1}]');
});

test('summary CSV: the csv flag without value, header and stable column order; text/csv for Accept: */*', async ({ base, acme }) => {
  const res = await fetch(`${base}/search/acme/sales/f1?token=${acme}&csv&terms=colour`, { headers: { accept: '*/*' } });
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(
    await res.text(),
    'tid,filename,datetime,duration,nchannels,model,confidence,score,meta.agent,hits\r\n' +
      't09,call-09.wav,2024-03-09T10:00:00Z,15,1,en-us-16k,0.95,1,erin,"[{""channel"":0,""start"":0.5,""end"":0.9,""text"":""the colour and the color""}]"\r\n',
  );
});

test('summary CSV: Accept: text/csv selects CSV and gets text/csv; fields excludes with -name', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales/f1', { token: acme, terms: 'colour', fields: '-hits,-metadata,-datetime' }, { accept: 'text/csv' });
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(await res.text(), 'tid,filename,duration,nchannels,model,confidence,score\r\nt09,call-09.wav,15,1,en-us-16k,0.95,1\r\n');
});

test('GET and POST give identical results for every output', async ({ base, acme }) => {
  const cases: Opts[] = [
    { output: 'count', terms: 'cancel* -refund' },
    { terms: '"refund order"~3 | colour', sort: 'duration', sortdir: 'asc', 'meta.agent': 'alice' },
    { format: 'csv', terms: 'thank', from: '2024-03-02', fields: 'tid,hits' },
    { output: 'details', terms: 'subscription', channel: '0', offset: '0', size: '5' },
    { terms: 'a | -a', duration: '20-100', model: 'en-us-8k', sort: 'score' },
  ];
  for (const c of cases) {
    const a = await get(base, '/search/acme/sales', { token: acme, ...c });
    const b = await post(base, '/search/acme/sales', { token: acme, ...c });
    assert.is(a.status, 200, JSON.stringify(c));
    assert.is(b.headers.get('content-type'), a.headers.get('content-type'));
    assert.is(await b.text(), await a.text(), JSON.stringify(c));
  }
});

test('POST: numbers, booleans, a nested meta object and the token in the body', async ({ base, acme }) => {
  const a = await get(base, '/search/acme/sales/f1', { token: acme, size: '2', csv: '', 'meta.agent': 'alice' });
  const b = await post(base, '/search/acme/sales/f1', { token: acme, size: 2, csv: true, json: false, meta: { agent: 'alice' } });
  assert.is(await b.text(), await a.text());
});

test('meta.__proto__ filters like any other field name, in GET and POST alike (nothing has it: 0)', async ({ base, acme }) => {
  const all = await get(base, '/search/acme/sales/f1', { token: acme, output: 'count' });
  assert.not.equal(await all.text(), '0');
  const a = await get(base, '/search/acme/sales/f1', { token: acme, output: 'count', 'meta.__proto__': 'x' });
  assert.is(await a.text(), '0');
  const b = await post(base, '/search/acme/sales/f1', JSON.parse(`{"token":${JSON.stringify(acme)},"output":"count","meta":{"__proto__":"x"}}`));
  assert.is(await b.text(), '0');
  const c = await post(base, '/search/acme/sales/f1', JSON.parse(`{"token":${JSON.stringify(acme)},"output":"count","meta.__proto__":"x"}`));
  assert.is(await c.text(), '0');
});

test('details: the full documents as a JSON array', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales/f1', { token: acme, output: 'details', terms: 'colour' });
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(await res.json(), [{ tid: 't09', ...CORPUS[8]!.document }]);
});

test('zip: application/zip with the .json and .txt of each match', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales/f1', { token: acme, output: 'zip', terms: '"cancel my subscription"', zipfiles: 'text' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/zip');
  const buf = Buffer.from(await res.arrayBuffer());
  const names = await new Promise<string[]>((resolve, reject) =>
    yauzl.fromBuffer(buf, (err, zip) => {
      if (err) return reject(err);
      const out: string[] = [];
      zip!.on('entry', (e: yauzl.Entry) => out.push(e.fileName));
      zip!.on('end', () => resolve(out));
    }),
  );
  assert.equal(names, ['call-04.txt', 'call-01.txt']);
});

test('summary CSV: cells a spreadsheet would evaluate (= + - @ tab CR) are written as text; numbers stay numbers', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/support/f1', { token: acme, csv: '', requestid: 'req-formula', fields: 'tid,filename,metadata' });
  assert.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(
    await res.text(),
    'tid,filename,meta.a,meta.b,meta.c,meta.d,meta.e,meta.f,meta.g,meta.h,meta.i\r\n' +
      `x02,"'=HYPERLINK(""http://evil.example"",""open"")","'+1+1","'-2+3","'@SUM(A1)","'\tcmd","'\rcmd","'=1",a=b,-4,x-1\r\n`,
  );
});

test('summary CSV: text/html only for a client whose Accept excludes text/csv, with markup escaped', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/support/f1', { token: acme, csv: '', requestid: 'req-1', fields: 'tid,metadata' }, { accept: 'text/html' });
  assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(await res.text(), 'tid,meta.agent\r\nx01,&lt;script&gt;alert(1)&lt;/script&gt;\r\n');
  for (const accept of ['text/csv', 'text/*', 'text/html, */*;q=0.8', '']) {
    const r = await get(base, '/search/acme/support/f1', { token: acme, csv: '', requestid: 'req-1', fields: 'tid,metadata' }, accept ? { accept } : {});
    assert.is(r.headers.get('content-type'), 'text/csv; charset=utf-8', accept);
    assert.is(await r.text(), 'tid,meta.agent\r\nx01,<script>alert(1)</script>\r\n');
  }
});

test('JSON served as text/html cannot inject markup; responses carry a sandbox CSP', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/support/f1', { token: acme, fields: 'metadata', requestid: 'req-1' });
  const text = await res.text();
  assert.is(text, '[{"metadata":{"agent":"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"}}]');
  assert.equal(JSON.parse(text), [{ metadata: { agent: '<script>alert(1)</script>' } }]);
  assert.is(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
});

type H = Record<string, string>;
const errorCases: Array<[string, (c: { base: string; acme: string; other: string }, h: H) => Promise<Response>, number, string, string]> = [
  ['a missing token is 401', ({ base }, h) => get(base, '/search/acme/sales', {}, h), 401, 'BAD_TOKEN',
    'A token is required: pass token=&lt;your company token&gt; as a form field or query parameter, or send the header Authorization: Bearer &lt;token&gt;'],
  ['an unknown token is 401', ({ base }, h) => get(base, '/search/acme/sales', { token: '0'.repeat(32) }, h), 401, 'BAD_TOKEN',
    'The token is not valid: check it, or ask the operator for a new one (voxdex token rotate)'],
  ["another company's token is 403", ({ base, other }, h) => get(base, '/search/acme/sales', { token: other }, h), 403, 'FORBIDDEN',
    "This token may not act here: what the request names belongs to another company. Use that company's token."],
  ['an unknown org is 404', ({ base, acme }, h) => get(base, '/search/acme/nope', { token: acme }, h), 404, 'NOT_FOUND',
    'Organization nope does not exist in company acme: create it with voxdex org add'],
  ['a bad short name is 400', ({ base, acme }, h) => get(base, '/search/acme/sa%20les', { token: acme }, h), 400, 'BAD_NAME',
    'Expected a short name of 1-64 characters A-Z a-z 0-9 _ . - for org but received "sa les"'],
  ['a path without org is 404', ({ base, acme }, h) => get(base, '/search/acme', { token: acme }, h), 404, 'NOT_FOUND',
    'No such search path "/search/acme"; use /search/{CO_SHORT}/{ORG_SHORT}[/{FOLDERNAME}]'],
  ['bad terms are 400 BAD_QUERY', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, terms: '"refund' }, h), 400, 'BAD_QUERY',
    'Invalid terms: the quote at position 0 is not closed. See docs/search.md for the syntax.'],
  ['size 1001 is 400', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, size: '1001' }, h), 400, 'BAD_ARGUMENT',
    'Expected an integer between 0 and 1000 for size but received "1001"'],
  ['csv with details is 400', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, output: 'details', format: 'csv' }, h), 400, 'BAD_ARGUMENT',
    'The csv format applies to output=summary only, not output=details.'],
  ['an unknown option is 400', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, term: 'x' }, h), 400, 'UNKNOWN_PARAMETER',
    'Unknown option "term"; accepted: token, output, json, csv, format, terms, channel, speaker, role, from, to, duration, model, filename, requestid, meta.&lt;field&gt;, offset, size, sort, sortdir, fields, zipfiles, category, sentiment, overtalk, redacted.'],
  ['a bad from date is 400', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, from: '03/01/2024' }, h), 400, 'BAD_ARGUMENT',
    'Expected an ISO 8601 date or date-time (2024-05-01 or 2024-05-01T13:45:00Z) for from but received "03/01/2024"'],
  ['a bad duration is 400', ({ base, acme }, h) => get(base, '/search/acme/sales', { token: acme, duration: '60-30' }, h), 400, 'BAD_ARGUMENT',
    'Expected MIN not above MAX for duration but received "60-30"'],
  ['a POST body that is not JSON is 400', ({ base, acme }, h) =>
    fetch(`${base}/search/acme/sales?token=${acme}`, { method: 'POST', body: '{', headers: { 'content-type': 'application/json', ...h } }), 400, 'BAD_ARGUMENT',
    'The POST body is not valid JSON; send the search options as a JSON object.'],
];
for (const [title, call, status, code, message] of errorCases) {
  test(`errors: ${title} (text/html, or JSON with Accept: application/json)`, async (ctx) => {
    const res = await call(ctx, {});
    assert.is(res.status, status);
    assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.is(await res.text(), message);
    const json = await call(ctx, { accept: 'application/json' });
    assert.is(json.status, status);
    assert.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
    const plain = message.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    assert.equal(await json.json(), { error: { code, message: plain } });
  });
}

test('errors: JSON body with Accept: application/json', async ({ base, acme }) => {
  const res = await get(base, '/search/acme/sales', { token: acme, terms: 'a |' }, { accept: 'application/json' });
  assert.is(res.status, 400);
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(await res.json(), {
    error: { code: 'BAD_QUERY', message: 'Invalid terms: expected a word, phrase or "(" at the end. See docs/search.md for the syntax.' },
  });
});

/** An auth edge that lets everyone in as the root (for the handler's own checks). */
const anyone: Access = { authenticate: () => ({ kind: 'root' }), check: async () => ({ kind: 'root' }), record: async () => undefined };

test('errors: a method other than GET, POST, DELETE is 405 with Allow', async ({ base }) => {
  const handler = createSearchHandler({ index: {} as never, access: anyone, log: pino({ level: 'silent' }) });
  const app = createHttpApp(pino({ level: 'silent' }), (routes) => routes.add(['GET', 'POST', 'DELETE', 'PUT'], '/search/*', handler, SEARCH_ERRORS));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const port = (app.server!.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/search/acme/sales`, { method: 'PUT' });
    assert.is(res.status, 405);
    assert.is(res.headers.get('allow'), 'GET, POST, DELETE');
    assert.is(await res.text(), 'PUT is not allowed on /search; use GET, POST, DELETE.');
  } finally {
    await new Promise((resolve) => app.server!.close(resolve));
  }
  void base;
});

test('errors: a POST body over the limit is answered 413 TOO_LARGE, then the connection closes', async ({ base, acme }) => {
  const body = JSON.stringify({ token: acme, terms: 'x'.repeat(1100 * 1024) });
  const res = await fetch(`${base}/search/acme/sales`, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json' } });
  assert.is(res.status, 413);
  assert.is(res.headers.get('connection'), 'close');
  assert.equal(await res.json(), { error: { code: 'TOO_LARGE', message: 'The search request body is larger than 1048576 bytes; send fewer options.' } });
});

test('errors: an index that is not available is 503 with Retry-After', async () => {
  const closed = new SqliteTranscriptIndex({ file: path.join(dir, 'never-opened.sqlite') });
  const handler = createSearchHandler({ index: closed, access: anyone, log: pino({ level: 'silent' }) });
  const app = createHttpApp(pino({ level: 'silent' }), (routes) => routes.add(['GET', 'POST', 'DELETE'], '/search/*', handler, SEARCH_ERRORS));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  try {
    const port = (app.server!.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/search/acme/sales?output=count`);
    assert.is(res.status, 503);
    assert.is(res.headers.get('retry-after'), '30');
    assert.is(await res.text(), 'The search index is not open (the service is starting or stopping); retry shortly.');
  } finally {
    await new Promise((resolve) => app.server!.close(resolve));
  }
});

test('the root token searches any company', async ({ base }) => {
  const res = await get(base, '/search/other/sales', { token: ROOT, output: 'count' });
  assert.is(await res.text(), '1');
});

test('DELETE removes the listed tids inside the path and answers how many', async ({ base, acme, other }) => {
  const denied = await fetch(`${base}/search/acme/sales/f2?token=${other}&tid=t06`, { method: 'DELETE' });
  assert.is(denied.status, 403);
  const res = await fetch(`${base}/search/acme/sales/f2?token=${acme}&tid=t06,t01`, { method: 'DELETE' });
  assert.is(res.status, 200);
  assert.is(await res.text(), '1');
  const left = await get(base, '/search/acme/sales', { token: acme, output: 'count', terms: 'refund' });
  assert.is(await left.text(), '3');
  const noTid = await fetch(`${base}/search/acme/sales?token=${acme}`, { method: 'DELETE' });
  assert.is(noTid.status, 400);
  assert.is(await noTid.text(), 'Expected a comma list of 1 to 1000 transcript ids for tid but received nothing');
});

test('the token never reaches the log', async ({ logs, acme }) => {
  const all = logs.join('');
  assert.ok(all.includes('"msg":"search"'), 'searches are logged');
  assert.not.ok(all.includes(acme));
  assert.not.ok(all.includes(ROOT));
});

test.run();
