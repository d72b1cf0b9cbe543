/**
 * End to end over real HTTP against a started service (createService on port 0, real ASR models):
 * submit → poll → result in every output format, archives, callbacks, cancel, delete, and each error
 * status of the contract.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { verifySignature } from '../../src/callbacks/signature.js';
import type { Service } from '../../src/service.js';
import { ASTERISK_PROMPT, make7z, makeCall, makeTempDir, makeWav, makeZip, removeDir, run } from '../fixtures/make-audio.js';
import { getJson, readZip, startInProcess, startReceiver, upload, waitResult } from './harness.js';
import { openSqlite } from '../../src/store/sqlite/sqlite.js';
import { jobStorePath } from '../../src/store/sqlite/sqlite-job-store.js';

const e2e = suite('e2e: transcribe');

const ctx = {} as {
  dir: string;
  svc: Service;
  url: string;
  acme: string;
  acmeSecret: string;
  globex: string;
  tight: string;
  root: string;
  call: string;
  pcm8: string;
  zip: string;
  sevenZip: string;
  long: string;
};

e2e.before(async () => {
  ctx.dir = makeTempDir('voxdex-e2e-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_MAX_UPLOAD_MIB: '1', VOXDEX_ASR_THREADS: '2' });
  ctx.url = ctx.svc.url;
  const a = await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));
  ctx.acme = a.token;
  ctx.acmeSecret = a.callbackSecret;
  await ctx.svc.tenancy.change((t) => t.addFolder('acme', 'support', 'q4'));
  ctx.globex = (await ctx.svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbound' }))).token;
  ctx.tight = (await ctx.svc.tenancy.change((t) => t.addCompany('tight', { org: 'o', folder: 'f', models: ['en-us'] }))).token;
  ctx.root = readFileSync(ctx.svc.config.rootTokenFile, 'utf8').trim();
  ctx.call = await makeCall(ctx.dir, { seconds: 6, encoding: 'mulaw', name: 'call-0042.wav' });
  ctx.pcm8 = await makeWav(ctx.dir, { rate: 8000, encoding: 'pcm_u8', text: 'please hold the line', name: 'hold-u8.wav' });
  const member2 = await makeWav(ctx.dir, { rate: 16000, encoding: 'pcm_s16', text: 'good morning', name: 'morning.wav' });
  const notAudio = path.join(ctx.dir, 'notes.txt');
  writeFileSync(notAudio, 'this is not audio\n');
  writeFileSync(path.join(ctx.dir, 'morning.json'), JSON.stringify({ agent: 'bob' }));
  ctx.zip = await makeZip(ctx.dir, 'calls.zip', [ctx.pcm8, member2, path.join(ctx.dir, 'morning.json'), notAudio]);
  ctx.sevenZip = await make7z(ctx.dir, 'calls.7z', [ctx.call, ASTERISK_PROMPT, notAudio], { password: 's3cret', encryptHeaders: true });
  ctx.long = await makeCall(ctx.dir, { seconds: 40, encoding: 'alaw', name: 'long-call.wav' });
});

e2e.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

e2e('transcribes a mu-law stereo call: 202 while not done, then a signed URL to the JSON document', async () => {
  const up = await upload(ctx.url, { file: ctx.call, fields: { token: ctx.acme, metadata: '{"agent":"alice"}', datetime: '2026-11-20T09:30:00Z' } });
  assert.is(up.status, 200);
  assert.match(up.body.requestid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const first = await getJson(`${ctx.url}/transcribe/result/${up.body.requestid}?token=${ctx.acme}`);
  assert.ok(first.status === 202 || first.status === 200);
  if (first.status === 202) {
    assert.equal(Object.keys(first.body).slice(0, 6), ['requestid', 'state', 'queuePosition', 'files', 'progress', 'etaSeconds']);
    assert.equal(first.body.files.total, 1);
  }
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  assert.is(r.status, 200);
  assert.type(r.body, 'string');
  assert.match(r.body, new RegExp(`^http://127\\.0\\.0\\.1:${ctx.svc.port}/transcribe/download/${up.body.requestid}\\?expires=\\d+&sig=[0-9a-f]{64}$`));
  const file = await fetch(r.body);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'application/json; charset=utf-8');
  const doc = (await file.json()) as any;
  assert.is(doc.requestid, up.body.requestid);
  assert.is(doc.source, 'call-0042.wav');
  assert.is(doc.nchannels, 2);
  assert.is(doc.model, ctx.svc.transcriber!.registry.resolve('auto', 8000).name); // auto: the telephone-band model when installed
  assert.match(doc.asr, /^voxdex \d+\.\d+\.\d+/);
  assert.equal(doc.streamtags, { metadata: { agent: 'alice' } });
  assert.equal(doc.chaninfo.map((c: any) => c.channel), [0, 1]);
  assert.ok(Math.abs(doc.audiosecs - 6) < 0.01, `audiosecs ${doc.audiosecs}`);
  const channels = new Set(doc.utterances.map((u: any) => u.metadata.channel));
  assert.equal([...channels].sort(), [0, 1]);
  for (const u of doc.utterances) {
    assert.is(u.metadata.source, 'call-0042.wav');
    assert.ok(u.events.length > 0 && u.start <= u.end);
  }
  // inline takes true/false (or 1/0) only; the signed link takes no other parameters (both found by the API fuzzer).
  const inlineBad = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}&inline=yes`);
  assert.equal([inlineBad.status, inlineBad.body.error], [400, { code: 'BAD_ARGUMENT', message: 'Expected true or false for inline but received "yes"' }]);
  const inline1 = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}&inline=1`);
  assert.is(inline1.body.requestid, up.body.requestid);
  const extra = await getJson(`${r.body}&token=${ctx.acme}`);
  assert.equal([extra.status, extra.body.error.code], [400, 'UNKNOWN_PARAMETER']);
  // A tampered link is refused.
  const bad = await getJson(r.body.replace(/sig=[0-9a-f]/, (m: string) => (m.endsWith('0') ? 'sig=1' : 'sig=0')));
  assert.is(bad.status, 401);
  assert.is(bad.body.error.code, 'BAD_TOKEN');
  // A correctly signed link past its expiry is refused too.
  const secret = readFileSync(path.join(ctx.svc.config.dataDir, 'url.secret'), 'utf8').trim();
  const past = Math.floor(Date.now() / 1000) - 10;
  const sig = createHmac('sha256', secret).update(`${up.body.requestid}.${past}`).digest('hex');
  const expired = await getJson(`${ctx.url}/transcribe/download/${up.body.requestid}?expires=${past}&sig=${sig}`);
  assert.is(expired.status, 401);
  const expiredMessage = `This result link expired at ${new Date(past * 1000).toISOString()}; ask GET /transcribe/result for a new one`;
  assert.equal(expired.body.error, { code: 'BAD_TOKEN', message: expiredMessage });
  // A link whose time has passed says so, also when the client has touched it (e.g. its expires, or a signature cut off by a mail client).
  const link = new URL(r.body);
  link.searchParams.set('expires', String(past));
  const edited = await getJson(link.href);
  assert.equal([edited.status, edited.body.error.message], [401, expiredMessage]);
  const cut = await getJson(`${ctx.url}/transcribe/download/${up.body.requestid}?expires=${past}&sig=${sig.slice(0, 20)}`);
  assert.equal([cut.status, cut.body.error.message], [401, expiredMessage]);
  assert.equal(bad.body.error.message, 'This result link is not valid (its signature does not match); ask GET /transcribe/result for a new one');
  // The call is searchable in its company's default folder.
  const count = await getJson(`${ctx.url}/search/acme/sales/calls?token=${ctx.acme}&output=count&requestid=${up.body.requestid}`);
  assert.is(count.status, 200);
  assert.is(String(count.body).trim(), '1');
});

e2e('returns an 8-bit PCM file as text, the same inline and at /transcribe/{id}/result', async () => {
  const up = await upload(ctx.url, { file: ctx.pcm8, query: { token: ctx.acme, output: 'text' } });
  assert.is(up.status, 200);
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  assert.is(r.status, 200);
  const viaUrl = await (await fetch(r.body)).text();
  const inline = await fetch(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}&inline=true`);
  assert.is(inline.headers.get('content-type'), 'text/plain; charset=utf-8');
  const direct = await fetch(`${ctx.url}/transcribe/${up.body.requestid}/result?token=${ctx.acme}`);
  const inlineText = await inline.text();
  assert.is(inlineText, viaUrl);
  assert.is(await direct.text(), viaUrl);
  assert.match(viaUrl, /^(\[\d\d:\d\d\] [A-Z0-9][^\n]*\n)+$/); // one channel: `[mm:ss] text` per utterance, no speaker
});

e2e('renders jsontop: top-level fields with one text field and no utterances', async () => {
  const up = await upload(ctx.url, { file: ctx.call, fields: { token: ctx.acme, output: 'jsontop' } });
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  const doc = (await (await fetch(r.body)).json()) as any;
  assert.is(doc.utterances, undefined);
  assert.type(doc.text, 'string');
  for (const line of doc.text.split('\n')) assert.match(line, /^\[\d\d:\d\d\] (Agent|Customer): \S/);
  assert.is(doc.nchannels, 2);
  assert.is(doc.requestid, up.body.requestid);
});

e2e('transcribes a zip into a zip of per-file transcripts plus errors.json for the bad member', async () => {
  const up = await upload(ctx.url, { file: ctx.zip, fields: { token: ctx.acme, output: 'json' } });
  assert.is(up.status, 200);
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  assert.is(r.status, 200);
  const res = await fetch(`${ctx.url}/transcribe/${up.body.requestid}/result?token=${ctx.acme}`);
  assert.is(res.headers.get('content-type'), 'application/zip');
  const files = await readZip(Buffer.from(await res.arrayBuffer()));
  assert.equal(Object.keys(files).sort(), ['errors.json', 'hold-u8.json', 'morning.json']);
  const errors = JSON.parse(files['errors.json']!);
  assert.is(errors.length, 1);
  assert.is(errors[0].file, 'notes.txt');
  assert.is(errors[0].error.code, 'NOT_AUDIO');
  const morning = JSON.parse(files['morning.json']!);
  assert.equal(morning.streamtags, { metadata: { agent: 'bob' } });
  assert.is(morning.source, 'morning.wav');
  const status = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}`);
  assert.is(status.status, 200);
});

e2e('transcribes an encrypted 7z given zpass and refuses a wrong password before queueing', async () => {
  const wrong = await upload(ctx.url, { file: ctx.sevenZip, fields: { token: ctx.acme, zpass: 'nope' } });
  assert.is(wrong.status, 400);
  assert.is(wrong.body.error.code, 'BAD_ZPASS');
  const none = await upload(ctx.url, { file: ctx.sevenZip, fields: { token: ctx.acme } });
  assert.is(none.status, 400);
  assert.is(none.body.error.code, 'BAD_ZPASS');
  const up = await upload(ctx.url, { file: ctx.sevenZip, fields: { token: ctx.acme, zpass: 's3cret', output: 'text' } });
  assert.is(up.status, 200);
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  assert.is(r.status, 200);
  const files = await readZip(Buffer.from(await (await fetch(r.body)).arrayBuffer()));
  assert.equal(Object.keys(files).sort(), ['activated.txt', 'call-0042.txt', 'errors.json']);
  for (const line of files['call-0042.txt']!.trim().split('\n')) assert.match(line, /^\[\d\d:\d\d\] (Agent|Customer): /);
  assert.equal(JSON.parse(files['errors.json']!).map((e: any) => e.file), ['notes.txt']);
  assert.is((await ctx.svc.store.get(up.body.requestid))!.zpass, undefined); // the password is not kept after the job
});

e2e('POSTs the result to the callback URL, signed with the company secret', async () => {
  const rx = await startReceiver();
  try {
    const up = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.acme, callback: `${rx.url}/hook`, output: 'text' } });
    const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
    assert.is(r.status, 200);
    for (let i = 0; i < 100 && rx.received.length === 0; i++) await new Promise((s) => setTimeout(s, 50));
    assert.is(rx.received.length, 1);
    const got = rx.received[0]!;
    assert.is(got.headers['x-voxdex-request-id'], up.body.requestid);
    assert.ok(verifySignature(got.headers['x-voxdex-signature'] as string, got.body, ctx.acmeSecret));
    const text = got.body.toString('utf8');
    assert.match(text, `name="requestid"\r\n\r\n${up.body.requestid}\r\n`);
    const expected = await (await fetch(`${ctx.url}/transcribe/${up.body.requestid}/result?token=${ctx.acme}`)).text();
    assert.ok(text.includes(expected));
    const status = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}`);
    assert.is(status.status, 200);
  } finally {
    await rx.close();
  }
});

e2e('names not-implemented parameters in the warning and refuses unknown ones listing the accepted names', async () => {
  const up = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.acme, diarize: 'true', sentiment: '1', lid: 'true', filetype: 'wav' } });
  assert.is(up.status, 200);
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  const doc = (await (await fetch(r.body)).json()) as any;
  assert.is(doc.warning, 'parameters not implemented and ignored: lid, filetype');
  // Validated and stored with the job already, for the stages that will read them.
  const job = (await ctx.svc.store.get(up.body.requestid))!;
  assert.equal(job.options, { numtrans: true, scrubtext: false, scrubaudio: false, redact: ['card', 'cvv', 'expiry', 'ssn', 'digits'], diarize: true, gender: false, sentiment: true, vocab: [] });
  const bad = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.acme, colour: 'blue' } });
  assert.is(bad.status, 400);
  assert.equal(bad.body, {
    error: { code: 'UNKNOWN_PARAMETER', message: 'Unknown parameter "colour"; accepted parameters: token, file, zpass, callback, model, output, callbackerror, metadata, datetime, numtrans, scrubtext, scrubaudio, redact, diarize, gender, speakers, minspeakers, maxspeakers, crosstalk, sentiment, emotion, vocab' },
  });
});

e2e('a company policy turns redaction on: scrubtext=false is 403 naming the policy; the stored options have it on', async () => {
  // The tenancy's companySettings (tenancy stores the settings; the intake asks it).
  const t = ctx.svc.tenancy as unknown as { companySettings?: (company: string) => unknown };
  const before = t.companySettings;
  t.companySettings = (company) => (company === 'globex' ? { scrub: ['text'] } : {});
  try {
    const refused = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.globex, scrubtext: 'false' } });
    assert.is(refused.status, 403);
    assert.equal(refused.body, {
      error: { code: 'FORBIDDEN', message: "company globex's policy redacts text (voxdex company set globex --scrub text); scrubtext=false is not allowed" },
    });
    const up = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.globex } });
    assert.is(up.status, 200);
    assert.is((await ctx.svc.store.get(up.body.requestid))!.options!.scrubtext, true);
    await waitResult(ctx.url, ctx.globex, up.body.requestid);
  } finally {
    if (before) t.companySettings = before;
    else delete t.companySettings;
  }
});

e2e('refuses bad requests with the contract status and code, queueing nothing', async () => {
  const before = await ctx.svc.store.countByState();
  const flac = path.join(ctx.dir, 'broken.flac');
  writeFileSync(flac, Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.alloc(300, 7)]));
  const midi = path.join(ctx.dir, 'song.mid');
  writeFileSync(midi, Buffer.from('MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60', 'latin1'));
  const wav96k = await makeWav(ctx.dir, { rate: 96000, seconds: 0.5, name: 'tone-96k.wav' });
  const big = path.join(ctx.dir, 'big.wav');
  await run('sox', ['-n', '-r', '16000', '-b', '16', big, 'synth', '40', 'sine', '300']);
  const cases: [string, Parameters<typeof upload>[1], number, string][] = [
    ['no token', { file: ctx.pcm8 }, 401, 'BAD_TOKEN'],
    ['wrong token', { file: ctx.pcm8, fields: { token: '0'.repeat(32) } }, 401, 'BAD_TOKEN'],
    ['no file', { fields: { token: ctx.acme } }, 400, 'BAD_ARGUMENT'],
    ['bad output', { file: ctx.pcm8, fields: { token: ctx.acme, output: 'xml' } }, 400, 'BAD_ARGUMENT'],
    ['diarize not a boolean', { file: ctx.pcm8, fields: { token: ctx.acme, diarize: 'yes' } }, 400, 'BAD_ARGUMENT'],
    ['speakers out of range', { file: ctx.pcm8, fields: { token: ctx.acme, speakers: '11' } }, 400, 'BAD_ARGUMENT'],
    ['unknown redaction kind', { file: ctx.pcm8, fields: { token: ctx.acme, redact: 'iban' } }, 400, 'BAD_ARGUMENT'],
    ['ftp callback', { file: ctx.pcm8, fields: { token: ctx.acme, callback: 'ftp://example.com/x' } }, 400, 'BAD_CALLBACK_URL'],
    ['metadata not an object', { file: ctx.pcm8, fields: { token: ctx.acme, metadata: '[1,2]' } }, 400, 'BAD_ARGUMENT'],
    ['bad datetime', { file: ctx.pcm8, fields: { token: ctx.acme, datetime: 'yesterday' } }, 400, 'BAD_ARGUMENT'],
    ['unknown model', { file: ctx.pcm8, fields: { token: ctx.acme, model: 'klingon' } }, 400, 'UNKNOWN_MODEL'],
    ['model not authorized', { file: ctx.pcm8, fields: { token: ctx.tight, model: 'auto' } }, 403, 'MODEL_NOT_AUTHORIZED'],
    ['broken FLAC', { file: flac, fields: { token: ctx.acme } }, 400, 'BAD_AUDIO'],
    ['MIDI', { file: midi, fields: { token: ctx.acme } }, 415, 'UNSUPPORTED_AUDIO'],
    ['96000 Hz', { file: wav96k, fields: { token: ctx.acme } }, 400, 'BAD_SAMPLE_RATE'],
    ['too large', { file: big, fields: { token: ctx.acme } }, 413, 'TOO_LARGE'],
    ['unknown folder', { file: ctx.pcm8, fields: { token: ctx.acme }, path: '/transcribe/sales/nope' }, 404, 'NOT_FOUND'],
    ['bad folder name', { file: ctx.pcm8, fields: { token: ctx.acme }, path: '/transcribe/sales/a%20b' }, 400, 'BAD_NAME'],
    ['other company path', { file: ctx.pcm8, fields: { token: ctx.globex }, path: '/transcribe/acme/sales/calls' }, 403, 'FORBIDDEN'],
    ['root without folder', { file: ctx.pcm8, fields: { token: ctx.root } }, 400, 'BAD_ARGUMENT'],
  ];
  for (const [what, u, status, code] of cases) {
    const r = await upload(ctx.url, u);
    assert.is(r.status, status, `${what}: ${JSON.stringify(r.body)}`);
    assert.is(r.body.error.code, code, what);
    assert.type(r.body.error.message, 'string');
  }
  assert.equal(await ctx.svc.store.countByState(), before);
  const put = await getJson(`${ctx.url}/transcribe`, { method: 'PUT' });
  assert.is(put.status, 405);
  assert.is(put.body.error.code, 'METHOD_NOT_ALLOWED');
  assert.is(put.headers.get('allow'), 'POST');
  const nowhere = await getJson(`${ctx.url}/nowhere`);
  assert.is(nowhere.status, 404);
  assert.is(nowhere.body.error.code, 'NOT_FOUND');
  const unknown = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=6f1c1d0e-8a4b-4c2d-9e3f-0a1b2c3d4e5f`);
  assert.is(unknown.status, 404);
  const notUuid = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=42`);
  assert.is(notUuid.status, 400);
});

e2e('root may submit to an explicit folder; a company token is refused on another company’s request', async () => {
  const up = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.root }, path: '/transcribe/acme/support/q4' });
  assert.is(up.status, 200);
  assert.equal((await ctx.svc.store.get(up.body.requestid))!.destination, { company: 'acme', org: 'support', folder: 'q4' });
  // The 403 does not tell globex whose request it is.
  const forbidden = { error: { code: 'FORBIDDEN', message: "This token may not act here: what the request names belongs to another company. Use that company's token." } };
  const other = await getJson(`${ctx.url}/transcribe/result?token=${ctx.globex}&requestid=${up.body.requestid}`);
  assert.is(other.status, 403);
  assert.equal(other.body, forbidden);
  const del = await getJson(`${ctx.url}/transcribe/result?token=${ctx.globex}&requestid=${up.body.requestid}`, { method: 'DELETE' });
  assert.is(del.status, 403);
  assert.equal(del.body, forbidden);
  const cancel = await getJson(`${ctx.url}/transcribe/${up.body.requestid}/cancel?token=${ctx.globex}`, { method: 'POST' });
  assert.equal([cancel.status, cancel.body], [403, forbidden]);
  const file = await getJson(`${ctx.url}/transcribe/${up.body.requestid}/result?token=${ctx.globex}`);
  assert.equal([file.status, file.body], [403, forbidden]);
  const search = await getJson(`${ctx.url}/search/acme/support?token=${ctx.globex}&output=count`);
  assert.is(search.status, 403);
  const r = await waitResult(ctx.url, ctx.root, up.body.requestid);
  assert.is(r.status, 200);
});

e2e('cancels a request; its result is then 422 CANCELLED', async () => {
  const up = await upload(ctx.url, { file: ctx.long, fields: { token: ctx.acme } });
  assert.is(up.status, 200);
  const pending = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}`);
  assert.is(pending.status, 202);
  assert.ok(['queued', 'running'].includes(pending.body.state));
  assert.equal(pending.body.files.total, 1);
  assert.ok(pending.body.progress >= 0 && pending.body.progress < 1);
  assert.ok(Number.isInteger(pending.body.etaSeconds) && pending.body.etaSeconds > 0);
  const c = await getJson(`${ctx.url}/transcribe/${up.body.requestid}/cancel?token=${ctx.acme}`, { method: 'POST' });
  assert.is(c.status, 200);
  assert.is(c.body.state, 'cancelled');
  const r = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${up.body.requestid}`);
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'CANCELLED');
  assert.is(r.body.state, 'cancelled');
  // Cancelling again, or cancelling a finished request, cancels nothing: 409 says so.
  const again = await getJson(`${ctx.url}/transcribe/${up.body.requestid}/cancel?token=${ctx.acme}`, { method: 'POST' });
  assert.equal([again.status, again.body.error], [409, { code: 'ALREADY_FINISHED', message: `Request ${up.body.requestid} is already cancelled; nothing was cancelled. Delete it with DELETE /transcribe/result if it is not wanted.` }]);
  const done = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.acme } });
  assert.is((await waitResult(ctx.url, ctx.acme, done.body.requestid)).status, 200);
  const late = await getJson(`${ctx.url}/transcribe/${done.body.requestid}/cancel?token=${ctx.acme}`, { method: 'POST' });
  assert.equal([late.status, late.body.error.code], [409, 'ALREADY_FINISHED']);
  assert.match(late.body.error.message, /is already done; nothing was cancelled/);
  assert.is((await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${done.body.requestid}`)).status, 200, 'the result is still there');
});

e2e('a request whose every file fails is 422 and says why; an archive with no audio is refused at once', async () => {
  const fake = path.join(ctx.dir, 'fake.wav');
  writeFileSync(fake, 'not a wave file at all, just text pretending\n'.repeat(20));
  const noAudio = await upload(ctx.url, { file: await makeZip(ctx.dir, 'fake.zip', [fake]), fields: { token: ctx.acme } });
  assert.is(noAudio.status, 400);
  assert.is(noAudio.body.error.code, 'NO_AUDIO_MEMBERS');
  // A WAV at 96 kHz inside an archive passes the acceptance check (its content is WAV) and fails when decoded.
  const wide = await makeWav(ctx.dir, { rate: 96000, seconds: 0.5, name: 'wide-96k.wav' });
  const up = await upload(ctx.url, { file: await makeZip(ctx.dir, 'wide.zip', [wide]), fields: { token: ctx.acme } });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const r = await waitResult(ctx.url, ctx.acme, up.body.requestid);
  assert.is(r.status, 422);
  assert.is(r.body.state, 'failed');
  assert.is(r.body.error.code, 'REQUEST_FAILED');
  assert.match(r.body.error.message, /^All 1 files failed: wide-96k\.wav: /);
  assert.equal(r.body.files, { total: 1, done: 0, failed: 1 });
});

e2e('gives up a request that the service stopped on 8 times instead of crash-looping', async () => {
  const id = '0b5b6c1e-2f4a-4c1d-8e9f-3a2b1c0d9e8f';
  await ctx.svc.store.create({
    id,
    destination: { company: 'acme', org: 'sales', folder: 'calls' },
    model: 'auto',
    output: 'json',
    datetime: new Date().toISOString(),
    source: 'poison.wav',
    kind: 'audio',
    uploadPath: ctx.pcm8,
    sizeBytes: 1,
  });
  const db = openSqlite(jobStorePath(ctx.svc.config.dataDir), 'FULL'); // as if the process had died 8 times on it
  db.prepare('UPDATE jobs SET attempts = 8 WHERE id = ?').run(id);
  db.close();
  ctx.svc.runner.enqueue((await ctx.svc.store.get(id))!);
  const r = await waitResult(ctx.url, ctx.acme, id);
  assert.is(r.status, 422);
  assert.is(r.body.error.code, 'INTERNAL');
  assert.match(r.body.error.message, 'stopped 8 times');
});

e2e('deletes the result, the audio and the transcripts in the index', async () => {
  const small = await upload(ctx.url, { file: ctx.pcm8, fields: { token: ctx.acme } });
  const r = await waitResult(ctx.url, ctx.acme, small.body.requestid);
  assert.is(r.status, 200);
  const job = (await ctx.svc.store.get(small.body.requestid))!;
  const stored = (await import('node:path')).join(ctx.svc.config.dataDir, job.uploadPath);
  assert.ok((await import('node:fs')).existsSync(stored), `the upload is kept at ${stored}`);
  const count = () => getJson(`${ctx.url}/search/acme/sales?token=${ctx.acme}&output=count&requestid=${small.body.requestid}`);
  assert.is(String((await count()).body).trim(), '1');
  const del = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${small.body.requestid}`, { method: 'DELETE' });
  assert.is(del.status, 200);
  assert.equal(del.body, { requestid: small.body.requestid, deleted: true });
  assert.is(String((await count()).body).trim(), '0');
  assert.not.ok((await import('node:fs')).existsSync(stored));
  const again = await getJson(`${ctx.url}/transcribe/result?token=${ctx.acme}&requestid=${small.body.requestid}`);
  assert.is(again.status, 404);
  const link = await getJson(r.body);
  assert.is(link.status, 404);
});

e2e('answers /status, /health and /metrics', async () => {
  const status = await fetch(`${ctx.url}/status`);
  assert.is(status.status, 200);
  assert.is(await status.text(), 'OK');
  const health = await getJson(`${ctx.url}/health`);
  assert.is(health.status, 200);
  assert.is(health.body.status, 'ok');
  const metrics = await (await fetch(`${ctx.url}/metrics`)).text();
  assert.match(metrics, /^voxdex_queue_depth \d+$/m);
  assert.match(metrics, /^voxdex_jobs\{state="done"\} [1-9]\d*$/m);
  assert.match(metrics, /^voxdex_audio_seconds_total [1-9]/m);
  assert.match(metrics, /^voxdex_real_time_factor_count [1-9]/m);
  assert.match(metrics, /^voxdex_callback_attempts_total\{outcome="delivered"\} [1-9]/m);
});

e2e.run();
