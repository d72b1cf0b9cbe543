/**
 * The drop folder against a real directory tree, real chokidar events and real WAV files made by sox.
 * The Submitter here is a small recording class: it stands at the boundary to the service core.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DropFolderWatcher, type DropEvent } from '../src/drop/drop-folder.js';
import type { SubmitInput, Submitter } from '../src/drop/submitter.js';
import { voxdexError } from '../src/errors.js';
import { openSqliteStores } from '../src/store/sqlite/sqlite-stores.js';

/** Accepts RIFF/WAVE files for known folders, like the service's checks before answering. */
class RecordingSubmitter implements Submitter {
  calls: (SubmitInput & { content: Buffer; requestid: string; at: number })[] = [];
  known = new Set(['acme/sales/calls']);
  busyTimes = 0;
  onSubmit?: () => void;

  async submit(input: SubmitInput): Promise<{ requestid: string }> {
    const d = input.destination;
    if (!this.known.has(`${d.company}/${d.org}/${d.folder}`)) throw voxdexError('NOT_FOUND', `No folder ${d.company}/${d.org}/${d.folder}`);
    if (this.busyTimes > 0) {
      this.busyTimes--;
      throw voxdexError('OVERLOADED', 'queue full; try again later');
    }
    const content = await readFile(input.path);
    if (content.subarray(0, 4).toString('latin1') !== 'RIFF' || content.subarray(8, 12).toString('latin1') !== 'WAVE') {
      throw voxdexError('UNSUPPORTED_AUDIO', `${input.originalName} is not a WAV file or a zip/7z archive`);
    }
    const requestid = randomUUID();
    this.calls.push({ ...input, content, requestid, at: Date.now() });
    this.onSubmit?.();
    return { requestid };
  }
}

let root: string;
let audio: string;
function wav(seconds: number, freq: number): Buffer {
  const f = path.join(audio, `tone-${seconds}-${freq}.wav`);
  if (!existsSync(f)) execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-e', 'a-law', f, 'synth', String(seconds), 'sine', String(freq)]);
  return readFileSync(f);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function waitFor(events: DropEvent[], n: number, ms = 8000): Promise<void> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (events.length >= n) {
        clearInterval(t);
        resolve();
      } else if (Date.now() - start > ms) {
        clearInterval(t);
        reject(new Error(`timed out waiting for ${n} events; got ${JSON.stringify(events.map((e) => [e.file, e.result.kind]))}`));
      }
    }, 10);
  });
}

async function harness(opts: { dbFile?: string; submitter?: RecordingSubmitter } = {}) {
  const stores = openSqliteStores(opts.dbFile ?? ':memory:');
  const submitter = opts.submitter ?? new RecordingSubmitter();
  const events: DropEvent[] = [];
  const watcher = new DropFolderWatcher({ dropDir: root, ledger: stores.ledger, submitter, stableMs: 300, busyRetryMs: 200, onSettled: (e) => events.push(e) });
  await watcher.start();
  return {
    stores,
    submitter,
    events,
    watcher,
    stop: async () => {
      await watcher.close();
      await stores.close();
    },
  };
}

const folder = () => path.join(root, 'acme', 'sales', 'calls');
const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

const d = suite('drop folder');

d.before(() => {
  audio = mkdtempSync(path.join(tmpdir(), 'voxdex-drop-audio-'));
});
d.after(() => rmSync(audio, { recursive: true, force: true }));
d.before.each(() => {
  root = mkdtempSync(path.join(tmpdir(), 'voxdex-drop-'));
  mkdirSync(folder(), { recursive: true });
});
d.after.each(() => rmSync(root, { recursive: true, force: true }));

d('takes a file written slowly in chunks only once it is complete', async () => {
  const h = await harness();
  try {
    const data = wav(2, 440);
    const file = path.join(folder(), 'slow.wav');
    const fd = openSync(file, 'w');
    const chunk = Math.ceil(data.length / 8);
    for (let i = 0; i < 8; i++) {
      writeSync(fd, data, i * chunk, Math.min(chunk, data.length - i * chunk));
      await sleep(100);
    }
    closeSync(fd);
    const written = Date.now();
    assert.is(h.submitter.calls.length, 0, 'nothing taken while the file was growing');
    await waitFor(h.events, 1);
    assert.is(h.submitter.calls.length, 1);
    assert.ok(h.submitter.calls[0]!.content.equals(data), 'the complete file was submitted');
    assert.ok(h.submitter.calls[0]!.at - written >= 150, `taken ${h.submitter.calls[0]!.at - written} ms after the last write`);
    assert.equal(h.submitter.calls[0]!.destination, { company: 'acme', org: 'sales', folder: 'calls' });
    assert.is(h.submitter.calls[0]!.source, 'drop');
    assert.is(h.submitter.calls[0]!.originalName, 'slow.wav');
    assert.equal(ls(folder()), ['.done']);
    assert.equal(ls(path.join(folder(), '.done')), ['slow.wav']);
  } finally {
    await h.stop();
  }
});

