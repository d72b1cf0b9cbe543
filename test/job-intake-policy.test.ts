/**
 * The company's redaction policy at intake (issue 24), on every way in — an HTTP-shaped submission,
 * `voxdex import` flags and a drop-folder sidecar (both through intakeFile and the service's
 * submitter): a request's `redact=` adds to the policy's kinds and never narrows them, and what the
 * client sent beside the audio (file name, metadata, sidecar notes, the ledger's path, error
 * messages) is stored redacted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AudioSeal } from '../src/audio/sealed-file.js';
import { LocalBlobStore } from '../src/blobs/local-blob-store.js';
import { loadConfig } from '../src/config.js';
import { intakeFile } from '../src/drop/submit-once.js';
import { VoxdexError } from '../src/errors.js';
import { JobIntake } from '../src/jobs/job-intake.js';
import { serviceSubmitter } from '../src/service.js';
import { JobPaths } from '../src/store/paths.js';
import { openSqliteStores, type SqliteStores } from '../src/store/sqlite/sqlite-stores.js';
import type { CompanySettings } from '../src/types.js';
import { makeTempDir, removeDir } from './fixtures/make-audio.js';

const test = suite('intake under a redaction policy');
const CARD = '4539148803436467';
const MASKED = '#'.repeat(16);
const DEFAULT = ['card', 'cvv', 'expiry', 'ssn', 'digits'];
let dir = '';
let stores: SqliteStores;
let settings: CompanySettings = {};
let intake: JobIntake;

test.before.each(() => {
  dir = makeTempDir('voxdex-intake-policy-');
  stores = openSqliteStores(':memory:');
  settings = { scrub: ['text', 'audio'] };
  intake = new JobIntake({
    config: loadConfig({ VOXDEX_DATA_DIR: dir, VOXDEX_MIN_FREE_DISK_MIB: '0' }),
    store: stores.jobs,
    tenancy: { requireScope: () => undefined, resolveModel: () => 'auto' },
    blobs: new LocalBlobStore(path.join(dir, 'blobs')),
    seal: AudioSeal.ephemeral(),
    paths: new JobPaths(dir),
    installedModels: () => ['auto'],
    companySettings: () => settings,
  });
});
test.after.each(() => {
  stores.close();
  removeDir(dir);
});

function wav(name: string): string {
  const file = path.join(dir, name);
  execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-e', 'u-law', file, 'synth', '0.2', 'sine', '440']);
  return file;
}
const destination = { company: 'acme', org: 'pay', folder: 'calls' };
/** Every file name under the blob store. */
const blobNames = (): string[] => readdirSync(path.join(dir, 'blobs'), { recursive: true }).map(String);

test('HTTP: redact=cvv under the policy keeps every default kind; the name, the blob key and the metadata are stored redacted', async () => {
  const file = wav('upload.wav');
  const id = await intake.submit({ destination, file: { path: file, name: `cc-${CARD}.wav`, size: 1000 }, move: false, metadata: JSON.stringify({ card: CARD, agent: 'bob' }), options: { redact: 'cvv' } });
  const job = (await stores.jobs.get(id))!;
  assert.equal(job.options!.redact, DEFAULT);
  assert.equal([job.options!.scrubtext, job.options!.scrubaudio], [true, true]);
  assert.is(job.source, `cc-${MASKED}.wav`);
  assert.equal(job.metadata, { card: MASKED, agent: 'bob' });
  assert.ok(blobNames().some((n) => n.endsWith(`cc-${MASKED}.wav`)), blobNames().join());
  assert.ok(!blobNames().some((n) => n.includes(CARD)));
});

test('HTTP: an error quoting the client\'s metadata is redacted under the policy, not without it', async () => {
  const bad = () => intake.submit({ destination, file: { path: wav('bad.wav'), name: 'x.wav', size: 1000 }, move: false, metadata: `{"card": ${CARD}` });
  const err = (await bad().catch((e: unknown) => e)) as VoxdexError;
  assert.is(err.code, 'BAD_ARGUMENT');
  assert.is(err.message, `Expected a JSON object for metadata but received "{\\"card\\": ${MASKED}"`);
  settings = {};
  assert.match(((await bad().catch((e: unknown) => e)) as VoxdexError).message, CARD);
});

test('voxdex import --redact cvv and a drop-folder sidecar asking redact=cvv: the policy\'s kinds stay; the ledger holds the path redacted', async () => {
  const submitter = serviceSubmitter(intake);
  const viaImport = await intakeFile(wav(`cc-${CARD}.wav`), destination, 'import', { ledger: stores.ledger, submitter, options: { redact: 'cvv' } });
  assert.is(viaImport.kind, 'submitted');
  assert.is(viaImport.shown, path.join(dir, `cc-${MASKED}.wav`));
  const dropped = wav(`call-${CARD.slice(0, 12)}9.wav`);
  writeFileSync(dropped.replace(/\.wav$/, '.json'), JSON.stringify({ note: `card ${CARD}`, options: { redact: 'cvv', scrubtext: true } }));
  const viaDrop = await intakeFile(dropped, destination, 'drop', { ledger: stores.ledger, submitter });
  assert.is(viaDrop.kind, 'submitted');
  for (const r of [viaImport, viaDrop]) {
    const job = (await stores.jobs.get((r as { requestid: string }).requestid))!;
    assert.equal(job.options!.redact, DEFAULT);
  }
  const dropJob = (await stores.jobs.get((viaDrop as { requestid: string }).requestid))!;
  assert.equal(dropJob.metadata, { note: `card ${MASKED}` });
  assert.is(dropJob.source, `call-${'#'.repeat(13)}.wav`);
  const rows = stores.jobs.db.prepare('SELECT path FROM intake_files').pluck().all() as string[];
  assert.equal(rows.map((p) => path.basename(p)).sort(), [`call-${'#'.repeat(13)}.wav`, `cc-${MASKED}.wav`]);
});

test.run();
