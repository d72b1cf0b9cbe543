/**
 * What a hostile probe found (issue 21), over real HTTP against a started service: repeated form
 * fields, reserved paths, an unknown company on /transcribe/requests, a malformed Host header, and a
 * zip holding one name twice.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir, run } from '../fixtures/make-audio.js';
import { getJson, startInProcess, waitResult } from './harness.js';

const edges = suite('e2e: edges (issue 21)');
const ctx = {} as { dir: string; svc: Service; url: string; acme: string; globex: string; root: string; wav: string; wav2: string };

edges.before(async () => {
  ctx.dir = makeTempDir('voxdex-edges-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_ASR_THREADS: '1', VOXDEX_RATE_LIMIT_PER_MIN: '0' });
  ctx.url = ctx.svc.url;
  ctx.acme = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.globex = (await ctx.svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbound' }))).token;
  ctx.root = readFileSync(ctx.svc.config.rootTokenFile, 'utf8').trim();
  ctx.wav = await makeWav(ctx.dir, { name: 'hello.wav', rate: 8000, text: 'hello' });
  ctx.wav2 = await makeWav(ctx.dir, { name: 'bye.wav', rate: 16000, text: 'good bye' });
});

edges.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

/** POST a multipart form whose fields may repeat (in order), with the file last. */
async function post(fields: Array<[string, string]>, o: { path?: string; query?: string; file?: string } = {}) {
  const fd = new FormData();
  for (const [k, v] of fields) fd.append(k, v);
  fd.append('file', new Blob([readFileSync(o.file ?? ctx.wav)]), path.basename(o.file ?? ctx.wav));
  return getJson(`${ctx.url}${o.path ?? '/transcribe'}${o.query ? `?${o.query}` : ''}`, { method: 'POST', body: fd });
}

