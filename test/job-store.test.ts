/** The storage conformance suite on the embedded SQLite adapter, and what is particular to it (group commit, synchronous mode). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewJob } from '../src/store/job-store.js';
import { openSqliteStores, type SqliteStores } from '../src/store/sqlite/sqlite-stores.js';
import type { Stores } from '../src/store/stores.js';
import { jobStoreConformance } from './conformance/job-store.conformance.js';

jobStoreConformance('sqlite', {
  open: (dir) => openSqliteStores(path.join(dir, 'jobs.sqlite')),
  // A trigger on this connection that refuses callback rows, as a full disk or a broken row would.
  failNextDelivery: (stores: Stores) => {
    (stores as SqliteStores).jobs.db.exec(`
      CREATE TEMP TRIGGER refuse_delivery BEFORE INSERT ON callback_deliveries
      BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;`);
  },
});

const group = suite('job-store: sqlite group commit (create)');
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
  const stores = openSqliteStores(path.join(gdir, 'jobs.sqlite'));
  const store = stores.jobs;
  const pending = ['a', 'b', 'c', 'd', 'e'].map((id) => store.create(newJob(id)));
  assert.is(await store.get('a'), undefined, 'nothing is committed before the turn ends');
  assert.is(await store.countQueued(), 0);
  const jobs = await Promise.all(pending);
  assert.equal(jobs.map((j) => j.id), ['a', 'b', 'c', 'd', 'e']);
  assert.equal(jobs.map((j) => j.seq - jobs[0]!.seq), [0, 1, 2, 3, 4]);
  assert.equal(jobs.map((j) => j.state), ['queued', 'queued', 'queued', 'queued', 'queued']);
  assert.is(await store.countQueued(), 5);
  const later = await store.create(newJob('f'));
  assert.is(later.seq, jobs[4]!.seq + 1);
  await stores.close();
});

group('close() commits rows still waiting for their turn', async () => {
  const file = path.join(gdir, 'jobs.sqlite');
  const stores = openSqliteStores(file);
  const p = stores.jobs.create(newJob('x'));
  await stores.close();
  assert.is((await p).id, 'x');
  const again = openSqliteStores(file);
  assert.is((await again.jobs.get('x'))?.state, 'queued');
  await again.close();
});

group('setProgress commits the progress and leaves the connection at synchronous=FULL for every other commit', async () => {
  const stores = openSqliteStores(path.join(gdir, 'jobs.sqlite'));
  const store = stores.jobs;
  await store.create(newJob('p'));
  await store.setProgress('p', 0.25);
  assert.is((await store.get('p'))!.progress, 0.25);
  assert.is(store.db.pragma('synchronous', { simple: true }), 2);
  await stores.close();
});

group('a jobs table from before request options gains the column; its jobs read back without options', async () => {
  const file = path.join(gdir, 'jobs.sqlite');
  const old = openSqliteStores(file);
  await old.jobs.create(newJob('old'));
  old.jobs.db.exec('ALTER TABLE jobs DROP COLUMN options');
  await old.close();
  const stores = openSqliteStores(file);
  const job = (await stores.jobs.get('old'))!;
  assert.is(job.source, 'old.wav');
  assert.is(job.options, undefined);
  const options = { numtrans: false, scrubtext: false, scrubaudio: false, redact: [], diarize: false, gender: false, sentiment: true, vocab: [] };
  assert.equal((await stores.jobs.create({ ...newJob('new'), options })).options, options);
  await stores.close();
});

group.run();

const atRest = suite('job-store: sqlite, a row rewritten under a redaction policy (issue 33.1)');
let rdir = '';
atRest.before.each(() => {
  rdir = mkdtempSync(path.join(os.tmpdir(), 'vx-store-rest-'));
});
atRest.after.each(() => rmSync(rdir, { recursive: true, force: true }));

const CARD = '5425233430109903';
const PHONE = '555-867-5309';

/** Every file in the store's folder (jobs.sqlite, -wal, -shm) that holds one of the needles, as "file: needle". */
function heldAtRest(dir: string, needles: readonly string[]): string[] {
  return readdirSync(dir).flatMap((f) => {
    const bytes = readFileSync(path.join(dir, f)).toString('latin1');
    return needles.filter((n) => bytes.includes(n)).map((n) => `${f}: ${n}`);
  });
}

atRest('right after the rewrite no file holds the old metadata: not the database (checkpointed before), not the WAL (written since)', async () => {
  const stores = openSqliteStores(path.join(rdir, 'jobs.sqlite'));
  const store = stores.jobs;
  await store.create({ ...newJob('r'), source: `cc-${CARD}.wav`, metadata: { card: CARD, phone: PHONE, agent: 'bob' } });
  // The row in the database file too (an automatic checkpoint ran since it was queued), and in the WAL again.
  store.db.pragma('wal_checkpoint(PASSIVE)');
  await store.setProgress('r', 0.1);
  await store.create(newJob('other'));
  assert.equal(heldAtRest(rdir, [CARD, PHONE]).sort(), ['jobs.sqlite-wal: 555-867-5309', 'jobs.sqlite-wal: 5425233430109903', 'jobs.sqlite: 555-867-5309', 'jobs.sqlite: 5425233430109903'].sort(), 'the fixture holds them');
  await store.rewriteClientText('r', 'cc-################.wav', { card: '################', phone: '###-###-####', agent: 'bob' });
  assert.equal(heldAtRest(rdir, [CARD, PHONE]), []);
  assert.equal((await store.get('r'))!.metadata, { card: '################', phone: '###-###-####', agent: 'bob' });
  assert.is((await store.get('other'))!.state, 'queued', 'the other rows are kept');
  await stores.close();
});

atRest.run();