d('ignores a *.part upload and takes it once renamed', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'call.wav.part'), wav(1, 500));
    await sleep(800);
    assert.is(h.submitter.calls.length, 0);
    assert.is(h.events.length, 0);
    renameSync(path.join(folder(), 'call.wav.part'), path.join(folder(), 'call.wav'));
    await waitFor(h.events, 1);
    assert.is(h.submitter.calls.length, 1);
    assert.is(h.submitter.calls[0]!.originalName, 'call.wav');
    assert.equal(ls(path.join(folder(), '.done')), ['call.wav']);
  } finally {
    await h.stop();
  }
});

d('submits the same content once; the copy goes to .done with a duplicate note', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'a.wav'), wav(1, 600));
    await waitFor(h.events, 1);
    writeFileSync(path.join(folder(), 'b.wav'), wav(1, 600));
    await waitFor(h.events, 2);
    assert.is(h.submitter.calls.length, 1);
    assert.is(h.events[1]!.result.kind, 'duplicate');
    const done = path.join(folder(), '.done');
    assert.equal(ls(done), ['a.wav', 'b.wav', 'b.wav.duplicate.json']);
    const note = JSON.parse(readFileSync(path.join(done, 'b.wav.duplicate.json'), 'utf8'));
    assert.is(note.duplicateOf, h.submitter.calls[0]!.requestid);
    assert.is(note.firstPath, path.join(folder(), 'a.wav'));
    assert.match(note.sha256, /^[0-9a-f]{64}$/);
  } finally {
    await h.stop();
  }
});

d('a restart between submit and move submits exactly once and then moves the file', async () => {
  const dbFile = path.join(root, '.jobs.sqlite');
  const submitter = new RecordingSubmitter();
  const first = await harness({ dbFile, submitter });
  let closing: Promise<void> | undefined;
  submitter.onSubmit = () => {
    closing = first.watcher.close(); // the process stops right after the service accepted the file
  };
  writeFileSync(path.join(folder(), 'r.wav'), wav(1, 700));
  await waitFor(first.events, 1);
  await closing;
  await first.stores.close();
  assert.is(submitter.calls.length, 1);
  assert.equal(ls(folder()), ['r.wav'], 'still in place: the move did not happen');
  submitter.onSubmit = undefined;

  const second = await harness({ dbFile, submitter });
  try {
    await waitFor(second.events, 1);
    assert.is(second.events[0]!.result.kind, 'resumed');
    assert.is(submitter.calls.length, 1, 'not submitted again');
    assert.equal(ls(path.join(folder(), '.done')), ['r.wav']);
  } finally {
    await second.stop();
  }
});

d('passes the <name>.json sidecar as metadata and moves it along', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'c1.json'), JSON.stringify({ agent: 'Ana', campaign: 'renewals' }));
    writeFileSync(path.join(folder(), 'c1.wav'), wav(1, 800));
    await waitFor(h.events, 1);
    assert.equal(h.submitter.calls[0]!.metadata, { agent: 'Ana', campaign: 'renewals' });
    assert.equal(ls(path.join(folder(), '.done')), ['c1.json', 'c1.wav']);
    assert.equal(ls(folder()), ['.done']);
  } finally {
    await h.stop();
  }
});

d('a sidecar\'s "options" object is the request\'s options, not metadata', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'c3.json'), JSON.stringify({ agent: 'Ana', options: { diarize: true, speakers: 2, vocab: 'Acme Gold' } }));
    writeFileSync(path.join(folder(), 'c3.wav'), wav(1, 850));
    await waitFor(h.events, 1);
    assert.equal(h.submitter.calls[0]!.metadata, { agent: 'Ana' });
    assert.equal(h.submitter.calls[0]!.options, { diarize: true, speakers: 2, vocab: 'Acme Gold' });
  } finally {
    await h.stop();
  }
});