/** A GET with a Host header of our choosing (fetch does not let one set Host). */
function getWithHost(pathAndQuery: string, host: string): Promise<{ status: number; body: any }> {
  const u = new URL(ctx.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: pathAndQuery, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

edges('a repeated single-valued form field is 400 naming it; nothing is queued (21.3)', async () => {
  const before = await ctx.svc.store.countByState();
  const twice = (name: string) => ({ code: 'BAD_ARGUMENT', message: `The parameter "${name}" was given more than once; give it once.` });
  const cases: Array<[string, Awaited<ReturnType<typeof post>>, string]> = [
    ['two company tokens', await post([['token', ctx.acme], ['token', ctx.globex]]), 'token'],
    ['an invalid token, then a valid one', await post([['token', 'not-a-token-0000'], ['token', ctx.acme]]), 'token'],
    ['the token in the query and in the form', await post([['token', ctx.globex]], { query: `token=${ctx.acme}` }), 'token'],
    ['the token twice in the query', await post([], { query: `token=${ctx.acme}&token=${ctx.globex}` }), 'token'],
    ['model twice', await post([['token', ctx.acme], ['model', 'auto'], ['model', 'en-us']]), 'model'],
    ['output twice', await post([['token', ctx.acme], ['output', 'json'], ['output', 'text']]), 'output'],
    ['callback twice', await post([['token', ctx.acme], ['callback', 'http://127.0.0.1:1/a'], ['callback', 'http://127.0.0.1:1/b']]), 'callback'],
    ['metadata twice', await post([['token', ctx.acme], ['metadata', '{}'], ['metadata', '{}']]), 'metadata'],
  ];
  for (const [what, r, name] of cases) assert.equal([r.status, r.body.error], [400, twice(name)], what);
  const result = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&token=${ctx.acme}&requestid=6f1c1d0e-8a4b-4c2d-9e3f-0a1b2c3d4e5f`);
  assert.equal([result.status, result.body.error], [400, twice('token')]);
  assert.equal(await ctx.svc.store.countByState(), before);
});

edges('reserved paths are not uploads: another method there is 405 with Allow (21.7)', async () => {
  const id = '6f1c1d0e-8a4b-4c2d-9e3f-0a1b2c3d4e5f';
  const before = await ctx.svc.store.countByState();
  for (const [p, allow] of [
    [`/transcribe/download/${id}/audio`, 'GET, HEAD'],
    [`/transcribe/result/${id}`, 'GET'],
    [`/transcribe/${id}/result`, 'GET'],
    [`/transcribe/${id}/audio`, 'GET'],
  ] as const) {
    const r = await post([['token', ctx.root]], { path: p });
    assert.is(r.status, 405, p);
    assert.is(r.headers.get('allow'), allow, p);
    assert.equal(r.body.error, { code: 'METHOD_NOT_ALLOWED', message: `POST is not allowed on ${p}; use ${allow.split(', ').join(' or ')}` });
  }
  // The upload routes themselves still take any company, org and folder names.
  const ok = await post([['token', ctx.root]], { path: '/transcribe/acme/sales/calls' });
  assert.is(ok.status, 200);
  assert.ok(await waitResult(ctx.url, ctx.acme, ok.body.requestid));
  assert.not.equal(await ctx.svc.store.countByState(), before);
});

edges('GET /transcribe/requests?company= names an unknown company: 404 (21.9)', async () => {
  const r = await getJson(`${ctx.url}/transcribe/requests?company=nope`, { headers: { Authorization: `Bearer ${ctx.root}` } });
  assert.equal([r.status, r.body.error], [404, { code: 'NOT_FOUND', message: 'Company nope does not exist; voxdex company list shows those that do' }]);
  const known = await getJson(`${ctx.url}/transcribe/requests?company=globex`, { headers: { Authorization: `Bearer ${ctx.root}` } });
  assert.equal([known.status, known.body.requests], [200, []]);
  // A company token naming another company, existing or not, learns nothing: 403.
  const other = await getJson(`${ctx.url}/transcribe/requests?company=nope`, { headers: { Authorization: `Bearer ${ctx.acme}` } });
  assert.is(other.status, 403);
});

edges('a malformed Host header never reaches a link: 400; a valid one is the link origin (21.12)', async () => {
  const up = await post([['token', ctx.acme]]);
  assert.is(up.status, 200);
  assert.is((await waitResult(ctx.url, ctx.acme, up.body.requestid)).status, 200);
  const q = `/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}`;
  for (const host of ['a"b<c>', 'a b', 'x.example:99999', 'x.example:80:80', '[not-v6]', 'x.example/evil', '-x.example']) {
    const r = await getWithHost(q, host);
    assert.is(r.status, 400, host);
    assert.is(r.body.error.code, 'BAD_ARGUMENT', host);
    assert.match(r.body.error.message, /^The Host header .* is not a host name or IP address with an optional port/);
  }
  for (const host of ['voxdex.example.org:8443', '10.0.0.7', '[::1]:8017']) {
    const r = await getWithHost(q, host);
    assert.is(r.status, 200, host);
    assert.ok(r.body.startsWith(`http://${host}/transcribe/download/${up.body.requestid}?expires=`), r.body);
  }
  const audio = await getWithHost(`/transcribe/${up.body.requestid}/audio?token=${ctx.acme}`, 'a"b<c>');
  assert.is(audio.status, 400);
});

edges('a zip holding one name twice transcribes both copies under distinct names; files.total counts both (21.6)', async () => {
  const zip = path.join(ctx.dir, 'dups.zip');
  const script = [
    'import sys, zipfile, warnings',
    'warnings.simplefilter("ignore")',
    'with zipfile.ZipFile(sys.argv[1], "w") as z:',
    '    z.writestr("same.wav", open(sys.argv[2], "rb").read())',
    '    z.writestr("same.wav", open(sys.argv[3], "rb").read())',
  ].join('\n');
  await run('python3', ['-c', script, zip, ctx.wav, ctx.wav2]);
  const up = await post([['token', ctx.acme], ['output', 'json']], { file: zip });
  assert.is(up.status, 200);
  assert.is((await waitResult(ctx.url, ctx.acme, up.body.requestid)).status, 200);
  const status = await getJson(`${ctx.url}/transcribe/requests`, { headers: { Authorization: `Bearer ${ctx.acme}` } });
  const mine = status.body.requests.find((r: any) => r.requestid === up.body.requestid);
  assert.equal(mine.files, { total: 2, done: 2, failed: 0 });
  const res = await fetch(`${ctx.url}/transcribe/${up.body.requestid}/result?token=${ctx.acme}`);
  const resultZip = path.join(ctx.dir, 'dups-result.zip');
  writeFileSync(resultZip, Buffer.from(await res.arrayBuffer()));
  const names = await run('python3', ['-c', 'import sys, zipfile; print(" ".join(sorted(zipfile.ZipFile(sys.argv[1]).namelist())))', resultZip]);
  assert.is(names.trim(), 'same.json same_1.json');
});

edges.run();
