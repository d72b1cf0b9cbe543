import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { JobStore, NewJob } from '../src/store/job-store.js';
import { SqliteJobStore } from '../src/store/sqlite-job-store.js';

/** The conformance suite every JobStore adapter must pass. */
function conformance(name: string, open: (dir: string) => JobStore) {
  const s = suite(`job-store: ${name}`);
  let dir = '';
  s.before.each(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vx-store-'));
  });
  s.after.each(() => rmSync(dir, { recursive: true, force: true }));

  const job = (id: string, extra: Partial<NewJob> = {}): NewJob => ({
    id,
    destination: { company: 'acme', org: 'sales', folder: 'calls' },
    model: 'auto',
    output: 'json',
    datetime: '2026-11-22T10:00:00.000Z',
    source: 'call.wav',
    kind: 'audio',
    uploadPath: `/data/uploads/${id}/call.wav`,
    sizeBytes: 1000,
    ...extra,
  });

  s('creates a queued job and reads every field back', () => {
    const store = open(dir);
    const created = store.create(job('a', { callback: 'http://x/cb', metadata: { agent: 'bob' }, zpass: 'pw', warning: 'w' }));
    assert.is(created.state, 'queued');
    assert.is(created.attempts, 0);
    assert.is(created.progress, 0);
    const got = store.get('a')!;
    assert.equal(got.destination, { company: 'acme', org: 'sales', folder: 'calls' });
    assert.equal(got.metadata, { agent: 'bob' });
    assert.is(got.callback, 'http://x/cb');
    assert.is(got.zpass, 'pw');
    assert.is(got.callbackError, undefined);
    assert.is(store.get('missing'), undefined);
    store.close();
  });

  s('adding the same id twice keeps one job (idempotent)', () => {
    const store = open(dir);
    store.create(job('a'));
    store.markRunning('a');
    const again = store.create(job('a', { source: 'other.wav' }));
    assert.is(again.state, 'running');
    assert.is(again.source, 'call.wav');
    assert.is(store.listUnfinished().length, 1);
    store.close();
  });

  s('moves queued → running → done; the first final state wins', () => {
    const store = open(dir);
    store.create(job('a'));
    assert.ok(store.markRunning('a'));
    assert.is(store.get('a')!.attempts, 1);
    store.setProgress('a', 0.5);
    assert.is(store.get('a')!.progress, 0.5);
    assert.ok(store.finish('a', 'done', { resultPath: '/r/a.json' }));
    assert.not.ok(store.finish('a', 'failed', { error: { code: 'INTERNAL', message: 'x' } }));
    assert.not.ok(store.markRunning('a'));
    const a = store.get('a')!;
    assert.is(a.state, 'done');
    assert.is(a.progress, 1);
    assert.is(a.resultPath, '/r/a.json');
    assert.is(a.error, undefined);
    store.close();
  });

  s('a failed job keeps its error and forgets the archive password', () => {
    const store = open(dir);
    store.create(job('a', { zpass: 'secret' }));
    store.finish('a', 'failed', { error: { code: 'REQUEST_FAILED', message: 'every file failed' } });
    const a = store.get('a')!;
    assert.equal(a.error, { code: 'REQUEST_FAILED', message: 'every file failed' });
    assert.is(a.zpass, undefined);
    store.close();
  });

  s('survives reopening: unfinished jobs come back in acceptance order with their attempts', () => {
    let store = open(dir);
    for (const id of ['a', 'b', 'c', 'd']) store.create(job(id));
    store.markRunning('b');
    store.finish('c', 'cancelled');
    store.close();
    store = open(dir);
    assert.equal(store.listUnfinished().map((j) => [j.id, j.state, j.attempts]), [
      ['a', 'queued', 0],
      ['b', 'running', 1],
      ['d', 'queued', 0],
    ]);
    assert.ok(store.markRunning('b'));
    assert.is(store.get('b')!.attempts, 2);
    store.close();
  });

  s('reports queue positions among queued jobs and counts by state', () => {
    const store = open(dir);
    for (const id of ['a', 'b', 'c']) store.create(job(id));
    assert.equal([store.queuePosition('a'), store.queuePosition('b'), store.queuePosition('c')], [1, 2, 3]);
    store.markRunning('a');
    assert.equal([store.queuePosition('a'), store.queuePosition('b'), store.queuePosition('c')], [0, 1, 2]);
    store.finish('a', 'done');
    assert.equal(store.countByState(), { queued: 2, running: 0, done: 1, failed: 0, cancelled: 0 });
    store.close();
  });

  s('per-file items are added idempotently and updated one by one', () => {
    const store = open(dir);
    store.create(job('a', { kind: 'archive' }));
    store.setItems('a', ['x.wav', 'y.wav']);
    const items = store.setItems('a', ['x.wav', 'y.wav']);
    assert.equal(items.map((i) => [i.member, i.idx, i.state]), [
      ['x.wav', 0, 'queued'],
      ['y.wav', 1, 'queued'],
    ]);
    store.updateItem('a', 'x.wav', { state: 'done', tid: 't1', audiosecs: 3.5, transcriptPath: '/t/x.json', bumpAttempts: true });
    store.updateItem('a', 'y.wav', { state: 'failed', error: { code: 'BAD_AUDIO', message: 'bad' } });
    const [x, y] = store.items('a');
    assert.equal(x, { requestId: 'a', member: 'x.wav', idx: 0, state: 'done', attempts: 1, tid: 't1', audiosecs: 3.5, transcriptPath: '/t/x.json' });
    assert.equal(y!.error, { code: 'BAD_AUDIO', message: 'bad' });
    store.close();
  });

  s('lists the most recent jobs first, of one company or of all, with limit and offset', () => {
    const store = open(dir);
    store.create(job('a1'));
    store.create(job('g1', { destination: { company: 'globex', org: 'ops', folder: 'inbox' } }));
    store.create(job('a2'));
    store.create(job('a3'));
    store.finish('a2', 'done');
    const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);
    assert.equal(ids(store.listRecent({ company: 'acme', limit: 10, offset: 0 })), ['a3', 'a2', 'a1']);
    assert.equal(ids(store.listRecent({ company: 'acme', limit: 2, offset: 1 })), ['a2', 'a1']);
    assert.equal(ids(store.listRecent({ company: 'globex', limit: 10, offset: 0 })), ['g1']);
    assert.equal(ids(store.listRecent({ limit: 10, offset: 0 })), ['a3', 'a2', 'g1', 'a1']);
    assert.equal(ids(store.listRecent({ company: 'nobody', limit: 10, offset: 0 })), []);
    assert.is(store.listRecent({ company: 'acme', limit: 1, offset: 1 })[0]!.state, 'done');
    store.close();
  });

  s('deletes a job with its items', () => {
    const store = open(dir);
    store.create(job('a'));
    store.setItems('a', ['call.wav']);
    assert.ok(store.delete('a'));
    assert.not.ok(store.delete('a'));
    assert.is(store.get('a'), undefined);
    assert.equal(store.items('a'), []);
    assert.ok(store.ping());
    store.close();
    assert.not.ok(store.ping());
  });

  s.run();
}

