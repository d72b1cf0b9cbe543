/**
 * Issue 33's operations and client edges over real HTTP and WebSockets against a started service:
 * a live message over the size limit gets its error before the close, a live stream that starts
 * with an AVI header is refused, /live/calls refuses unknown parameters.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import WebSocket from 'ws';
import type { Service } from '../../src/service.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess } from './harness.js';

const ops = suite('e2e: operations and client edges (issue 33)');
const ctx = {} as { dir: string; svc: Service; url: string; acme: string };

ops.before(async () => {
  ctx.dir = makeTempDir('voxdex-edges-ops-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_ASR_THREADS: '1', VOXDEX_RATE_LIMIT_PER_MIN: '0' });
  ctx.url = ctx.svc.url;
  ctx.acme = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
});

ops.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

/** Opens a live call, sends `messages`, and collects what comes back until the server closes. */
function liveCall(messages: Buffer[]): Promise<{ received: any[]; code: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${ctx.url.replace('http', 'ws')}/transcribe/stream?token=${ctx.acme}&encoding=pcm16&rate=8000`);
    const received: any[] = [];
    ws.on('message', (m) => received.push(JSON.parse(String(m))));
    ws.on('open', () => {
      for (const m of messages) ws.send(m);
    });
    ws.on('close', (code) => resolve({ received, code }));
    ws.on('error', reject);
    setTimeout(() => reject(new Error(`no close after 20 s; received ${JSON.stringify(received)}`)), 20_000).unref();
  });
}

ops('a live message over 1 MiB: the error message first, then the close with 1009', async () => {
  const { received, code } = await liveCall([Buffer.alloc(1600), Buffer.alloc((1 << 20) + 1)]);
  assert.is(code, 1009);
  assert.equal(received.map((m) => m.type), ['started', 'error']);
  assert.is(received[1].code, 'TOO_LARGE');
  assert.match(received[1].message, /^A live message may hold at most 1048576 bytes \(1024 KiB\); send the audio in smaller messages/);
});

ops('a live stream that starts with a RIFF/AVI header is refused with UNSUPPORTED_AUDIO, not taken as raw audio', async () => {
  const avi = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0x10, 0, 0]), Buffer.from('AVI LIST'), Buffer.alloc(4000, 9)]);
  const { received } = await liveCall([avi]);
  assert.equal(received.map((m) => m.type), ['started', 'error']);
  assert.is(received[1].code, 'UNSUPPORTED_AUDIO');
});

ops('/live/calls and /live/calls/{id}/events refuse unknown parameters with 400 UNKNOWN_PARAMETER', async () => {
  const list = await getJson(`${ctx.url}/live/calls?token=${ctx.acme}&company=globex`);
  assert.is(list.status, 400);
  assert.is(list.body.error.code, 'UNKNOWN_PARAMETER');
  assert.match(list.body.error.message, /^Unknown parameter "company"; accepted parameters: token$/);
  const events = await getJson(`${ctx.url}/live/calls/nope/events?token=${ctx.acme}&since=3`);
  assert.is(events.status, 400);
  assert.is((await getJson(`${ctx.url}/live/calls?token=${ctx.acme}`)).status, 200);
});

ops.run();
