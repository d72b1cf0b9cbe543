/**
 * The interface contract: "Token in the query string or form only" (docs/service.md, "Token and parameters in a form body") — every /transcribe route that takes a token
 * also takes it (and the requestid) from a urlencoded or multipart form body: cancel, delete, result.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeCall, makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const ft = suite('e2e: token in the form body');
let dir = '';
let svc: Service;
let acme = '';
let call = '';

ft.before(async () => {
  dir = makeTempDir('voxdex-formtoken-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  call = await makeCall(dir, { seconds: 1, encoding: 'mulaw', name: 'call.wav' });
});

ft.after(async () => {
  await svc?.close();
  removeDir(dir);
});

const form = (fields: Record<string, string>) => {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.set(k, v);
  return fd;
};

ft('cancels with the token in a urlencoded body, and refuses a missing token with 401', async () => {
  const long = await makeCall(dir, { seconds: 20, encoding: 'mulaw', name: 'long.wav' });
  const first = await upload(svc.url, { file: long, fields: { token: acme } });
  const second = await upload(svc.url, { file: long, fields: { token: acme } });
  assert.is(second.status, 200);
  const none = await getJson(`${svc.url}/transcribe/${second.body.requestid}/cancel`, { method: 'POST' });
  assert.is(none.status, 401);
  assert.is(none.body.error.code, 'BAD_TOKEN');
  const r = await getJson(`${svc.url}/transcribe/${second.body.requestid}/cancel`, { method: 'POST', body: new URLSearchParams({ token: acme }) });
  assert.is(r.status, 200);
  assert.is(r.body.requestid, second.body.requestid);
  assert.is(r.body.state, 'cancelled');
  const multipart = await getJson(`${svc.url}/transcribe/${first.body.requestid}/cancel`, { method: 'POST', body: form({ token: acme }) });
  assert.is(multipart.status, 200);
  assert.is(multipart.body.state, 'cancelled');
  const after = await getJson(`${svc.url}/transcribe/result?token=${acme}&requestid=${second.body.requestid}`);
  assert.is(after.status, 422);
  assert.is(after.body.error.code, 'CANCELLED');
});

ft('deletes with token and requestid in a multipart body; then the request is 404', async () => {
  const up = await upload(svc.url, { file: call, fields: { token: acme } });
  assert.is((await waitResult(svc.url, acme, up.body.requestid)).status, 200);
  const del = await getJson(`${svc.url}/transcribe/result`, { method: 'DELETE', body: form({ token: acme, requestid: up.body.requestid }) });
  assert.is(del.status, 200);
  assert.equal(del.body, { requestid: up.body.requestid, deleted: true });
  const gone = await getJson(`${svc.url}/transcribe/result?token=${acme}&requestid=${up.body.requestid}`);
  assert.is(gone.status, 404);
  assert.is(gone.body.error.code, 'NOT_FOUND');
});

ft('reads a GET result token from a urlencoded body; refuses unknown fields and files in the form', async () => {
  const up = await upload(svc.url, { file: call, fields: { token: acme, output: 'text' } });
  assert.is((await waitResult(svc.url, acme, up.body.requestid)).status, 200);
  const body = new URLSearchParams({ token: acme, requestid: up.body.requestid, inline: 'true' }).toString();
  const got = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${svc.url}/transcribe/result`, { method: 'GET', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
  assert.is(got.status, 200);
  const direct = await fetch(`${svc.url}/transcribe/${up.body.requestid}/result?token=${acme}`);
  assert.is(got.text, await direct.text(), 'the same text file as with the token in the query string');
  const unknown = await getJson(`${svc.url}/transcribe/${up.body.requestid}/cancel`, { method: 'POST', body: new URLSearchParams({ token: acme, colour: 'red' }) });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error.code, 'UNKNOWN_PARAMETER');
  assert.match(unknown.body.error.message, 'Unknown parameter "colour"; accepted parameters: token, requestid, inline');
  const withFile = form({ token: acme });
  withFile.set('file', new Blob([Buffer.from('RIFF')]), 'x.wav');
  const file = await getJson(`${svc.url}/transcribe/result`, { method: 'DELETE', body: withFile });
  assert.is(file.status, 400);
  assert.is(file.body.error.code, 'BAD_ARGUMENT');
  assert.is(file.body.error.message, 'This request takes no file; send only the parameters token, requestid, inline');
});

ft.run();
