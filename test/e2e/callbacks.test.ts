/**
 * End to end: a real upload to the real service with `callback=` pointing at a real local receiver.
 * The receiver gets a multipart POST signed with the company's callback secret whose `file` part is
 * byte for byte what GET /transcribe/{id}/result returns; the request status lists the attempt.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifySignature } from '../../src/callbacks/signature.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createService, type Service } from '../../src/service.js';

const PROMPT = '/usr/share/asterisk/sounds/en_US_f_Allison/agent-loginok.wav';
const e2e = suite('e2e: callbacks through the service');

let root: string;
let service: Service | undefined;
let receiver: http.Server | undefined;

e2e.before.each(() => {
  root = mkdtempSync(path.join(tmpdir(), 'voxdex-e2e-cb-'));
});
e2e.after.each(async () => {
  await service?.close();
  service = undefined;
  if (receiver) await new Promise((r) => receiver!.close(r));
  receiver = undefined;
  rmSync(root, { recursive: true, force: true });
});

e2e('POSTs the signed result to the callback URL once the request is done', async () => {
  const got: { headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(got.length === 1 ? 503 : 200).end(); // first attempt fails: retried
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  const callback = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?x=1`;

  const config = loadConfig({
    VOXDEX_DATA_DIR: path.join(root, 'data'),
    VOXDEX_PORT: '0',
    VOXDEX_LOG_LEVEL: 'silent',
    VOXDEX_ASR_THREADS: '1',
    VOXDEX_SHUTDOWN_GRACE_MS: '1000',
    VOXDEX_CALLBACK_BASE_DELAY_MS: '50',
  });
  service = await createService(config, { log: createLogger({ logLevel: 'silent' }) });
  const { token, callbackSecret } = await service.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));

  const form = new FormData();
  form.set('token', token);
  form.set('callback', callback);
  form.set('file', new Blob([new Uint8Array(readFileSync(PROMPT))], { type: 'audio/wav' }), 'agent-loginok.wav');
  const res = await fetch(`${service.url}/transcribe`, { method: 'POST', body: form });
  assert.is(res.status, 200);
  const { requestid } = (await res.json()) as { requestid: string };

  const start = Date.now();
  while (got.length < 2) {
    if (Date.now() - start > 60_000) throw new Error(`no delivery; got ${got.length}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const [first, second] = got as [(typeof got)[0], (typeof got)[0]];
  assert.is(second.headers['x-voxdex-request-id'], requestid);
  assert.is(second.headers['x-voxdex-delivery'], first.headers['x-voxdex-delivery'], 'same delivery id on the retry');
  assert.ok(verifySignature(second.headers['x-voxdex-signature'] as string, second.body, callbackSecret, 60), 'signed with the company secret');
  const parsed = await new Response(new Uint8Array(second.body), { headers: { 'content-type': second.headers['content-type']! } }).formData();
  assert.is(parsed.get('requestid'), requestid);
  const file = Buffer.from(await (parsed.get('file') as File).arrayBuffer());
  const direct = Buffer.from(await (await fetch(`${service.url}/transcribe/${requestid}/result?token=${token}`)).arrayBuffer());
  assert.ok(file.equals(direct), 'the file part is exactly the result file');
  const doc = JSON.parse(file.toString()) as { requestid: string; source: string };
  assert.equal([doc.requestid, doc.source], [requestid, 'agent-loginok.wav']);

  await new Promise((r) => setTimeout(r, 100));
  const status = await service.outbox.deliveries(requestid);
  assert.is(status[0]!.state, 'delivered');
  assert.equal(status[0]!.attempts.map((a) => a.status), [503, 200]);
});

e2e.run();
