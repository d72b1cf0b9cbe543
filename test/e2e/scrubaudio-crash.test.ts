/**
 * scrubaudio survives kill -9 (issue 17, privacy rule): the real-speech payment call of
 * test/fixtures/redaction-call.ts is sent with scrubtext=true&scrubaudio=true to `voxdex serve` as a
 * child process, which is SIGKILLed while the job runs and restarted on the same data dir. The job must
 * finish exactly once (one transcript in the index, state done), the playable audio must be the
 * silenced copy, and once it is done no byte of the data dir (the unredacted upload included) nor the
 * logs of either run may hold the card or the code as numerals, words or the recording's bytes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { acmeDataDir, allFiles, findNeedles, makePaymentCall, needles, type PaymentCall } from '../fixtures/redaction-call.js';
import { getJson, sleep, startChild, upload, waitHealthy, waitResult, type Child } from './harness.js';

const test = suite('e2e: scrubaudio after kill -9');
let dir = '';
let child: Child | undefined;
let call: PaymentCall;

test.before(() => {
  dir = makeTempDir('voxdex-scrubaudio-crash-');
  call = makePaymentCall(dir);
});

test.after(async () => {
  if (child && child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  removeDir(dir);
});

test('a scrubaudio job killed mid-run finishes once after restart, with no unredacted audio or digit left', async () => {
  const dataDir = path.join(dir, 'data');
  const token = acmeDataDir(dataDir);
  const env = { VOXDEX_ASR_THREADS: '1', VOXDEX_LOG_LEVEL: 'debug' };
  child = await startChild(dataDir, env);
  await waitHealthy(child.url, 120_000);
  const sent = await upload(child.url, { file: call.file, fields: { token, scrubtext: 'true', scrubaudio: 'true' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = sent.body.requestid as string;
  let state = '';
  for (let i = 0; i < 2000 && state !== 'running'; i++) {
    const r = await getJson(`${child.url}/transcribe/result?token=${token}&requestid=${id}`);
    assert.is(r.status, 202, `the job finished before it could be killed: ${JSON.stringify(r.body)}`);
    state = r.body.state;
    if (state !== 'running') await sleep(20);
  }
  assert.is(state, 'running');
  child.proc.kill('SIGKILL');
  await child.exited;
  const logs = [child.output()];

  child = await startChild(dataDir, env);
  await waitHealthy(child.url, 120_000);
  const done = await waitResult(child.url, token, id, 1_200_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const hits = await getJson(`${child.url}/search/acme/pay/calls?${new URLSearchParams({ token, fields: 'tid' })}`, { headers: { accept: 'application/json' } });
  assert.is(hits.body.length, 1, `one transcript: ${JSON.stringify(hits.body)}`);
  const link = await getJson(`${child.url}/transcribe/${id}/audio?token=${token}`);
  assert.is(link.status, 200, JSON.stringify(link.body));
  const played = Buffer.from(await (await fetch(link.body as string)).arrayBuffer());
  const n = needles(call);
  assert.equal(findNeedles('played audio', played, n), []);
  child.proc.kill('SIGTERM');
  await child.exited;
  logs.push(child.output());

  const found = allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  logs.forEach((l, i) => found.push(...findNeedles(`logs of run ${i + 1}`, Buffer.from(l, 'utf8'), n)));
  assert.equal(found, []);
});

test.run();