conformance('sqlite', (dir) => new SqliteJobStore(path.join(dir, 'jobs.sqlite')));

const group = suite('job-store: sqlite group commit (createBatched)');
let gdir = '';
group.before.each(() => {
  gdir = mkdtempSync(path.join(os.tmpdir(), 'vx-store-group-'));
});
group.after.each(() => rmSync(gdir, { recursive: true, force: true }));
const newJob = (id: string): NewJob => ({
  id,
  destination: { company: 'acme', org: 'sales', folder: 'calls' },
  model: 'auto',
  output: 'json',
  datetime: '2026-11-22T10:00:00.000Z',
  source: `${id}.wav`,
  kind: 'audio',
  uploadPath: `/data/uploads/${id}-call.wav`,
  sizeBytes: 1000,
});

group('commits rows created in the same turn together, in order, and resolves each with its row', async () => {
  const store = new SqliteJobStore(path.join(gdir, 'jobs.sqlite'));
  const pending = ['a', 'b', 'c', 'd', 'e'].map((id) => store.createBatched(newJob(id)));
  assert.is(store.get('a'), undefined, 'nothing is committed before the turn ends');
  assert.is(store.countQueued(), 0);
  const jobs = await Promise.all(pending);
  assert.equal(jobs.map((j) => j.id), ['a', 'b', 'c', 'd', 'e']);
  assert.equal(jobs.map((j) => j.seq - jobs[0]!.seq), [0, 1, 2, 3, 4]);
  assert.equal(jobs.map((j) => j.state), ['queued', 'queued', 'queued', 'queued', 'queued']);
  assert.is(store.countQueued(), 5);
  const later = await store.createBatched(newJob('f'));
  assert.is(later.seq, jobs[4]!.seq + 1);
  store.close();
});

group('close() commits rows still waiting for their turn', async () => {
  const file = path.join(gdir, 'jobs.sqlite');
  const store = new SqliteJobStore(file);
  const p = store.createBatched(newJob('x'));
  store.close();
  assert.is((await p).id, 'x');
  const again = new SqliteJobStore(file);
  assert.is(again.get('x')?.state, 'queued');
  again.close();
});

group('setProgress commits the progress and leaves the connection at synchronous=FULL for every other commit', async () => {
  const store = new SqliteJobStore(path.join(gdir, 'jobs.sqlite'));
  await store.createBatched(newJob('p'));
  store.setProgress('p', 0.25);
  assert.is(store.get('p')!.progress, 0.25);
  assert.is(store.db.pragma('synchronous', { simple: true }), 2);
  store.close();
});

group.run();
