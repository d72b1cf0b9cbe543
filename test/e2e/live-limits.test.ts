/**
 * Live calls' limits over real WebSockets (docs/live.md, "Limits"): 24 calls opened at once against a
 * limit of 8 (admission counted before any await: exactly 8 admitted); a client that sends as fast as
 * it can is read no faster than VOXDEX_LIVE_MAX_SPEED times real time and its call still completes;
 * a call whose audio passes the upload's size limit is ended with TOO_LARGE and kept.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { PACE_BURST_SEC } from '../../src/live/intake-pace.js';
import { ofType, streamCall } from '../fixtures/live-client.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { makePromptCall } from '../fixtures/prompt-call.js';
import { getJson, liveCallsAfterEnd, sleep, startInProcess } from './harness.js';

const limits = suite('e2e: live call limits');
const ctx = {} as { dir: string; svc: Service; token: string; ws: string; call: string };
const MAX_SPEED = 2;

limits.before(async () => {
  ctx.dir = makeTempDir('voxdex-live-limits-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), {
    VOXDEX_ASR_THREADS: '1',
    VOXDEX_RATE_LIMIT_PER_MIN: '0',
    VOXDEX_LIVE_MAX_CALLS: '8',
    VOXDEX_LIVE_IDLE_SEC: '4',
    VOXDEX_LIVE_MAX_SPEED: String(MAX_SPEED),
    VOXDEX_MAX_UPLOAD_MIB: '1',
  });
  ctx.token = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.ws = `${ctx.svc.url.replace('http', 'ws')}/transcribe/stream`;
  ctx.call = await makePromptCall(ctx.dir);
});
limits.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

limits('24 calls at once against a limit of 8: exactly 8 admitted, 16 refused with 503 OVERLOADED', async () => {
  // Calls that send no audio: the idle timeout (4 s) ends them, long after every upgrade is decided.
  const runs = await Promise.all(Array.from({ length: 24 }, () => streamCall(`${ctx.ws}?token=${ctx.token}`, ctx.call, { stopAfterSec: 0, end: 'none' })));
  const admitted = runs.filter((r) => !r.refused);
  const refused = runs.filter((r) => r.refused);
  assert.is(admitted.length, 8, `admitted ${admitted.length} of 24`);
  assert.equal(
    refused.map((r) => [r.refused!.status, r.refused!.body.error.code]),
    Array.from({ length: 16 }, () => [503, 'OVERLOADED']),
  );
  for (const r of admitted) assert.is(ofType(r, 'error')[0]?.code, 'IDLE_TIMEOUT', JSON.stringify(r.messages));
  assert.equal(await liveCallsAfterEnd(ctx.svc.url, ctx.token), []);
});

limits('a client that sends all at once is read no faster than VOXDEX_LIVE_MAX_SPEED × real time, and its call completes', async () => {
  const running = streamCall(`${ctx.ws}?token=${ctx.token}&encoding=mulaw&channels=2`, ctx.call, { speed: Infinity, chunkSec: 0.25 });
  const t0 = performance.now();
  const seen: Array<{ sec: number; audiosecs: number }> = [];
  let done = false;
  void running.then(() => (done = true));
  while (!done) {
    const call = (await getJson(`${ctx.svc.url}/live/calls?token=${ctx.token}`)).body.calls[0];
    if (call) seen.push({ sec: (performance.now() - t0) / 1000, audiosecs: call.audiosecs });
    await sleep(100);
  }
  const r = await running;
  const result = r.messages.at(-1)!.message;
  assert.is(result.type, 'result', JSON.stringify(result));
  assert.ok(seen.length > 5, `seen ${seen.length}`);
  // What the server took by each look is bounded by the pace: a message is taken only once its whole length fits.
  const over = seen.filter((s) => s.audiosecs > PACE_BURST_SEC + MAX_SPEED * s.sec + 0.01);
  assert.equal(over, [], JSON.stringify(seen));
  // The whole call was still taken: it lasted at least (audio − burst) / speed.
  const lastSeen = seen.at(-1)!;
  assert.ok(lastSeen.sec >= (result.audiosecs - PACE_BURST_SEC) / MAX_SPEED - 0.5, JSON.stringify({ lastSeen, audiosecs: result.audiosecs }));
});

limits('a call whose audio passes the upload limit (VOXDEX_MAX_UPLOAD_MIB) is ended with TOO_LARGE and kept as its request', async () => {
  // 8 s of 48 kHz stereo PCM: 192 kB a second, past 1 MiB after 5.5 s of audio.
  const big = await makeWav(ctx.dir, { rate: 48000, channels: 2, seconds: 8, tone: 'noise', amplitude: 0.1 });
  const r = await streamCall(`${ctx.ws}?token=${ctx.token}&encoding=pcm16&rate=48000&channels=2`, big, { speed: Infinity, chunkSec: 0.5 });
  const err = ofType(r, 'error')[0];
  assert.is(err?.code, 'TOO_LARGE', JSON.stringify(r.messages.map((m) => m.message.type)));
  assert.match(err.message, /upload limit of 1 MiB \(VOXDEX_MAX_UPLOAD_MIB\)/);
  const requestid = ofType(r, 'started')[0].requestid;
  let doc: any;
  for (let i = 0; i < 300 && !doc; i++) {
    const got = await getJson(`${ctx.svc.url}/transcribe/${requestid}/result?token=${ctx.token}`);
    if (got.status === 200) doc = got.body;
    else await sleep(100);
  }
  assert.ok(doc, 'the call ended for its size has a result');
  // Kept: what was taken before the limit (1 MiB of 48 kHz stereo PCM is 5.46 s).
  assert.ok(doc.audiosecs > 4 && doc.audiosecs <= 5.47, String(doc.audiosecs));
});

limits.run();
