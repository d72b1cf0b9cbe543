/**
 * `voxdex redact` leaves no old words behind (issue 17, privacy rule): the real-speech payment call of
 * test/fixtures/redaction-call.ts is transcribed and indexed unredacted (scrubtext and scrubaudio off)
 * by an embedded service; the test checks that the search index's files (SQLite index file, -wal,
 * -shm) then hold the card's digits, runs `voxdex redact acme` (pipelines/redact-stored.ts, which ends
 * with TranscriptIndex.purgeDeleted), and scans every byte of the data dir again: no digit of the card
 * or the code as numerals or as words may be left in any file (the replaced index rows included).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
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
  try {
    const sent = await upload(service.url, { file: call.file, fields: { token, scrubtext: 'false', scrubaudio: 'false' } });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const done = await waitResult(service.url, token, sent.body.requestid, 1_200_000);
    assert.is(done.status, 200, JSON.stringify(done.body));
  } finally {
    await service.close();
  }
  const n = textNeedles();
  const scan = () => allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  const before = scan();
  assert.ok(before.some((f) => /^search\.sqlite/.test(f)), `the unredacted index holds the card: ${JSON.stringify(before)}`);

  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'redact', 'acme'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: dataDir, VOXDEX_LOG_LEVEL: 'warn' },
  }).toString();
  assert.match(out, /1 redacted/);
  assert.equal(scan(), []);
});

test.run();
