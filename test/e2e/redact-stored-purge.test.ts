/**
 * `voxdex redact` leaves no old words behind (issue 17, privacy rule): the real-speech payment call of
 * test/fixtures/redaction-call.ts is transcribed and indexed unredacted (scrubtext and scrubaudio off)
 * by an embedded service; the test checks that the search index's files (SQLite index file, -wal,
 * -shm) then hold the card's digits, runs `voxdex redact acme` (src/pipeline/redact-stored.ts, which ends
 * with TranscriptIndex.purgeDeleted), and scans every byte of the data dir again: no digit of the card
 * or the code as numerals or as words may be left in any file (the replaced index rows included).
 *
 * Audio (issue 24.3): beside the call, a zip of it and a zip whose one member fails are sent without
 * scrubaudio; after `voxdex redact` no upload is left (an archive's holds every member unredacted; a
 * failed job's too), and the kept audio, opened with the installation's key, holds no sound of the
 * digits (a raw-byte scan cannot see into sealed files).
 *
 * What the client sent (issue 24): the card in the call's metadata is gone from the request's row,
 * the transcript, the index and the result too.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openedSealedFiles, withBadRate } from '../fixtures/audio-at-rest.js';
import { makeTempDir, makeZip, removeDir } from '../fixtures/make-audio.js';
import { acmeDataDir, allFiles, CARD, findNeedles, makePaymentCall, needles, type Needle, type PaymentCall } from '../fixtures/redaction-call.js';
import { ROOT, startInProcess, upload, waitResult } from './harness.js';

const test = suite('e2e: voxdex redact purges the old words from the index');
let dir = '';
let call: PaymentCall;

test.before(() => {
  dir = makeTempDir('voxdex-redact-purge-');
  call = makePaymentCall(dir);
});

test.after(() => removeDir(dir));

/** The text needles, plus the card's groups as bare tokens (how a full-text index stores a term). */
function textNeedles(): Needle[] {
  const groups = CARD.match(/.{4}/g)!.map((g, i) => ({ what: `card group ${i + 1} as a bare token`, bytes: Buffer.from(g, 'utf8') }));
  return [...needles(call).filter((n) => !/bytes|PCM/.test(n.what)), ...groups];
}

test('an unredacted call redacted later by voxdex redact: no digit left in the data dir, index and WAL included', async () => {
  const dataDir = path.join(dir, 'data');
  const token = acmeDataDir(dataDir);
  const service = await startInProcess(dataDir, { VOXDEX_ASR_THREADS: '2' });
  const plain = { token, scrubtext: 'false', scrubaudio: 'false' };
  try {
    const zip = await makeZip(dir, 'call.zip', [{ path: call.file, name: 'call.wav' }]);
    const failing = await makeZip(dir, 'bad.zip', [{ path: withBadRate(call, dir), name: 'call.wav' }]);
    // The single call carries the card in its metadata too (job row, transcript, index, result).
    const note = { metadata: JSON.stringify({ note: `card ${CARD}` }) };
    for (const [file, want] of [[call.file, 200], [zip, 200], [failing, 422]] as const) {
      const sent = await upload(service.url, { file, fields: { ...plain, ...(file === call.file ? note : {}) } });
      assert.is(sent.status, 200, JSON.stringify(sent.body));
      const done = await waitResult(service.url, token, sent.body.requestid, 1_200_000);
      assert.is(done.status, want, JSON.stringify(done.body));
    }
  } finally {
    await service.close();
  }
  const audio = needles(call).filter((x) => /bytes|PCM/.test(x.what));
  const sealedFiles = () => allFiles(dataDir).filter((f) => /^(uploads|jobs)/.test(path.relative(dataDir, f)));
  const heard = async () => (await openedSealedFiles(dataDir, sealedFiles())).flatMap((f) => findNeedles(f.where, f.bytes, audio));
  assert.ok((await heard()).length > 0, 'before: the kept audio and the uploads hold the digits');
  assert.is(allFiles(dataDir).filter((f) => path.relative(dataDir, f).startsWith('uploads')).length, 3, 'before: three uploads');
  const n = textNeedles();
  const scan = () => allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  const before = scan();
  assert.ok(before.some((f) => /^search\.sqlite/.test(f)), `the unredacted index holds the card: ${JSON.stringify(before)}`);
  assert.ok(before.some((f) => /^jobs\.sqlite/.test(f)), `the request's row holds the card in its metadata: ${JSON.stringify(before)}`);

  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'redact', 'acme'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: dataDir, VOXDEX_LOG_LEVEL: 'warn' },
  }).toString();
  assert.match(out, /3 requests checked, 2 redacted/);
  assert.equal(scan(), []);
  assert.equal(allFiles(dataDir).filter((f) => path.relative(dataDir, f).startsWith('uploads')), [], 'no upload is left');
  assert.equal(await heard(), [], 'the kept audio is silenced over the digits');
});

test.run();
