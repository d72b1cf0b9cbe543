/**
 * Issue 33's operations and client edges over real HTTP and WebSockets against a started service:
 * a live message over the size limit gets its error before the close, a live stream that starts
 * with an AVI header is refused, /live/calls refuses unknown parameters; a callback the receiver
 * refused is sent again through POST /transcribe/{id}/callback and `voxdex callback resend`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import WebSocket from 'ws';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { getJson, ROOT, sleep, startInProcess, startReceiver, upload, waitResult } from './harness.js';

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

/** The request's callbacks as GET /transcribe/requests shows them (the jobs page's source). */
async function callbacksOf(requestid: string): Promise<any[]> {
  const list = await getJson(`${ctx.url}/transcribe/requests?token=${ctx.acme}`);
  return list.body.requests.find((r: any) => r.requestid === requestid).callbacks;
}

ops('a callback refused for good (400) is sent again by POST /transcribe/{id}/callback and by voxdex callback resend, logged', async () => {
  const rx = await startReceiver((_r, n) => (n === 1 ? 400 : 200));
  try {
    const wav = await makeWav(ctx.dir, { name: 'hello.wav', rate: 8000, text: 'hello' });
    const sent = await upload(ctx.url, { file: wav, fields: { token: ctx.acme, callback: `${rx.url}/hook` } });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.requestid;
    assert.is((await waitResult(ctx.url, ctx.acme, id)).status, 200);
    for (let i = 0; i < 100 && (await callbacksOf(id))[0]?.state !== 'failed'; i++) await sleep(50);
    assert.equal((await callbacksOf(id)).map((c) => [c.state, c.lastError]), [['failed', 'HTTP 400']]);
    const resend = await getJson(`${ctx.url}/transcribe/${id}/callback?token=${ctx.acme}`, { method: 'POST' });
    assert.is(resend.status, 202, JSON.stringify(resend.body));
    assert.is(resend.body.requestid, id);
    for (let i = 0; i < 100 && rx.received.length < 2; i++) await sleep(50);
    assert.is(rx.received.length, 2);
    const [first, second] = rx.received;
    assert.is(second!.headers['x-voxdex-delivery'], first!.headers['x-voxdex-delivery']);
    assert.equal([first!.headers['x-voxdex-attempt'], second!.headers['x-voxdex-attempt']], ['1', '2']);
    assert.ok(second!.body.equals(first!.body), 'the same bytes (one boundary per delivery), signed anew');
    assert.is.not(second!.headers['x-voxdex-signature'], undefined);
    // Another company's token cannot resend it; a request without a callback URL has none to resend.
    const globex = (await ctx.svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'in' }))).token;
    assert.is((await getJson(`${ctx.url}/transcribe/${id}/callback?token=${globex}`, { method: 'POST' })).status, 403);
    const plain = await upload(ctx.url, { file: wav, fields: { token: ctx.acme } });
    await waitResult(ctx.url, ctx.acme, plain.body.requestid);
    const none = await getJson(`${ctx.url}/transcribe/${plain.body.requestid}/callback?token=${ctx.acme}`, { method: 'POST' });
    assert.is(none.status, 409);
    assert.equal(none.body.error, { code: 'NO_CALLBACK', message: `Request ${plain.body.requestid} has no callback to send again: it named no callback URL.` });
    // The CLI, while the service runs: queued again and sent by the service (within its 30 s poll), and logged.
    const cli = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'callback', 'resend', id], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(ctx.dir, 'data') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.is(cli.status, 0, cli.stderr);
    assert.is(cli.stdout, `${id}: 1 callback queued to be sent again\n`);
    const logged = JSON.parse(cli.stderr.trim().split('\n').at(-1)!);
    assert.equal([logged.msg, logged.requestid, logged.by, logged.deliveries], ['callback resend asked', id, 'cli', 1]);
    let after = (await callbacksOf(id))[0];
    for (let i = 0; i < 400 && after.state !== 'delivered'; i++) {
      await sleep(100);
      after = (await callbacksOf(id))[0];
    }
    assert.equal([after.state, after.attempts, rx.received.length], ['delivered', 3, 3], JSON.stringify(after));
    assert.is(rx.received[2]!.headers['x-voxdex-attempt'], '3');
  } finally {
    await rx.close();
  }
});

ops.run();
