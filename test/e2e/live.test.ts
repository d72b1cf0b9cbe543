/**
 * Live calls (API.md §11): a real stereo call (Asterisk prompts, real speech) streamed over a
 * WebSocket by Node's `ws` and Python's `websockets`, and over a chunked POST by curl; the same
 * messages both ways; the call's job stored, searchable, its result the document the `result`
 * message carried. Refusals before the upgrade (401, 400, 503/429 with Retry-After); a dropped
 * connection, a client that stalls and one that floods; a payment call under scrubtext with every
 * message sent and every byte at rest scanned for the card's digits; the same call with a spelled
 * surname, a spelled email and a street address under redact=all, partials included.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../src/service.js';
import { ofType, streamCall, type LiveRun } from '../fixtures/live-client.js';
import { makeTempDir, removeDir, run as runCommand } from '../fixtures/make-audio.js';
import { makePromptCall, PROMPT_CALL } from '../fixtures/prompt-call.js';
import { allFiles, findNeedles, makePaymentCall, needles } from '../fixtures/redaction-call.js';
import { getJson, liveCallsAfterEnd, ROOT, sleep, startInProcess } from './harness.js';

const run = promisify(execFile);
const PYTHON = path.join(process.env.VOXDEX_PYVENV ?? path.join(ROOT, '.cache/pyvenv'), 'bin/python');
const live = suite('e2e: live calls');
const ctx = {} as { dir: string; svc: Service; token: string; ws: string; call: string };

live.before(async () => {
  ctx.dir = makeTempDir('voxdex-live-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), {
    VOXDEX_ASR_THREADS: '2',
    VOXDEX_RATE_LIMIT_PER_MIN: '0',
    VOXDEX_LIVE_MAX_CALLS: '3',
    VOXDEX_LIVE_MAX_CALLS_PER_COMPANY: '2',
    VOXDEX_LIVE_IDLE_SEC: '2',
    VOXDEX_LIVE_MAX_BACKLOG_SEC: '4',
  });
  ctx.token = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.ws = `${ctx.svc.url.replace('http', 'ws')}/transcribe/stream`;
  ctx.call = await makePromptCall(ctx.dir);
});
live.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

const words = (u: { events: Array<{ word: string }> }) => u.events.map((e) => e.word).join(' ');
/** Every channel's words, in time order, as the prompts say them. */
const expected = PROMPT_CALL.channels.map((c) => c.prompts.map((p) => PROMPT_CALL.text[p]).join(' '));
const channelText = (utterances: any[], c: number) => utterances.filter((u) => u.metadata.channel === c).sort((a, b) => a.start - b.start).map(words).join(' ');

/** The call's messages are started, utterances, then result, and the result is the stored document. */
async function checkCall(r: LiveRun | { messages: Array<{ message: any }> }): Promise<any> {
  const types = r.messages.map((m) => m.message.type);
  assert.is(types[0], 'started', JSON.stringify(types));
  assert.is(types[types.length - 1], 'result', JSON.stringify(r.messages.at(-1)?.message));
  const requestid = r.messages[0]!.message.requestid;
  const utterances = r.messages.filter((m) => m.message.type === 'utterance').map((m) => m.message);
  for (const c of [0, 1]) assert.is(channelText(utterances, c), expected[c]);
  const result = r.messages.at(-1)!.message;
  assert.is(result.requestid, requestid);
  const stored = await getJson(`${ctx.svc.url}/transcribe/${requestid}/result?token=${ctx.token}`);
  assert.is(stored.status, 200);
  const { type: _type, ...doc } = result;
  assert.equal(stored.body, doc);
  // What was sent live is what the document holds (no diarization, no redaction here).
  assert.equal(utterances.map(({ type: _t, ...u }) => u).sort((a, b) => a.metadata.uttid - b.metadata.uttid), [...doc.utterances].sort((a: any, b: any) => a.metadata.uttid - b.metadata.uttid));
  return result;
}

