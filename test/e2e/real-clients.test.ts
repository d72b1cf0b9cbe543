/**
 * Clients as they exist, not only Node's FormData: python `requests` (as the established service's
 * integrations use it: `files=[("file", fh)]`, no part Content-Type), `curl -F`, a hand-written body
 * whose file part has no Content-Type; the compatibility fields; the result-link flow. And clients
 * as attackers: a JSON body, a form whose field limit fails after its file, a connection that
 * trickles a byte at a time, more concurrent uploads than a company may hold.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { getJson, ROOT, sleep, startInProcess, waitResult } from './harness.js';

const run = promisify(execFile);
const PYTHON = path.join(process.env.VOXDEX_PYVENV ?? path.join(ROOT, '.cache/pyvenv'), 'bin/python');
const rc = suite('e2e: real clients');
const ctx = {} as { dir: string; svc: Service; token: string; other: string; hello: string; big: string; incoming: string };

rc.before(async () => {
  ctx.dir = makeTempDir('voxdex-clients-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), {
    VOXDEX_MAX_UPLOAD_MIB: '3',
    VOXDEX_REQUEST_TIMEOUT_SEC: '3',
    VOXDEX_HEADERS_TIMEOUT_SEC: '3',
    VOXDEX_MAX_CONCURRENT_UPLOADS: '2',
    VOXDEX_RATE_LIMIT_PER_MIN: '0',
    VOXDEX_ASR_THREADS: '1',
  });
  ctx.token = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.other = (await ctx.svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbound' }))).token;
  ctx.hello = await makeWav(ctx.dir, { name: 'hello.wav', rate: 8000, text: 'hello, thank you for calling' });
  // Over formidable's 1 MiB field limit, which a file part taken for a field ran into: 2 MiB of near-silence.
  ctx.big = await makeWav(ctx.dir, { name: 'quiet-2mib.wav', rate: 16000, seconds: 65, tone: 'noise', amplitude: 0.0005 });
  ctx.incoming = path.join(ctx.dir, 'data', 'incoming');
});
rc.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

/** Runs python with the pinned `requests` from .cache/pyvenv. */
async function python(script: string, ...args: string[]): Promise<any> {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run the suite with \`bash scripts/test.sh\` (it installs requests into .cache/pyvenv)`);
  const { stdout } = await run(PYTHON, ['-c', script, ...args], { timeout: 120_000 });
  return JSON.parse(stdout);
}

const REQUESTS_CLIENT = `
import json, sys, time, requests
url, token, path = sys.argv[1:4]
with open(path, "rb") as fh:
    r = requests.post(url + "/transcribe", data={"token": token, "filetype": "wav", "emotion": "true", "gender": "true", "diarize": "true"}, files=[("file", fh)])
out = {"status": r.status_code, "body": r.json(), "partHasType": b"Content-Type" in r.request.body.split(b"filename=")[1].split(b"\\r\\n\\r\\n")[0]}
if r.status_code == 200:
    rid = r.json()["requestid"]
    for _ in range(600):
        res = requests.get(url + "/transcribe/result", params={"token": token, "requestid": rid})
        if res.status_code != 202:
            break
        time.sleep(0.1)
    link = res.json()
    out["resultStatus"] = res.status_code
    out["link"] = link
    out["document"] = requests.get(link).json()
print(json.dumps(out))
`;

rc('python requests (file part without Content-Type) uploads with filetype/emotion/gender/diarize and follows the result link', async () => {
  const out = await python(REQUESTS_CLIENT, ctx.svc.url, ctx.token, ctx.hello);
  assert.is(out.partHasType, false, 'requests sends the file part without a Content-Type');
  assert.is(out.status, 200, JSON.stringify(out.body));
  assert.match(out.body.requestid, /^[0-9a-f-]{36}$/);
  assert.is(out.resultStatus, 200);
  assert.type(out.link, 'string');
  assert.match(out.link, new RegExp(`^${ctx.svc.url}/transcribe/download/${out.body.requestid}\\?expires=\\d+&sig=[0-9a-f]{64}$`));
  assert.is(out.document.requestid, out.body.requestid);
  assert.is(out.document.source, 'hello.wav');
  assert.is(out.document.warning, 'parameters not implemented and ignored: filetype');
  assert.ok(out.document.utterances.length > 0, 'transcribed');
  // Over 1 MiB: a file part taken for a field failed with "Too many or too large form fields".
  const big = await python(REQUESTS_CLIENT, ctx.svc.url, ctx.token, ctx.big);
  assert.is(big.status, 200, JSON.stringify(big.body));
  assert.is(big.document.source, 'quiet-2mib.wav');
  assert.ok(big.document.audiosecs > 64);
});

