/**
 * The endpoints the web UI added (docs/ui.md), over real HTTP against a started server with real
 * speech: the playable audio (signed links, inline, range requests, conversion equal to SoX, auth,
 * 404s, archive members), `Authorization: Bearer`, GET /account and GET /transcribe/requests.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, makeZip, removeDir, run } from '../fixtures/make-audio.js';
import { makePromptCall } from '../fixtures/prompt-call.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const au = suite('e2e: audio, Bearer tokens, account and requests');
let dir = '';
let svc: Service;
let acme = '';
let globex = '';
let root = '';
let call = '';
/** Short stereo tones: where only the audio matters, not what is said (keeps ASR time small). */
let toneA = '';
let toneB = '';
let single = '';
let archive = '';
let globexRequest = '';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function fetchBytes(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const r = await fetch(url, init);
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

/** What SoX makes of the file: 16-bit PCM, all channels / one (0-based) / the mix. */
async function sox(file: string, channel: 'all' | 'mix' | number): Promise<Buffer> {
  const out = path.join(dir, `sox-${path.basename(file, '.wav')}-${channel}.wav`);
  const effect = channel === 'all' ? [] : channel === 'mix' ? ['remix', '-'] : ['remix', String(channel + 1)];
  await run('sox', [file, '-D', '-b', '16', '-e', 'signed-integer', out, ...effect]);
  return readFileSync(out);
}

async function link(id: string, query: Record<string, string>, token = acme): Promise<string> {
  const r = await getJson(`${svc.url}/transcribe/${id}/audio?${new URLSearchParams(query)}`, { headers: bearer(token) });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.type(r.body, 'string');
  return r.body as string;
}

au.before(async () => {
  dir = makeTempDir('voxdex-audio-http-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  globex = (await svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbox' }))).token;
  root = readFileSync(path.join(dir, 'data', 'root.token'), 'utf8').trim();
  call = await makePromptCall(dir, { name: 'call.wav' });
  toneA = await makeWav(dir, { name: 'member-a.wav', rate: 16000, channels: 2, encoding: 'pcm_s24', tone: 440, seconds: 1 });
  toneB = await makeWav(dir, { name: 'member-b.wav', rate: 8000, channels: 3, encoding: 'alaw', tone: 300, seconds: 1 });
  const zip = await makeZip(dir, 'calls.zip', [{ path: toneA, name: 'a/member-a.wav' }, { path: toneB }]);
  const up1 = await upload(svc.url, { file: call, fields: { token: acme } });
  const up2 = await upload(svc.url, { file: zip, fields: { token: acme } });
  const up3 = await upload(svc.url, { file: toneB, name: 'globex-only.wav', fields: { token: globex } });
  single = up1.body.requestid;
  archive = up2.body.requestid;
  globexRequest = up3.body.requestid;
  for (const [id, token] of [[single, acme], [archive, acme], [globexRequest, globex]] as const) {
    assert.is((await waitResult(svc.url, token, id, 120_000)).status, 200);
  }
});

au.after(async () => {
  await svc?.close();
  removeDir(dir);
});

au('a signed link plays the recording as 16-bit PCM WAV equal to SoX, mixed, per channel and stereo', async () => {
  for (const channel of ['mix', 0, 1, 'all'] as const) {
    const url = await link(single, { channel: String(channel) });
    assert.match(url, new RegExp(`^${svc.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/transcribe/download/${single}/audio\\?`));
    assert.not.match(url, acme);
    const r = await fetchBytes(url);
    assert.is(r.status, 200);
    assert.is(r.headers.get('content-type'), 'audio/wav');
    assert.is(r.headers.get('accept-ranges'), 'bytes');
    assert.is(r.headers.get('cache-control'), 'private, no-store');
    assert.is(r.headers.get('content-disposition'), `inline; filename="call-${channel}.wav"`);
    const ref = await sox(call, channel);
    assert.is(r.body.length, ref.length, `channel ${channel}`);
    assert.ok(r.body.equals(ref), `channel ${channel}: the bytes differ from SoX's file`);
  }
});

