import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { formatSummary, parseImportArgs, runImport } from '../src/cli/import.js';
import type { SubmitInput, Submitter } from '../src/drop/submitter.js';
import { VoxdexError, voxdexError } from '../src/errors.js';
import { openSqliteStores } from '../src/store/sqlite/sqlite-stores.js';

class RecordingSubmitter implements Submitter {
  calls: SubmitInput[] = [];
  known = new Set(['acme/sales/calls']);
  async submit(input: SubmitInput) {
    const d = input.destination;
    if (!this.known.has(`${d.company}/${d.org}/${d.folder}`)) throw voxdexError('NOT_FOUND', `No folder ${d.company}/${d.org}/${d.folder}`);
    const head = (await readFile(input.path)).subarray(0, 12).toString('latin1');
    if (!head.startsWith('RIFF') || head.slice(8) !== 'WAVE') throw voxdexError('UNSUPPORTED_AUDIO', `${input.originalName} is not a WAV file or a zip/7z archive`);
    this.calls.push(input);
    return { requestid: randomUUID() };
  }
}

let dir: string;
const imp = suite('voxdex import');

imp.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'voxdex-import-'));
  const src = path.join(dir, 'src');
  mkdirSync(path.join(src, 'sub'), { recursive: true });
  mkdirSync(path.join(src, '.hidden'), { recursive: true });
  const sox = (f: string, freq: number) => execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-e', 'u-law', f, 'synth', '0.5', 'sine', String(freq)]);
  sox(path.join(src, 'a.wav'), 440);
  sox(path.join(src, 'sub', 'b.wav'), 550);
  writeFileSync(path.join(src, 'sub', 'b.json'), JSON.stringify({ agent: 'Bo' }));
  writeFileSync(path.join(src, 'dup.wav'), readFileSync(path.join(src, 'a.wav')));
  writeFileSync(path.join(src, 'c.wav.part'), 'partial');
  sox(path.join(src, '.hidden', 'x.wav'), 660);
  writeFileSync(path.join(src, 'notes.txt'), 'hello');
});
imp.after.each(() => rmSync(dir, { recursive: true, force: true }));

imp('submits each content once, skips duplicates and partial files, and prints a summary', async () => {
  const stores = openSqliteStores(':memory:');
  const submitter = new RecordingSubmitter();
  const lines: string[] = [];
  const s = await runImport({ dir: path.join(dir, 'src'), to: 'acme/sales/calls', submitter, ledger: stores.ledger, log: (l) => lines.push(l), progress: false });
  assert.equal({ total: s.total, submitted: s.submitted, duplicates: s.duplicates, failed: s.failed }, { total: 4, submitted: 2, duplicates: 1, failed: 1 });
  assert.equal(submitter.calls.map((c) => [c.originalName, c.source, c.metadata]), [
    ['a.wav', 'import', undefined],
    ['b.wav', 'import', { agent: 'Bo' }],
  ]);
  assert.equal(submitter.calls[0]!.destination, { company: 'acme', org: 'sales', folder: 'calls' });
  assert.is(lines[0], `import: 4 files from ${path.join(dir, 'src')} to acme/sales/calls`);
  assert.is(
    lines.at(-1),
    'import done: 4 files: submitted 2, skipped duplicates 1, failed 1\n  failed notes.txt: UNSUPPORTED_AUDIO: notes.txt is not a WAV file or a zip/7z archive',
  );
  assert.equal(readdirSync(path.join(dir, 'src')).sort(), ['.hidden', 'a.wav', 'c.wav.part', 'dup.wav', 'notes.txt', 'sub'], 'nothing moved or deleted');
  await stores.close();
});

imp('a rerun on the same data dir submits nothing twice', async () => {
  const file = path.join(dir, 'jobs.sqlite');
  const submitter = new RecordingSubmitter();
  let stores = openSqliteStores(file);
  await runImport({ dir: path.join(dir, 'src'), to: 'acme/sales/calls', submitter, ledger: stores.ledger, log: () => {} });
  await stores.close();
  stores = openSqliteStores(file);
  const again = await runImport({ dir: path.join(dir, 'src'), to: 'acme/sales/calls', submitter, ledger: stores.ledger, log: () => {} });
  assert.equal([again.submitted, again.duplicates, again.failed], [0, 3, 1]);
  assert.is(submitter.calls.length, 2);
  await stores.close();
});

imp('prints plain progress lines when stdout is not a terminal', async () => {
  const stores = openSqliteStores(':memory:');
  const lines: string[] = [];
  await runImport({ dir: path.join(dir, 'src'), to: 'acme/sales/calls', submitter: new RecordingSubmitter(), ledger: stores.ledger, log: (l) => lines.push(l), progress: false, progressEverySec: 0 });
  assert.equal(lines.slice(1, 5), [
    'import: 1/4 files (submitted 1, duplicates 0, failed 0)',
    'import: 2/4 files (submitted 1, duplicates 1, failed 0)',
    'import: 3/4 files (submitted 1, duplicates 1, failed 1)',
    'import: 4/4 files (submitted 2, duplicates 1, failed 1)',
  ]);
  await stores.close();
});

imp('stops at once when the destination folder does not exist', async () => {
  const stores = openSqliteStores(':memory:');
  try {
    await runImport({ dir: path.join(dir, 'src'), to: 'acme/sales/nope', submitter: new RecordingSubmitter(), ledger: stores.ledger, log: () => {} });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, VoxdexError);
    assert.is((err as VoxdexError).message, 'No folder acme/sales/nope (import stopped: every file would fail the same way)');
  }
  await stores.close();
});

imp('parses DIR --to CO/ORG/FOLDER and rejects a bad destination', () => {
  assert.equal(parseImportArgs(['/data/calls', '--to', 'acme/sales/calls']), { dir: '/data/calls', to: { company: 'acme', org: 'sales', folder: 'calls' } });
  assert.equal(parseImportArgs(['--to=a/b/c', 'x']).to, { company: 'a', org: 'b', folder: 'c' });
  assert.throws(() => parseImportArgs(['x']), /^Usage: voxdex import DIR --to CO_SHORT\/ORG_SHORT\/FOLDERNAME$/);
  assert.throws(() => parseImportArgs(['x', '--to', 'acme/sales']), /Expected CO_SHORT\/ORG_SHORT\/FOLDERNAME .* but received "acme\/sales"/);
  assert.throws(() => parseImportArgs(['x', '--to', 'acme/sa les/c']), /received "acme\/sa les\/c"/);
  assert.throws(() => parseImportArgs(['x', '--force', '--to', 'a/b/c']), /Unknown option --force/);
});

imp('formats a summary without failures on one line', () => {
  assert.is(formatSummary({ total: 3, submitted: 3, duplicates: 0, failed: 0, failures: [] }), 'import done: 3 files: submitted 3, skipped duplicates 0, failed 0');
});

imp.run();
