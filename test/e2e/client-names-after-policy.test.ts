/**
 * A request accepted before its company's redaction policy (issue 24): its row holds the file name as
 * the client sent it, but once the policy is set no answer shows it — the requests list, the result
 * file's name, the audio's name and errors, and the callback's file name show it redacted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { callbackOf } from '../../src/jobs/runner.js';
import { shownJob } from '../../src/jobs/shown-job.js';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const test = suite('client names shown under a policy set later');
const CARD = '4539148803436467';
const NAME = `cc-${CARD}.wav`;
const MASKED = `cc-${'#'.repeat(16)}`;
let dir = '';
let svc: Service;
let token = '';
let id = '';

test.before(async () => {
  dir = makeTempDir('voxdex-names-after-policy-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  token = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'pay', folder: 'calls' }))).token;
  const tone = await makeWav(dir, { name: 'tone.wav', rate: 8000, channels: 1, tone: 440, seconds: 1 });
  const sent = await upload(svc.url, { file: tone, name: NAME, fields: { token, output: 'text', metadata: JSON.stringify({ card: CARD }) } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  id = sent.body.requestid;
  assert.is((await waitResult(svc.url, token, id, 120_000)).status, 200);
  assert.is((await svc.store.get(id))!.source, NAME, 'accepted before the policy: stored as sent');
  await svc.tenancy.change((t) => t.setCompanySettings('acme', { scrub: ['text'] }));
});

test.after(async () => {
  await svc?.close();
  removeDir(dir);
});

const auth = () => ({ headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

test('the requests list shows the file name redacted', async () => {
  const list = await getJson(`${svc.url}/transcribe/requests`, auth());
  assert.is(list.status, 200);
  assert.equal(list.body.requests.map((r: { source: string }) => r.source), [`${MASKED}.wav`]);
  assert.not.match(JSON.stringify(list.body), CARD);
});

test('the result file and the audio are named with the name redacted; an audio error quotes it redacted', async () => {
  const result = await fetch(`${svc.url}/transcribe/${id}/result`, auth());
  assert.is(result.status, 200);
  // The download's name keeps [A-Za-z0-9_.-]: a # becomes _.
  assert.is(result.headers.get('content-disposition'), `attachment; filename="cc-${'_'.repeat(16)}.txt"`);
  await result.arrayBuffer();
  const audio = await fetch(`${svc.url}/transcribe/${id}/audio?inline=true`, auth());
  assert.is(audio.status, 200);
  assert.is(audio.headers.get('content-disposition'), 'inline; filename="cc-_-all.wav"');
  await audio.arrayBuffer();
  const other = await getJson(`${svc.url}/transcribe/${id}/audio?inline=true&file=other.wav`, auth());
  assert.is(other.status, 404);
  assert.match(other.body.error.message, `${MASKED}.wav`);
  assert.not.match(JSON.stringify(other.body), CARD);
});

test('the callback names the result with the name redacted', async () => {
  const job = (await svc.store.get(id))!;
  assert.is(callbackOf({ ...job, callback: 'https://example.com/hook' }, { state: 'done', resultPath: 'r.txt' }, 's')!.filename, `cc-${CARD}.txt`, 'unshown: as sent');
  const shown = shownJob({ ...job, callback: 'https://example.com/hook' }, svc.tenancy);
  assert.is(callbackOf(shown, { state: 'done', resultPath: 'r.txt' }, 's')!.filename, `${MASKED}.txt`);
  assert.equal(shown.metadata, { card: '#'.repeat(16) });
});

test.run();