live('a stereo call streamed over a WebSocket: utterances as they end, a category alert once, the stored searchable document; followed live by the web page', async () => {
  const put = await fetch(`${ctx.svc.url}/categories/acme/conference?token=${ctx.token}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ terms: '"only person" | "dial again"' }) });
  assert.is(put.status, 201, await put.text());
  const running = streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2&rate=8000&sentiment=true&metadata=%7B%22agent%22%3A%22ann%22%7D`, ctx.call, { speed: 2 });
  // The web page: the call in the list, then its messages as server-sent events.
  let listed: any;
  for (let i = 0; i < 100 && !listed; i++) {
    listed = (await getJson(`${ctx.svc.url}/live/calls?token=${ctx.token}`)).body.calls[0];
    if (!listed) await sleep(50);
  }
  assert.equal([listed.company, listed.org, listed.folder, listed.nchannels], ['acme', 'sales', 'calls', 2]);
  const events = await fetch(`${ctx.svc.url}/live/calls/${listed.requestid}/events?token=${ctx.token}`);
  assert.is(events.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const followed = (await events.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const r = await running;
  const result = await checkCall(r);
  assert.equal(followed, r.messages.map((m) => m.message));
  assert.equal(result.streamtags, { metadata: { agent: 'ann' } });
  assert.ok(ofType(r, 'utterance').every((u) => u.metadata.sentiment), 'sentiment per utterance');
  const alerts = ofType(r, 'category');
  assert.equal(alerts.map((a) => a.name), ['conference']);
  assert.ok(alerts[0].at > 1 && alerts[0].at < 9.9, JSON.stringify(alerts));
  assert.equal(result.categories, ['conference']);
  const hits = await getJson(`${ctx.svc.url}/search/acme/sales?${new URLSearchParams({ token: ctx.token, terms: '"only person in this conference"' })}`, { headers: { accept: 'application/json' } });
  assert.equal(hits.body.map((h: any) => h.tid !== undefined), [true]);
  const del = await fetch(`${ctx.svc.url}/categories/acme/conference?token=${ctx.token}`, { method: 'DELETE' });
  assert.is(del.status, 200);
});

live('a WAV header in the first message declares the audio; {"type":"end"} ends the call', async () => {
  await checkCall(await streamCall(`${ctx.ws}?token=${ctx.token}`, ctx.call, { speed: Infinity, withHeader: true, end: 'text' }));
});

live('refused before the upgrade with the HTTP status of §8', async () => {
  const bad = await streamCall(`${ctx.ws}?token=0123456789abcdef0123456789abcdef`, ctx.call);
  assert.is(bad.refused?.status, 401);
  assert.is(bad.refused?.body.error.code, 'BAD_TOKEN');
  const enc = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=opus`, ctx.call);
  assert.is(enc.refused?.status, 400);
  assert.match(enc.refused?.body.error.message, /pcm16, mulaw, alaw for encoding/);
  const rate = await streamCall(`${ctx.ws}?token=${ctx.token}&rate=96000`, ctx.call);
  assert.is(rate.refused?.status, 400);
  const unknown = await streamCall(`${ctx.ws}?token=${ctx.token}&colour=blue`, ctx.call);
  assert.is(unknown.refused?.body.error.code, 'UNKNOWN_PARAMETER');
});

live('past the company limit 429, past the node limit 503, both with Retry-After', async () => {
  const other = (await ctx.svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'in' }))).token;
  // Two calls that stall (no audio): the idle timeout ends them after 2 s, leaving no request.
  const a = streamCall(`${ctx.ws}?token=${ctx.token}`, ctx.call, { stopAfterSec: 0, end: 'none' });
  const b = streamCall(`${ctx.ws}?token=${ctx.token}`, ctx.call, { stopAfterSec: 0, end: 'none' });
  await sleep(300);
  const third = await streamCall(`${ctx.ws}?token=${ctx.token}`, ctx.call);
  assert.is(third.refused?.status, 429);
  assert.is(third.refused?.retryAfter, '5');
  const c = streamCall(`${ctx.ws}?token=${other}`, ctx.call, { stopAfterSec: 0, end: 'none' });
  await sleep(300);
  const fourth = await streamCall(`${ctx.ws}?token=${other}`, ctx.call);
  assert.is(fourth.refused?.status, 503);
  assert.is(fourth.refused?.body.error.code, 'OVERLOADED');
  for (const r of await Promise.all([a, b, c])) {
    const err = ofType(r, 'error')[0];
    assert.is(err?.code, 'IDLE_TIMEOUT', JSON.stringify(r.messages));
  }
  assert.equal(await liveCallsAfterEnd(ctx.svc.url, ctx.token), []);
});

live('curl: realtime=true on a chunked POST streams the same messages as JSON lines', async () => {
  const { stdout } = await run('curl', ['-sS', '-N', '-T', ctx.call, '-H', 'Transfer-Encoding: chunked', '-H', 'Content-Type: audio/wav', '-X', 'POST', `${ctx.svc.url}/transcribe?realtime=true&token=${ctx.token}`], { timeout: 120_000 });
  const lines = stdout.trim().split('\n').map((l) => ({ message: JSON.parse(l) }));
  await checkCall({ messages: lines });
});

live('python websockets: the same call', async () => {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run bash scripts/pyvenv.sh`);
  const script = `
import asyncio, json, sys, websockets
async def main(url, path):
    data = open(path, "rb").read()
    out = []
    async with websockets.connect(url, max_size=None) as ws:
        for i in range(0, len(data), 3200):
            await ws.send(data[i:i + 3200])
        await ws.send(b"")
        async for m in ws:
            out.append(json.loads(m))
    print(json.dumps(out))
asyncio.run(main(sys.argv[1], sys.argv[2]))
`;
  const { stdout } = await run(PYTHON, ['-c', script, `${ctx.ws}?token=${ctx.token}`, ctx.call], { timeout: 120_000 });
  await checkCall({ messages: (JSON.parse(stdout) as any[]).map((message) => ({ message })) });
});

live('a dropped connection: the call becomes a request from what was received', async () => {
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2`, ctx.call, { speed: 1, stopAfterSec: 7.6, drop: true });
  const requestid = ofType(r, 'started')[0].requestid;
  let doc: any;
  for (let i = 0; i < 600 && !doc; i++) {
    const got = await getJson(`${ctx.svc.url}/transcribe/${requestid}/result?token=${ctx.token}`);
    if (got.status === 200) doc = got.body;
    else await sleep(100);
  }
  assert.ok(doc, 'the dropped call has a result');
  assert.is(doc.audiosecs, 7.6);
  assert.is(channelText(doc.utterances, 0), expected[0]);
});

live('a client that floods: reading pauses (back-pressure) and every utterance still comes', async () => {
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2`, ctx.call, { speed: Infinity, chunkSec: 1 });
  await checkCall(r);
});

