/**
 * Callback delivery against a REAL local HTTP receiver (node:http on 127.0.0.1): signatures, retries
 * with growing delays, stable delivery ids, permanent failures, timeouts, restarts, refused targets.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CallbackDispatcher, type AttemptEvent } from '../src/callbacks/dispatcher.js';
import { enqueueFailure } from '../src/callbacks/failure.js';
import { openSqliteStores } from '../src/store/sqlite/sqlite-stores.js';
import { verifySignature } from '../src/callbacks/signature.js';
import type { Config } from '../src/config.js';

const SECRET = 'whsec_test_0123456789';

interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  signed: boolean;
  requestid: string;
  file: Buffer;
  filename: string;
}

type Reply = number | { status: number; headers?: Record<string, string> } | 'hang';

/** A receiver that answers from a script (the last entry repeats) and verifies every signature. */
async function receiver(script: Reply[]) {
  const got: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const form = await new Response(body, { headers: { 'content-type': req.headers['content-type']! } }).formData();
      const file = form.get('file') as File;
      got.push({
        at: Date.now(),
        headers: req.headers,
        body,
        signed: verifySignature(req.headers['x-voxdex-signature'] as string, body, SECRET, 60),
        requestid: String(form.get('requestid')),
        file: Buffer.from(await file.arrayBuffer()),
        filename: file.name,
      });
      const reply = script[Math.min(got.length - 1, script.length - 1)]!;
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      const r = typeof reply === 'number' ? { status: reply } : reply;
      res.writeHead(r.status, r.headers).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/voxdex`;
  return {
    url,
    got,
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function cfg(over: Partial<Config['callback']> = {}): Pick<Config, 'callback'> {
  return { callback: { attempts: 5, baseDelayMs: 40, maxDelayMs: 5_000, connectTimeoutMs: 2_000, responseTimeoutMs: 2_000, ...over } };
}

/** Resolves when `pred` holds for an attempt event (checked on every attempt). */
function waitFor(events: AttemptEvent[], pred: (e: AttemptEvent[]) => boolean, ms = 8_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const t = setInterval(() => {
      if (pred(events)) {
        clearInterval(t);
        resolve();
      } else if (Date.now() - start > ms) {
        clearInterval(t);
        reject(new Error(`timed out; events: ${JSON.stringify(events.map((e) => [e.attempt, e.state, e.outcome]))}`));
      }
    }, 10);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RESULT = Buffer.from(JSON.stringify({ requestid: 'req-1', transcripts: [{ text: 'hello world' }] }));

function setup(over: Partial<Config['callback']> = {}, file = ':memory:') {
  const stores = openSqliteStores(file);
  const outbox = stores.outbox;
  const events: AttemptEvent[] = [];
  const dispatcher = new CallbackDispatcher({ outbox, config: cfg(over), jitter: 0, onAttempt: (e) => events.push(e) });
  return { stores, outbox, events, dispatcher };
}

const d = suite('callback delivery');

d('retries a 500 with growing delays and the same delivery id, then delivers a signed multipart once', async () => {
  const rx = await receiver([500, 500, 200]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    const id = await outbox.enqueue({ requestid: 'req-1', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'req-1.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    assert.is(rx.got.length, 3);
    assert.equal(rx.got.map((g) => g.headers['x-voxdex-delivery']), [id, id, id]);
    assert.equal(rx.got.map((g) => g.headers['x-voxdex-request-id']), ['req-1', 'req-1', 'req-1']);
    assert.equal(rx.got.map((g) => g.signed), [true, true, true]);
    assert.equal(rx.got.map((g) => g.requestid), ['req-1', 'req-1', 'req-1']);
    assert.equal(rx.got[2]!.file, RESULT);
    assert.is(rx.got[2]!.filename, 'req-1.json');
    const gap1 = rx.got[1]!.at - rx.got[0]!.at;
    const gap2 = rx.got[2]!.at - rx.got[1]!.at;
    assert.ok(gap1 >= 40 && gap2 >= 120 && gap2 > gap1, `gaps ${gap1} ${gap2}`);
    const [status] = await outbox.deliveries('req-1');
    assert.is(status!.state, 'delivered');
    assert.is(status!.delivery, id);
    assert.equal(status!.attempts.map((a) => a.status), [500, 500, 200]);
    assert.equal(status!.attempts.map((a) => a.attempt), [1, 2, 3]);
    await sleep(150);
    assert.is(rx.got.length, 3, 'nothing after success');
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('a receiver that never accepts the connection hits the connect timeout', async () => {
  // A listener with a full accept queue (backlog 0, never accepting): the kernel drops further SYNs.
  const py = spawn('python3', ['-c', 'import socket,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(60)'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = Number(await new Promise<string>((r) => py.stdout!.once('data', (b: Buffer) => r(String(b).trim()))));
  const filler = net.connect(port, '127.0.0.1');
  await new Promise((r) => filler.once('connect', r));
  const { stores, outbox, events, dispatcher } = setup({ attempts: 1, connectTimeoutMs: 200 });
  try {
    await outbox.enqueue({ requestid: 'req-ct', company: 'acme', url: `http://127.0.0.1:${port}/cb`, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.length === 1);
    const [s] = await outbox.deliveries('req-ct');
    assert.is(s!.lastError, 'CONNECT_TIMEOUT: no connection within 200 ms (gave up after 1 attempt)');
    assert.ok(s!.attempts[0]!.durationMs! >= 190 && s!.attempts[0]!.durationMs! < 2000, String(s!.attempts[0]!.durationMs));
  } finally {
    await dispatcher.stop();
    await stores.close();
    filler.destroy();
    py.kill();
  }
});

