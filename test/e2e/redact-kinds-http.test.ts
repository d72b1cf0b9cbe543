/**
 * Redaction kinds over HTTP (issue 32): through a real started server, naming a kind adds to the card
 * kinds (`scrubtext=true&redact=name` left 15 of 16 card digits in clear), the result says which
 * kinds were applied, and with `redact=all` an archive-member name holding a name and an email is
 * redacted in the error of a request refused before it is accepted, as it would be after.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { CARD, makePaymentCall } from '../fixtures/redaction-call.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const test = suite('redaction kinds over HTTP');
let dir = '';
let svc: Service;
let token = '';

test.before(async () => {
  dir = makeTempDir('voxdex-redact-kinds-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  token = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'pay', folder: 'calls' }))).token;
});

test.after(async () => {
  await svc?.close();
  removeDir(dir);
});

/** The finished request's transcript document (the result file itself: inline=true). */
async function documentOf(requestid: string): Promise<any> {
  assert.is((await waitResult(svc.url, token, requestid, 300_000)).status, 200);
  const r = await getJson(`${svc.url}/transcribe/result?token=${token}&requestid=${requestid}&inline=true`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

test('scrubtext=true&redact=name: the card and its code are redacted too, and the result lists the kinds applied', async () => {
  const call = makePaymentCall(dir);
  const sent = await upload(svc.url, { file: call.file, name: 'payment.wav', fields: { token, scrubtext: 'true', redact: 'name', output: 'json' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const doc = await documentOf(sent.body.requestid);
  const words = doc.utterances.flatMap((u: { events: Array<{ word: string }> }) => u.events.map((e) => e.word)).join(' ');
  const digits = words.replace(/\D/g, '');
  for (let i = 0; i + 4 <= CARD.length; i += 4) assert.not.ok(digits.includes(CARD.slice(i, i + 4)), `card digits ${CARD.slice(i, i + 4)} in clear: ${words}`);
  assert.ok(words.includes('####'), `the card is redacted: ${words}`);
  assert.equal(doc.redaction, { text: 'redacted', audio: 'kept', kinds: ['card', 'cvv', 'expiry', 'ssn', 'digits', 'name'] });
});

test('redact=name,-cvv turns the code off explicitly, and the result shows it off', async () => {
  const tone = await makeWav(dir, { name: 'tone.wav', rate: 8000, channels: 1, tone: 440, seconds: 1 });
  const sent = await upload(svc.url, { file: tone, fields: { token, scrubtext: 'true', redact: 'name,-cvv', output: 'json' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assert.equal((await documentOf(sent.body.requestid)).redaction, { text: 'redacted', audio: 'kept', kinds: ['card', 'expiry', 'ssn', 'digits', 'name'], off: ['cvv'] });
  const plain = await upload(svc.url, { file: tone, fields: { token, output: 'json' } });
  assert.is((await documentOf(plain.body.requestid)).redaction, undefined, 'no redaction asked: no field');
});

test('redact=all: a member name with a name and an email is redacted in the error of a refused request', async () => {
  const member = '../call with Mrs Jane Nowak jane.nowak@example.com.wav';
  const zip = path.join(dir, 'unsafe.zip');
  const wav = await makeWav(dir, { name: 'inner.wav', rate: 8000, channels: 1, tone: 440, seconds: 0.5 });
  execFileSync('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").write(sys.argv[2], sys.argv[3])', zip, wav, member]);
  const sent = await upload(svc.url, { file: zip, name: 'calls.zip', fields: { token, scrubtext: 'true', redact: 'all' } });
  assert.is(sent.status, 400, JSON.stringify(sent.body));
  assert.is(sent.body.error.code, 'UNSAFE_ARCHIVE_MEMBER');
  assert.is(sent.body.error.message, 'Archive member "../call with [NAME] [EMAIL]" has an absolute path or "..": refusing the archive. Send an archive with plain relative names.');
  // The same request with redact=card,all (one parser: `card,all` is `all`).
  const again = await upload(svc.url, { file: zip, name: 'calls.zip', fields: { token, scrubtext: 'true', redact: 'card,all' } });
  assert.is(again.body.error.message, sent.body.error.message);
});

test.run();