rc('curl -F uploads, with and without a type on the file part', async () => {
  for (const file of [`file=@${ctx.hello}`, `file=@${ctx.hello};type=audio/wav`]) {
    const { stdout } = await run('curl', ['-sS', '-F', `token=${ctx.token}`, '-F', 'diarize=true', '-F', file, `${ctx.svc.url}/transcribe`]);
    const body = JSON.parse(stdout);
    assert.match(body.requestid, /^[0-9a-f-]{36}$/, stdout);
    assert.is((await waitResult(ctx.svc.url, ctx.token, body.requestid)).status, 200);
  }
});

/** Sends raw bytes and returns the whole raw answer (the server closes or answers with a length). */
function rawRequest(body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(ctx.svc.url);
    const socket = connect(Number(url.port), url.hostname, () => {
      const head = [`POST /transcribe HTTP/1.1`, `Host: ${url.host}`, `Content-Length: ${body.length}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(body);
    });
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
  });
}

function multipart(boundary: string, parts: Array<{ headers: string[]; data: Buffer | string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n${p.headers.join('\r\n')}\r\n\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

rc('a hand-written multipart body whose file part has no Content-Type is accepted', async () => {
  const body = multipart('xYzZy', [
    { headers: ['Content-Disposition: form-data; name="token"'], data: ctx.token },
    { headers: ['Content-Disposition: form-data; name="file"; filename="hello.wav"'], data: readFileSync(ctx.hello) },
    { headers: ['Content-Disposition: form-data; name="gender"'], data: 'true' },
  ]);
  const r = await rawRequest(body, { 'Content-Type': 'multipart/form-data; boundary=xYzZy' });
  assert.is(r.status, 200, r.text);
  const id = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)).requestid;
  const done = await waitResult(ctx.svc.url, ctx.token, id);
  assert.is(done.status, 200);
  const doc = (await getJson(`${ctx.svc.url}/transcribe/${id}/result?token=${ctx.token}`)).body;
  assert.is(doc.warning, undefined); // gender is implemented: every utterance says male or female
  assert.ok(doc.utterances.length > 0 && doc.utterances.every((u: { metadata: { gender?: string } }) => u.metadata.gender === 'male' || u.metadata.gender === 'female'), JSON.stringify(doc.utterances));
});

rc('a JSON body is 415 saying to send multipart/form-data, not a token error', async () => {
  const r = await getJson(`${ctx.svc.url}/transcribe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: ctx.token, file: 'aGVsbG8=' }) });
  assert.is(r.status, 415);
  assert.equal(r.body.error, {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'The request body is "application/json"; send multipart/form-data with the audio in the field "file" (curl -F token=... -F file=@call.wav), or application/x-www-form-urlencoded for parameters only',
  });
  assert.equal(readdirSync(ctx.incoming), []);
});

rc('a form that fails a field limit (or the one-file limit) after its file leaves nothing in incoming/', async () => {
  const file = { headers: ['Content-Disposition: form-data; name="file"; filename="hello.wav"', 'Content-Type: audio/wav'], data: readFileSync(ctx.hello) };
  const cases: Array<[string, Array<{ headers: string[]; data: Buffer | string }>, RegExp]> = [
    // The file's write stream is still opening when the 101st field fails the form: it was created after the clean-up.
    ['too many fields', [file, ...Array.from({ length: 120 }, (_, i) => ({ headers: [`Content-Disposition: form-data; name="f${i}"`], data: 'v' }))], /Too many or too large form fields/],
    ['a field over 1 MiB', [file, { headers: ['Content-Disposition: form-data; name="metadata"'], data: `{"note":"${'x'.repeat(1100 * 1024)}"}` }], /Too many or too large form fields/],
    ['a second file', [file, { ...file, headers: ['Content-Disposition: form-data; name="file2"; filename="b.wav"', 'Content-Type: audio/wav'] }], /Send exactly one file/],
  ];
  for (const [what, parts, message] of cases) {
    const r = await rawRequest(multipart('b0undary', [{ headers: ['Content-Disposition: form-data; name="token"'], data: ctx.token }, ...parts]), {
      'Content-Type': 'multipart/form-data; boundary=b0undary',
    });
    assert.is(r.status, 400, `${what}: ${r.text.slice(0, 300)}`);
    assert.match(r.text, message);
    assert.equal(readdirSync(ctx.incoming), [], `${what}: removed before the answer`);
    await sleep(300);
    assert.equal(readdirSync(ctx.incoming), [], `${what}: and not created again afterwards`);
  }
});

