/**
 * A job queued before its company's redaction policy (issue 33.1): its row is rewritten redacted when
 * it runs, and right after the rewrite no file of the data dir holds the metadata as sent — not
 * jobs.sqlite, not its WAL (the old row stayed in both 15 minutes later). The job waits behind a
 * longer call (one ASR thread: one job at a time) while the policy is set.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { allFiles } from '../fixtures/redaction-call.js';
import { makeSpeechCall } from '../fixtures/speech-calls.js';
import { getJson, sleep, startInProcess, upload, waitResult } from './harness.js';

const test = suite('a job row rewritten under a policy leaves nothing at rest');
const CARD = '5425233430109903';
const PHONE = '555-867-5309';
let dir = '';
let svc: Service;

test.before(async () => {
  dir = makeTempDir('voxdex-rewrite-at-rest-');
});
test.after(async () => {
  await svc?.close();
  removeDir(dir);
});

/** "file: needle" for each file under the data dir holding a needle as bytes. */
function heldAtRest(dataDir: string, needles: readonly string[]): string[] {
  return allFiles(dataDir).flatMap((f) => {
    const bytes = readFileSync(f).toString('latin1');
    return needles.filter((n) => bytes.includes(n)).map((n) => `${path.relative(dataDir, f)}: ${n}`);
  });
}

test('queued before the policy, run under it: the card and the phone number in its metadata are in no file right after', async () => {
  const dataDir = path.join(dir, 'data');
  svc = await startInProcess(dataDir, { VOXDEX_ASR_THREADS: '1' });
  const token = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'pay', folder: 'calls' }))).token;
  const long = await upload(svc.url, { file: makeSpeechCall(dir, 3, 40), fields: { token, output: 'json' } });
  assert.is(long.status, 200, JSON.stringify(long.body));
  for (let r = await getJson(`${svc.url}/transcribe/result?token=${token}&requestid=${long.body.requestid}`); r.body.state !== 'running'; await sleep(50)) {
    r = await getJson(`${svc.url}/transcribe/result?token=${token}&requestid=${long.body.requestid}`);
    assert.is(r.status, 202, 'the long call is still to run');
  }
  const tone = await makeWav(dir, { name: 'tone.wav', rate: 8000, channels: 1, tone: 440, seconds: 1 });
  const sent = await upload(svc.url, { file: tone, fields: { token, output: 'text', metadata: JSON.stringify({ card: CARD, phone: PHONE, agent: 'bob' }) } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = sent.body.requestid as string;
  assert.is((await svc.store.get(id))!.state, 'queued', 'queued behind the long call');
  assert.equal((await svc.store.get(id))!.metadata, { card: CARD, phone: PHONE, agent: 'bob' }, 'stored as sent before the policy');
  assert.ok(heldAtRest(dataDir, [CARD]).length > 0, 'the fixture holds the card at rest before the policy');
  await svc.tenancy.change((t) => t.setCompanySettings('acme', { scrub: ['text'] }));
  assert.is((await waitResult(svc.url, token, id, 300_000)).status, 200);
  assert.equal(heldAtRest(dataDir, [CARD, PHONE]), []);
  assert.equal((await svc.store.get(id))!.metadata, { card: '#'.repeat(16), phone: '###-###-####', agent: 'bob' });
});

test.run();