au('answers range requests with 206 and the exact bytes; a range past the end is 416', async () => {
  const url = await link(single, { channel: 'mix' });
  const whole = (await fetchBytes(url)).body;
  const size = whole.length;
  const cases: [string, number, number][] = [
    ['bytes=0-43', 0, 43],
    ['bytes=1000-1999', 1000, 1999],
    ['bytes=44-', 44, size - 1],
    ['bytes=-100', size - 100, size - 1],
    [`bytes=${size - 10}-${size + 500}`, size - 10, size - 1],
  ];
  for (const [range, a, b] of cases) {
    const r = await fetchBytes(url, { headers: { Range: range } });
    assert.is(r.status, 206, range);
    assert.is(r.headers.get('content-range'), `bytes ${a}-${b}/${size}`);
    assert.is(Number(r.headers.get('content-length')), b - a + 1);
    assert.ok(r.body.equals(whole.subarray(a, b + 1)), range);
  }
  const extra = await getJson(`${url}&volume=11`);
  assert.is(extra.status, 400);
  assert.is(extra.body.error.code, 'UNKNOWN_PARAMETER');
  const past = await fetchBytes(url, { headers: { Range: `bytes=${size}-` } });
  assert.is(past.status, 416);
  assert.is(past.headers.get('content-range'), `bytes */${size}`);
  assert.is(JSON.parse(past.body.toString()).error.code, 'RANGE_NOT_SATISFIABLE');
  const several = await fetchBytes(url, { headers: { Range: 'bytes=0-1,5-9' } });
  assert.is(several.status, 200, 'several ranges: the whole file');
  assert.is(several.body.length, size);
  const head = await fetchBytes(url, { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(Number(head.headers.get('content-length')), size);
  assert.is(head.body.length, 0);
});

au('inline=true returns the audio itself to a token holder (query token or Bearer)', async () => {
  const viaQuery = await fetchBytes(`${svc.url}/transcribe/${single}/audio?token=${acme}&channel=1&inline=1`);
  assert.is(viaQuery.status, 200);
  assert.ok(viaQuery.body.equals(await sox(call, 1)));
  const ranged = await fetchBytes(`${svc.url}/transcribe/${single}/audio?channel=1&inline=true`, { headers: { ...bearer(acme), Range: 'bytes=100-199' } });
  const badInline = await getJson(`${svc.url}/transcribe/${single}/audio?inline=yes`, { headers: bearer(acme) });
  assert.is(badInline.status, 400);
  assert.is(badInline.body.error.message, 'Expected true or false for inline but received "yes"');
  assert.is(ranged.status, 206);
  assert.ok(ranged.body.equals(viaQuery.body.subarray(100, 200)));
});

au('an archive member is addressed by its name and plays its own audio', async () => {
  const a = await fetchBytes(await link(archive, { file: 'a/member-a.wav', channel: 'all' }));
  assert.is(a.status, 200);
  assert.ok(a.body.equals(await sox(toneA, 'all')));
  const b = await fetchBytes(await link(archive, { file: 'member-b.wav', channel: 'mix' }));
  assert.is(b.status, 200);
  assert.ok(b.body.equals(await sox(toneB, 'mix')));
  const b2 = await fetchBytes(await link(archive, { file: 'member-b.wav', channel: '2' }));
  assert.ok(b2.body.equals(await sox(toneB, 2)));
  const none = await getJson(`${svc.url}/transcribe/${archive}/audio`, { headers: bearer(acme) });
  assert.is(none.status, 400);
  assert.is(none.body.error.code, 'BAD_ARGUMENT');
  assert.match(none.body.error.message, /archive: name the member to play in file=/);
  const missing = await getJson(`${svc.url}/transcribe/${archive}/audio?file=nope.wav`, { headers: bearer(acme) });
  assert.is(missing.status, 404);
  assert.is(missing.body.error.message, `Request ${archive} has no file "nope.wav"`);
});

au('refuses without a token (401), with another company\u2019s token (403), and for what does not exist (404)', async () => {
  const no = await getJson(`${svc.url}/transcribe/${single}/audio`);
  assert.is(no.status, 401);
  assert.is(no.body.error.code, 'BAD_TOKEN');
  const other = await getJson(`${svc.url}/transcribe/${single}/audio`, { headers: bearer(globex) });
  assert.is(other.status, 403);
  assert.is(other.body.error.code, 'FORBIDDEN');
  const unknown = await getJson(`${svc.url}/transcribe/00000000-0000-4000-8000-000000000000/audio`, { headers: bearer(acme) });
  assert.is(unknown.status, 404);
  const wrongFile = await getJson(`${svc.url}/transcribe/${single}/audio?file=other.wav`, { headers: bearer(acme) });
  assert.is(wrongFile.status, 404);
  assert.is(wrongFile.body.error.message, `Request ${single} holds one file, "call.wav", not "other.wav"`);
  const badChannel = await getJson(`${svc.url}/transcribe/${single}/audio?channel=2`, { headers: bearer(acme) });
  assert.is(badChannel.status, 400);
  assert.match(badChannel.body.error.message, /has 2 channel\(s\), numbered from 0; channel 2 does not exist/);
  const junk = await getJson(`${svc.url}/transcribe/${single}/audio?channel=left`, { headers: bearer(acme) });
  assert.is(junk.status, 400);
  const unknownParam = await getJson(`${svc.url}/transcribe/${single}/audio?volume=11`, { headers: bearer(acme) });
  assert.is(unknownParam.status, 400);
  assert.is(unknownParam.body.error.code, 'UNKNOWN_PARAMETER');
  // The root token may play every company's audio.
  const asRoot = await fetchBytes(await link(globexRequest, { channel: 'mix' }, root));
  assert.is(asRoot.status, 200);
});

au('a link whose signature, channel or file was changed, or that expired, is 401; a deleted request 404', async () => {
  const url = new URL(await link(single, { channel: 'mix' }));
  const tamper = async (change: (u: URL) => void) => {
    const u = new URL(url);
    change(u);
    return getJson(u.href);
  };
  for (const change of [
    (u: URL) => u.searchParams.set('sig', '0'.repeat(64)),
    (u: URL) => u.searchParams.set('channel', '0'),
    (u: URL) => u.searchParams.set('file', 'call.wav'),
    (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 1)),
    (u: URL) => u.searchParams.set('by', 'root'),
  ]) {
    const r = await tamper(change);
    assert.is(r.status, 401);
    assert.is(r.body.error.message, 'This audio link is not valid; ask GET /transcribe/{requestid}/audio for a new one');
  }
  // An expired link signed with the server's own key (as the server would have, an hour ago).
  const secret = readFileSync(path.join(dir, 'data', 'url.secret'), 'utf8').trim();
  const expires = Math.floor(Date.now() / 1000) - 10;
  const sig = createHmac('sha256', secret).update(`audio\n${single}\n\nmix\n${expires}\nroot`).digest('hex');
  const expired = await getJson(`${svc.url}/transcribe/download/${single}/audio?channel=mix&expires=${expires}&by=root&sig=${sig}`);
  assert.is(expired.status, 401);
  assert.is(expired.body.error.message, 'This audio link has expired; ask GET /transcribe/{requestid}/audio for a new one');

  const extra = await upload(svc.url, { file: toneA, name: 'to-delete.wav', fields: { token: acme } });
  assert.is((await waitResult(svc.url, acme, extra.body.requestid, 120_000)).status, 200);
  const doomed = await link(extra.body.requestid, { channel: 'mix' });
  const del = await getJson(`${svc.url}/transcribe/result`, { method: 'DELETE', body: new URLSearchParams({ requestid: extra.body.requestid }), headers: bearer(acme) });
  assert.is(del.status, 200);
  const gone = await getJson(doomed);
  assert.is(gone.status, 404);
});

au('Authorization: Bearer works on /search and /transcribe; two different tokens are refused', async () => {
  const s = await getJson(`${svc.url}/search/acme/sales?terms=password&output=count`, { headers: { ...bearer(acme), Accept: 'application/json' } });
  assert.is(s.status, 200);
  assert.ok(Number(s.body) >= 1, `count ${s.body}`);
  const r = await getJson(`${svc.url}/transcribe/result?requestid=${single}`, { headers: bearer(acme) });
  assert.is(r.status, 200);
  const both = await getJson(`${svc.url}/transcribe/result?requestid=${single}&token=${globex}`, { headers: bearer(acme) });
  assert.is(both.status, 400);
  assert.is(both.body.error.message, 'Two different tokens were sent (the Authorization header and the token parameter); send the token once');
  const same = await getJson(`${svc.url}/transcribe/result?requestid=${single}&token=${acme}`, { headers: bearer(acme) });
  assert.is(same.status, 200);
  const basic = await getJson(`${svc.url}/transcribe/result?requestid=${single}`, { headers: { Authorization: `Basic ${Buffer.from(`x:${acme}`).toString('base64')}` } });
  assert.is(basic.status, 401);
  assert.is(basic.body.error.message, 'The Authorization header must be "Bearer <token>" with the company or root token');
  const other = await getJson(`${svc.url}/search/acme/sales?terms=password`, { headers: { ...bearer(globex), Accept: 'application/json' } });
  assert.is(other.status, 403);
});

au('GET /account lists what the token may see: its own company, or every company for root', async () => {
  const a = await getJson(`${svc.url}/account`, { headers: bearer(acme) });
  assert.is(a.status, 200);
  assert.is(a.headers.get('cache-control'), 'no-store');
  assert.is(a.body.principal, 'company');
  assert.is(a.body.company, 'acme');
  assert.equal(a.body.companies.map((c: { company: string }) => c.company), ['acme']);
  assert.equal(a.body.companies[0].defaultDestination, { org: 'sales', folder: 'calls' });
  assert.equal(a.body.companies[0].orgs, [{ org: 'sales', folders: ['calls'] }]);
  assert.equal(a.body.companies[0].models, ['auto', ...svc.transcriber!.registry.list().filter((m) => m !== 'auto')]);
  assert.equal(a.body.companies[0].settings, {});
  assert.equal(a.body.installedModels, svc.transcriber!.registry.list());
  const r = await getJson(`${svc.url}/account`, { headers: bearer(root) });
  assert.is(r.body.principal, 'root');
  assert.is(r.body.company, undefined);
  assert.equal(r.body.companies.map((c: { company: string }) => c.company), ['acme', 'globex']);
  const bad = await getJson(`${svc.url}/account`, { headers: bearer('0'.repeat(32)) });
  assert.is(bad.status, 401);
});

au('GET /transcribe/requests lists a company\u2019s own recent requests, newest first, with status and per-file errors', async () => {
  const bad = await makeZip(dir, 'half-bad.zip', [{ path: toneA, name: 'good.wav' }, { path: path.join(dir, 'calls.zip'), name: 'nested.zip' }]);
  const up = await upload(svc.url, { file: bad, fields: { token: acme } });
  assert.is((await waitResult(svc.url, acme, up.body.requestid, 120_000)).status, 200);
  const mine = await getJson(`${svc.url}/transcribe/requests`, { headers: bearer(acme) });
  assert.is(mine.status, 200);
  assert.is(mine.body.more, false);
  const ids = mine.body.requests.map((r: { requestid: string }) => r.requestid);
  assert.is(ids[0], up.body.requestid, 'newest first');
  assert.ok(ids.includes(single) && ids.includes(archive));
  assert.not.ok(ids.includes(globexRequest), 'another company\u2019s request is not listed');
  const first = mine.body.requests[0];
  assert.is(first.state, 'done');
  assert.is(first.source, 'half-bad.zip');
  assert.is(first.kind, 'archive');
  assert.equal(first.destination, { company: 'acme', org: 'sales', folder: 'calls' });
  assert.equal(first.files, { total: 2, done: 1, failed: 1 });
  assert.is(first.fileErrors.length, 1);
  assert.is(first.fileErrors[0].file, 'nested.zip');
  assert.is(first.fileErrors[0].error.code, 'NESTED_ARCHIVE');
  const page = await getJson(`${svc.url}/transcribe/requests?limit=1&offset=1`, { headers: bearer(acme) });
  assert.equal(page.body.requests.map((r: { requestid: string }) => r.requestid), [ids[1]]);
  assert.is(page.body.more, true);
  const all = await getJson(`${svc.url}/transcribe/requests?limit=200`, { headers: bearer(root) });
  assert.ok(all.body.requests.some((r: { requestid: string }) => r.requestid === globexRequest));
  const onlyGlobex = await getJson(`${svc.url}/transcribe/requests?company=globex`, { headers: bearer(root) });
  assert.equal(onlyGlobex.body.requests.map((r: { requestid: string }) => r.requestid), [globexRequest]);
  const forbidden = await getJson(`${svc.url}/transcribe/requests?company=globex`, { headers: bearer(acme) });
  assert.is(forbidden.status, 403);
  const badLimit = await getJson(`${svc.url}/transcribe/requests?limit=0`, { headers: bearer(acme) });
  assert.is(badLimit.status, 400);
  assert.is(badLimit.body.error.message, 'Expected an integer between 1 and 200 for limit but received "0"');
});

au.run();