/** Opens an upload and sends one byte every `everyMs`; resolves with what the server answered and when it closed. */
function trickle(token: string, everyMs: number): { done: Promise<{ text: string; closedAfterMs: number }>; socket: Socket; opened: Promise<void> } {
  const url = new URL(ctx.svc.url);
  const t0 = Date.now();
  let text = '';
  let timer: NodeJS.Timeout | undefined;
  let onOpen!: () => void;
  const opened = new Promise<void>((r) => (onOpen = r));
  const socket = connect(Number(url.port), url.hostname, () => {
    socket.write(
      [`POST /transcribe?token=${token} HTTP/1.1`, `Host: ${url.host}`, 'Content-Type: multipart/form-data; boundary=slow', 'Content-Length: 1000000', '', ''].join('\r\n') +
        '--slow\r\nContent-Disposition: form-data; name="file"; filename="slow.wav"\r\n\r\nRIFF',
    );
    timer = setInterval(() => socket.writable && socket.write('x'), everyMs);
    onOpen();
  });
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  socket.on('error', () => {});
  const guard = setTimeout(() => socket.destroy(), 15_000); // a server that never cuts it off fails the test, not hangs it
  const done = new Promise<{ text: string; closedAfterMs: number }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(guard);
      resolve({ text, closedAfterMs: Date.now() - t0 });
    }),
  );
  return { done, socket, opened };
}

rc('a client that sends a byte every few hundred ms is cut off at the request timeout (408) and its partial upload removed', async () => {
  const slow = trickle(ctx.token, 400);
  const r = await slow.done;
  assert.match(r.text, /^HTTP\/1\.1 408 /, r.text);
  assert.ok(r.closedAfterMs >= 2_900 && r.closedAfterMs < 8_000, `closed after ${r.closedAfterMs} ms (VOXDEX_REQUEST_TIMEOUT_SEC=3)`);
  await sleep(200);
  assert.equal(readdirSync(ctx.incoming), []);
});

rc('a company holds at most VOXDEX_MAX_CONCURRENT_UPLOADS uploads at once; others are not affected', async () => {
  const a = trickle(ctx.token, 200);
  const b = trickle(ctx.token, 200);
  await Promise.all([a.opened, b.opened]);
  await sleep(300);
  const third = await getJson(`${ctx.svc.url}/transcribe?token=${ctx.token}`, { method: 'POST', body: (() => { const f = new FormData(); f.set('file', new Blob([readFileSync(ctx.hello)]), 'hello.wav'); return f; })() });
  assert.is(third.status, 429);
  assert.is(third.headers.get('retry-after'), '5');
  assert.equal(third.body.error, {
    code: 'RATE_LIMITED',
    message: 'Company acme already has 2 uploads in progress; at most 2 at a time are accepted (VOXDEX_MAX_CONCURRENT_UPLOADS=2). Send this one when one of them has finished.',
  });
  // The token in the form body counts the same way (it arrives before the file).
  const form = new FormData();
  form.set('token', ctx.token);
  form.set('file', new Blob([readFileSync(ctx.hello)]), 'hello.wav');
  const fourth = await getJson(`${ctx.svc.url}/transcribe`, { method: 'POST', body: form });
  assert.is(fourth.status, 429);
  const otherForm = new FormData();
  otherForm.set('token', ctx.other);
  otherForm.set('file', new Blob([readFileSync(ctx.hello)]), 'hello.wav');
  const other = await getJson(`${ctx.svc.url}/transcribe`, { method: 'POST', body: otherForm });
  assert.is(other.status, 200, JSON.stringify(other.body));
  a.socket.destroy();
  b.socket.destroy();
  await Promise.all([a.done, b.done]);
  await sleep(100);
  const after = await getJson(`${ctx.svc.url}/transcribe`, { method: 'POST', body: form });
  assert.is(after.status, 200, JSON.stringify(after.body));
  assert.equal(readdirSync(ctx.incoming), []);
});

rc.run();