d('a bad file goes to .failed with <name>.error.json', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'notes.txt'), 'not audio at all\n');
    await waitFor(h.events, 1);
    const failed = path.join(folder(), '.failed');
    assert.equal(ls(failed), ['notes.txt', 'notes.txt.error.json']);
    assert.equal(JSON.parse(readFileSync(path.join(failed, 'notes.txt.error.json'), 'utf8')), {
      code: 'UNSUPPORTED_AUDIO',
      message: 'notes.txt is not a WAV file or a zip/7z archive',
    });
    assert.is(readFileSync(path.join(failed, 'notes.txt'), 'utf8'), 'not audio at all\n', 'kept, not deleted');
  } finally {
    await h.stop();
  }
});

d('a broken sidecar fails the file with BAD_ARGUMENT and both go to .failed', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'c2.json'), '{"agent": ');
    writeFileSync(path.join(folder(), 'c2.wav'), wav(1, 900));
    await waitFor(h.events, 1);
    const failed = path.join(folder(), '.failed');
    assert.equal(ls(failed), ['c2.json', 'c2.wav', 'c2.wav.error.json']);
    const err = JSON.parse(readFileSync(path.join(failed, 'c2.wav.error.json'), 'utf8'));
    assert.is(err.code, 'BAD_ARGUMENT');
    assert.match(err.message, /^Sidecar c2\.json is not valid JSON/);
    assert.is(h.submitter.calls.length, 0);
  } finally {
    await h.stop();
  }
});

d('a file in an unknown company folder goes to .failed with NOT_FOUND', async () => {
  const dir = path.join(root, 'nope', 'sales', 'calls');
  mkdirSync(dir, { recursive: true });
  const h = await harness();
  try {
    writeFileSync(path.join(dir, 'x.wav'), wav(1, 440));
    await waitFor(h.events, 1);
    assert.equal(JSON.parse(readFileSync(path.join(dir, '.failed', 'x.wav.error.json'), 'utf8')), { code: 'NOT_FOUND', message: 'No folder nope/sales/calls' });
  } finally {
    await h.stop();
  }
});

d('a failed file dropped again after the folder exists is submitted', async () => {
  const h = await harness();
  h.submitter.known.delete('acme/sales/calls');
  try {
    writeFileSync(path.join(folder(), 'late.wav'), wav(1, 1000));
    await waitFor(h.events, 1);
    assert.is(h.events[0]!.result.kind, 'failed');
    h.submitter.known.add('acme/sales/calls');
    renameSync(path.join(folder(), '.failed', 'late.wav'), path.join(folder(), 'late.wav'));
    await waitFor(h.events, 2);
    assert.is(h.events[1]!.result.kind, 'submitted');
    assert.equal(ls(path.join(folder(), '.done')), ['late.wav']);
  } finally {
    await h.stop();
  }
});

d('leaves a file in place while the service is busy and takes it later', async () => {
  const h = await harness();
  h.submitter.busyTimes = 1;
  try {
    writeFileSync(path.join(folder(), 'b.wav'), wav(1, 1100));
    await waitFor(h.events, 2);
    assert.equal(h.events.map((e) => e.result.kind), ['busy', 'submitted']);
    assert.is(h.submitter.calls.length, 1);
  } finally {
    await h.stop();
  }
});

d('the same content dropped into another folder is a separate submission', async () => {
  const other = path.join(root, 'acme', 'sales', 'archive');
  mkdirSync(other, { recursive: true });
  const h = await harness();
  h.submitter.known.add('acme/sales/archive');
  try {
    writeFileSync(path.join(folder(), 'a.wav'), wav(1, 1400));
    await waitFor(h.events, 1);
    writeFileSync(path.join(other, 'a.wav'), wav(1, 1400));
    await waitFor(h.events, 2);
    assert.equal(h.events.map((e) => e.result.kind), ['submitted', 'submitted']);
    assert.equal(h.submitter.calls.map((c) => c.destination.folder), ['calls', 'archive']);
  } finally {
    await h.stop();
  }
});

d('never overwrites: a second file of the same name lands beside the first in .done', async () => {
  const h = await harness();
  try {
    writeFileSync(path.join(folder(), 'daily.wav'), wav(1, 1200));
    await waitFor(h.events, 1);
    writeFileSync(path.join(folder(), 'daily.wav'), wav(1, 1300));
    await waitFor(h.events, 2);
    assert.equal(ls(path.join(folder(), '.done')), ['daily.wav', 'daily~2.wav']);
    assert.ok(readFileSync(path.join(folder(), '.done', 'daily~2.wav')).equals(wav(1, 1300)));
  } finally {
    await h.stop();
  }
});

d.run();