d('a 400 stops after one attempt and is recorded as failed', async () => {
  const rx = await receiver([400, 200]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    await outbox.enqueue({ requestid: 'req-400', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.length === 1);
    await sleep(200);
    assert.is(rx.got.length, 1);
    const [s] = await outbox.deliveries('req-400');
    assert.is(s!.state, 'failed');
    assert.is(s!.lastError, 'HTTP 400');
    assert.equal(s!.attempts.map((a) => a.status), [400]);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d("README's receiver: a 401 (signature not accepted yet) is retried and delivered once the receiver accepts it", async () => {
  const rx = await receiver([401, 401, 200]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    await outbox.enqueue({ requestid: 'req-401', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    const [s] = await outbox.deliveries('req-401');
    assert.is(s!.state, 'delivered');
    assert.equal(s!.attempts.map((a) => a.status), [401, 401, 200]);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('a callback refused for good (400) is sent again by resend: same delivery id, the next attempt number, delivered', async () => {
  const rx = await receiver([400, 200]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    await outbox.enqueue({ requestid: 'req-again', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.length === 1);
    assert.is((await outbox.deliveries('req-again'))[0]!.state, 'failed');
    assert.is(await outbox.resend('req-again'), 1);
    await waitFor(events, (e) => e.length === 2);
    const [s] = await outbox.deliveries('req-again');
    assert.is(s!.state, 'delivered');
    assert.equal(s!.attempts.map((a) => a.status), [400, 200]);
    assert.equal(rx.got.map((g) => [g.headers['x-voxdex-delivery'], g.headers['x-voxdex-attempt'], g.signed]), [[s!.delivery, '1', true], [s!.delivery, '2', true]]);
    assert.is(await outbox.resend('nothing-here'), 0);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('429 and 408 are retried and a Retry-After lengthens the wait', async () => {
  const rx = await receiver([{ status: 429, headers: { 'retry-after': '1' } }, 408, 204]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    await outbox.enqueue({ requestid: 'req-429', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    assert.equal((await outbox.deliveries('req-429'))[0]!.attempts.map((a) => a.status), [429, 408, 204]);
    const gap1 = rx.got[1]!.at - rx.got[0]!.at;
    const gap2 = rx.got[2]!.at - rx.got[1]!.at;
    assert.ok(gap1 >= 1000, `Retry-After honoured: ${gap1}`);
    assert.ok(gap2 < 1000, `then back to the backoff: ${gap2}`);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('gives up after the configured number of attempts', async () => {
  const rx = await receiver([503]);
  const { stores, outbox, events, dispatcher } = setup({ attempts: 3, baseDelayMs: 10 });
  try {
    await outbox.enqueue({ requestid: 'req-503', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'failed'));
    assert.is(rx.got.length, 3);
    assert.is((await outbox.deliveries('req-503'))[0]!.lastError, 'HTTP 503 (gave up after 3 attempts)');
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('a receiver that does not answer times out and the delivery is retried', async () => {
  const rx = await receiver(['hang', 200]);
  const { stores, outbox, events, dispatcher } = setup({ responseTimeoutMs: 250 });
  try {
    await outbox.enqueue({ requestid: 'req-slow', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    const a = (await outbox.deliveries('req-slow'))[0]!.attempts;
    assert.is(a[0]!.error, 'RESPONSE_TIMEOUT: no complete response within 250 ms');
    assert.ok(a[0]!.durationMs! >= 240, String(a[0]!.durationMs));
    assert.is(a[1]!.status, 200);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('a pending delivery survives a restart and completes exactly once', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-cb-'));
  const file = path.join(dir, 'jobs.sqlite');
  const rx = await receiver([500, 200]);
  try {
    const first = setup({ baseDelayMs: 300 }, file);
    const id = await first.outbox.enqueue({ requestid: 'req-r', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    first.dispatcher.start();
    await waitFor(first.events, (e) => e.length === 1);
    await first.dispatcher.stop();
    await first.stores.close();
    assert.is(rx.got.length, 1);

    const second = setup({ baseDelayMs: 300 }, file);
    assert.is(await second.outbox.enqueue({ requestid: 'req-r', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET }), id, 'idempotent');
    second.dispatcher.start();
    await waitFor(second.events, (e) => e.some((x) => x.state === 'delivered'));
    await sleep(400);
    assert.is(rx.got.length, 2);
    assert.equal(rx.got.map((g) => g.headers['x-voxdex-delivery']), [id, id]);
    assert.equal((await second.outbox.deliveries('req-r'))[0]!.attempts.map((a) => a.status), [500, 200]);
    await second.dispatcher.stop();
    await second.stores.close();
  } finally {
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

d('a delivery in flight when the process died is sent again on start with the same delivery id', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-cb-'));
  const file = path.join(dir, 'jobs.sqlite');
  const rx = await receiver([200]);
  try {
    const dead = setup({}, file);
    const id = await dead.outbox.enqueue({ requestid: 'req-x', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    assert.is(await dead.outbox.claim(id), 1); // the process took it, then died before settling
    await dead.stores.close();

    const next = setup({}, file);
    next.dispatcher.start();
    await waitFor(next.events, (e) => e.some((x) => x.state === 'delivered'));
    assert.is(rx.got.length, 1);
    assert.is(rx.got[0]!.headers['x-voxdex-delivery'], id);
    const a = (await next.outbox.deliveries('req-x'))[0]!.attempts;
    assert.is(a[0]!.error, 'interrupted: the service stopped during this attempt; retried');
    assert.is(a[1]!.status, 200);
    await next.dispatcher.stop();
    await next.stores.close();
  } finally {
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

d('a failed request notifies callbackerror with state failed and the error', async () => {
  const rx = await receiver([200]);
  const { stores, outbox, events, dispatcher } = setup();
  try {
    const none = await enqueueFailure(outbox, { requestid: 'req-none', company: 'acme', error: { code: 'BAD_AUDIO', message: 'x' }, secret: SECRET });
    assert.is(none, undefined);
    await enqueueFailure(outbox, {
      requestid: 'req-f',
      company: 'acme',
      callback: 'http://127.0.0.1:1/never-used',
      callbackerror: rx.url,
      error: { code: 'BAD_AUDIO', message: 'the WAV data chunk is truncated; re-export the recording' },
      secret: SECRET,
    });
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    assert.is(rx.got[0]!.signed, true);
    assert.is(rx.got[0]!.filename, 'req-f.error.json');
    assert.equal(JSON.parse(rx.got[0]!.file.toString()), {
      requestid: 'req-f',
      state: 'failed',
      error: { code: 'BAD_AUDIO', message: 'the WAV data chunk is truncated; re-export the recording' },
    });
    assert.is((await outbox.deliveries('req-f'))[0]!.kind, 'error');
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d('reads a result file at delivery time and signs with the current company secret', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-cb-'));
  const resultFile = path.join(dir, 'result.zip');
  writeFileSync(resultFile, Buffer.from('PK\x03\x04 pretend zip'));
  const rx = await receiver([200]);
  const stores = openSqliteStores(':memory:');
  const outbox = stores.outbox;
  const events: AttemptEvent[] = [];
  const dispatcher = new CallbackDispatcher({ outbox, config: cfg(), secretFor: () => SECRET, onAttempt: (e) => events.push(e) });
  try {
    await outbox.enqueue({ requestid: 'req-z', company: 'acme', url: rx.url, kind: 'result', body: resultFile, contentType: 'application/zip', filename: 'req-z.zip', secret: 'stale-secret' });
    dispatcher.start();
    await waitFor(events, (e) => e.length === 1);
    assert.is(rx.got[0]!.signed, true);
    assert.equal(rx.got[0]!.file, Buffer.from('PK\x03\x04 pretend zip'));
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

d('refuses a metadata address without sending anything', async () => {
  const { stores, outbox, events, dispatcher } = setup();
  try {
    await outbox.enqueue({ requestid: 'req-m', company: 'acme', url: 'http://169.254.169.254/latest/meta-data/', kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    await waitFor(events, (e) => e.length === 1);
    const [s] = await outbox.deliveries('req-m');
    assert.is(s!.state, 'failed');
    assert.match(s!.lastError!, /^refused: Callback URL "http:\/\/169\.254\.169\.254\/latest\/meta-data\/" points at a link-local/);
    assert.is(events[0]!.outcome.type, 'refused');
  } finally {
    await dispatcher.stop();
    await stores.close();
  }
});

d('stopping aborts a delivery that outlives the grace period; the next start sends it again', async () => {
  const rx = await receiver(['hang', 200]);
  const { stores, outbox, events, dispatcher } = setup({ responseTimeoutMs: 10_000 });
  try {
    const id = await outbox.enqueue({ requestid: 'req-stop', company: 'acme', url: rx.url, kind: 'result', body: RESULT, contentType: 'application/json', filename: 'r.json', secret: SECRET });
    dispatcher.start();
    while (rx.got.length === 0) await sleep(10);
    const t0 = Date.now();
    await dispatcher.stop(100);
    assert.ok(Date.now() - t0 < 2000, 'stop does not wait for the response timeout');
    assert.is(events[0]!.outcome.type === 'network' && events[0]!.outcome.code, 'ABORTED');
    assert.is((await outbox.get(id))!.state, 'pending');
    dispatcher.start();
    await waitFor(events, (e) => e.some((x) => x.state === 'delivered'));
    assert.equal(rx.got.map((g) => g.headers['x-voxdex-delivery']), [id, id]);
  } finally {
    await dispatcher.stop();
    await stores.close();
    await rx.close();
  }
});

d.run();