live('scrubtext: no digit of the card in any message sent, nor anywhere at rest; the card is held back until decided', async () => {
  const call = makePaymentCall(ctx.dir);
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2&scrubtext=true&scrubaudio=true&partials=true`, call.file, { speed: 4 });
  const n = needles(call);
  const sent = r.messages.map((m) => JSON.stringify(m.message));
  assert.equal(sent.flatMap((s, i) => findNeedles(`message ${i}`, Buffer.from(s), n)), []);
  // No word sent holds a digit, amounts ("$40") excepted: they are not redacted (API.md §10).
  const digitWords = ofType(r, 'utterance').flatMap((u) => u.events.map((e: any) => e.word)).filter((w: string) => /\d/.test(w) && !/^\$[\d.,]+$/.test(w));
  assert.equal(digitWords, []);
  const utts = ofType(r, 'utterance').filter((u) => u.metadata.channel === 1);
  assert.ok(utts.some((u) => u.events.some((e: any) => e.redacted === 'card')), JSON.stringify(utts));
  const result = r.messages.at(-1)!.message;
  assert.is(result.type, 'result');
  await ctx.svc.runner.idle();
  const found = allFiles(path.join(ctx.dir, 'data')).flatMap((f) => findNeedles(path.relative(ctx.dir, f), readFileSync(f), n));
  assert.equal(found, []);
});

live('redact=all: no word of the spelled surname, the spelled email or the address in any message sent (partials asked for), nor at rest', async () => {
  const call = makePaymentCall(ctx.dir, { personal: true });
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2&scrubtext=true&scrubaudio=true&redact=all&partials=true`, call.file, { speed: 4 });
  const n = needles(call);
  const sent = r.messages.map((m) => JSON.stringify(m.message));
  assert.equal(sent.flatMap((s, i) => findNeedles(`message ${i} (${r.messages[i]!.message.type})`, Buffer.from(s), n)), []);
  const kinds = new Set(ofType(r, 'utterance').flatMap((u) => u.events.map((e: any) => e.redacted)).filter(Boolean));
  assert.ok(['card', 'name', 'email', 'address'].every((k) => kinds.has(k)), JSON.stringify([...kinds]));
  assert.is(r.messages.at(-1)!.message.type, 'result');
  await ctx.svc.runner.idle();
  const found = allFiles(path.join(ctx.dir, 'data')).flatMap((f) => findNeedles(path.relative(ctx.dir, f), readFileSync(f), n));
  assert.equal(found, []);
});

live('redact=all: utterances that hold nothing to redact are sent during the call as time passes, not held until the next one is decoded or the call ends', async () => {
  // The prompt call, then 10 s of silence before the client ends it.
  const padded = path.join(ctx.dir, 'prompt-call-padded.wav');
  await runCommand('sox', [ctx.call, padded, 'pad', '0', '10']);
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2&scrubtext=true&redact=all`, padded, { speed: 1 });
  const utts = r.messages.filter((m) => m.message.type === 'utterance');
  assert.ok(utts.length >= 2, JSON.stringify(utts.map((m) => m.message.events.map((e: any) => e.word).join(' '))));
  // Each channel's last utterance included: the engine is asked again as each channel's audio is endpointed.
  const late = utts.filter((m) => m.at >= r.endedAt).map((m) => `${m.message.events.map((e: any) => e.word).join(' ')} (${((m.at - r.startedAt) / 1000 - m.message.end).toFixed(1)} s after its end)`);
  assert.equal(late, []);
});

live.run();


