/**
 * The one conformance suite every storage adapter must pass: the job store, the callback outbox,
 * the submission ledger, and the settle transaction that commits a job's final state with its
 * callback. Usage, in a test file:
 *   jobStoreConformance('sqlite', { open: (dir) => openSqliteStores(path.join(dir, 'jobs.sqlite')), failNextDelivery })
 * `open(dir)` is called with a fresh empty directory per test, and again with the same directory to
 * check that what was committed survives reopening; for a server database, derive a fresh database
 * (or schema) name from `dir`. `failNextDelivery(stores)` makes the next callback row insert fail
 * (a trigger, say) so the suite can check that settle commits both rows or neither.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LIVE_PRIORITY } from '../../src/scheduler.js';
import type { NewJob } from '../../src/store/job-store.js';
import type { EnqueueInput } from '../../src/store/outbox.js';
import type { Stores } from '../../src/store/stores.js';

export interface ConformanceOptions {
  open: (dir: string) => Stores | Promise<Stores>;
  failNextDelivery: (stores: Stores) => void | Promise<void>;
}

export function jobStoreConformance(name: string, options: ConformanceOptions): void {
  jobsSuite(name, options.open);
  outboxSuite(name, options.open);
  ledgerSuite(name, options.open);
  settleSuite(name, options);
}

function tempDirs(s: ReturnType<typeof suite>): () => string {
  let dir = '';
  s.before.each(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vx-store-'));
  });
  s.after.each(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

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

function jobsSuite(name: string, openStores: ConformanceOptions['open']) {
  const s = suite(`job-store: ${name}`);
  const dirOf = tempDirs(s);

  s('creates a queued job and reads every field back', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    const options = { numtrans: true, scrubtext: true, scrubaudio: false, redact: ['card' as const], diarize: true, speakers: 2, gender: false, sentiment: false, vocab: ['Acme Gold'] };
    const created = await store.create(job('a', { callback: 'http://x/cb', metadata: { agent: 'bob' }, zpass: 'pw', warning: 'w', options }));
    assert.is(created.state, 'queued');
    assert.is(created.attempts, 0);
    assert.is(created.progress, 0);
    const got = (await store.get('a'))!;
    assert.equal(got.destination, { company: 'acme', org: 'sales', folder: 'calls' });
    assert.equal(got.metadata, { agent: 'bob' });
    assert.is(got.callback, 'http://x/cb');
    assert.is(got.zpass, 'pw');
    assert.is(got.callbackError, undefined);
    assert.equal(got.options, options);
    assert.is(got.priority, undefined);
    assert.is((await store.create(job('b'))).options, undefined);
    // A live call's job keeps its priority: after a restart it is resumed ahead of uploads.
    assert.is((await store.create(job('live', { priority: LIVE_PRIORITY }))).priority, LIVE_PRIORITY);
    assert.equal((await store.listUnfinished()).map((j) => [j.id, j.priority]), [['a', undefined], ['b', undefined], ['live', LIVE_PRIORITY]]);
    assert.is(await store.get('missing'), undefined);
    await stores.close();
  });

  s('adding the same id twice keeps one job (idempotent)', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a'));
    await store.markRunning('a');
    const again = await store.create(job('a', { source: 'other.wav' }));
    assert.is(again.state, 'running');
    assert.is(again.source, 'call.wav');
    assert.is((await store.listUnfinished()).length, 1);
    await stores.close();
  });

  s('moves queued → running → done; the first final state wins', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a'));
    assert.ok(await store.markRunning('a'));
    assert.is((await store.get('a'))!.attempts, 1);
    await store.setProgress('a', 0.5);
    assert.is((await store.get('a'))!.progress, 0.5);
    assert.ok(await store.settle('a', { state: 'done', resultPath: '/r/a.json' }));
    assert.not.ok(await store.settle('a', { state: 'failed', error: { code: 'INTERNAL', message: 'x' } }));
    assert.not.ok(await store.markRunning('a'));
    const a = (await store.get('a'))!;
    assert.is(a.state, 'done');
    assert.is(a.progress, 1);
    assert.is(a.resultPath, '/r/a.json');
    assert.is(a.error, undefined);
    await stores.close();
  });

  s('a failed job keeps its error and forgets the archive password', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a', { zpass: 'secret' }));
    await store.settle('a', { state: 'failed', error: { code: 'REQUEST_FAILED', message: 'every file failed' } });
    const a = (await store.get('a'))!;
    assert.equal(a.error, { code: 'REQUEST_FAILED', message: 'every file failed' });
    assert.is(a.zpass, undefined);
    await stores.close();
  });

  s('survives reopening: unfinished jobs come back in acceptance order with their attempts', async () => {
    let stores = await openStores(dirOf());
    let store = stores.jobs;
    for (const id of ['a', 'b', 'c', 'd']) await store.create(job(id));
    await store.markRunning('b');
    await store.settle('c', { state: 'cancelled' });
    await stores.close();
    stores = await openStores(dirOf());
    store = stores.jobs;
    assert.equal((await store.listUnfinished()).map((j) => [j.id, j.state, j.attempts]), [
      ['a', 'queued', 0],
      ['b', 'running', 1],
      ['d', 'queued', 0],
    ]);
    assert.ok(await store.markRunning('b'));
    assert.is((await store.get('b'))!.attempts, 2);
    await stores.close();
  });

  s('reports queue positions among queued jobs and counts by state', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    for (const id of ['a', 'b', 'c']) await store.create(job(id));
    assert.equal([await store.queuePosition('a'), await store.queuePosition('b'), await store.queuePosition('c')], [1, 2, 3]);
    await store.markRunning('a');
    assert.equal([await store.queuePosition('a'), await store.queuePosition('b'), await store.queuePosition('c')], [0, 1, 2]);
    await store.settle('a', { state: 'done' });
    assert.equal(await store.countByState(), { queued: 2, running: 0, done: 1, failed: 0, cancelled: 0 });
    await stores.close();
  });

  s('per-file items are added idempotently and updated one by one', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a', { kind: 'archive' }));
    await store.setItems('a', ['x.wav', 'y.wav']);
    const items = await store.setItems('a', ['x.wav', 'y.wav']);
    assert.equal(items.map((i) => [i.member, i.idx, i.state]), [
      ['x.wav', 0, 'queued'],
      ['y.wav', 1, 'queued'],
    ]);
    await store.updateItem('a', 'x.wav', { state: 'done', tid: 't1', audiosecs: 3.5, transcriptPath: '/t/x.json', bumpAttempts: true });
    await store.updateItem('a', 'y.wav', { state: 'failed', error: { code: 'BAD_AUDIO', message: 'bad' } });
    const [x, y] = await store.items('a');
    assert.equal(x, { requestId: 'a', member: 'x.wav', idx: 0, state: 'done', attempts: 1, tid: 't1', audiosecs: 3.5, transcriptPath: '/t/x.json' });
    assert.equal(y!.error, { code: 'BAD_AUDIO', message: 'bad' });
    await stores.close();
  });

  s('lists the most recent jobs first, of one company or of all, with limit and offset', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a1'));
    await store.create(job('g1', { destination: { company: 'globex', org: 'ops', folder: 'inbox' } }));
    await store.create(job('a2'));
    await store.create(job('a3'));
    await store.settle('a2', { state: 'done' });
    const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);
    assert.equal(ids(await store.listRecent({ company: 'acme', limit: 10, offset: 0 })), ['a3', 'a2', 'a1']);
    assert.equal(ids(await store.listRecent({ company: 'acme', limit: 2, offset: 1 })), ['a2', 'a1']);
    assert.equal(ids(await store.listRecent({ company: 'globex', limit: 10, offset: 0 })), ['g1']);
    assert.equal(ids(await store.listRecent({ limit: 10, offset: 0 })), ['a3', 'a2', 'g1', 'a1']);
    assert.equal(ids(await store.listRecent({ company: 'nobody', limit: 10, offset: 0 })), []);
    assert.is((await store.listRecent({ company: 'acme', limit: 1, offset: 1 }))[0]!.state, 'done');
    await stores.close();
  });

  s('keeps each upload\'s content hash and finds the first job of a company with it', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    const h1 = 'a'.repeat(64);
    await store.create(job('c1', { contentHash: h1 }));
    await store.create(job('g1', { contentHash: h1, destination: { company: 'globex', org: 'ops', folder: 'inbox' } }));
    await store.create(job('c2', { contentHash: h1, source: 'again.wav' }));
    await store.create(job('c3'));
    assert.is((await store.get('c2'))!.contentHash, h1);
    assert.is((await store.get('c3'))!.contentHash, undefined);
    assert.is((await store.firstWithContent('acme', h1))!.id, 'c1');
    assert.is((await store.firstWithContent('globex', h1))!.id, 'g1');
    assert.is(await store.firstWithContent('acme', 'b'.repeat(64)), undefined);
    await store.delete('c1');
    assert.is((await store.firstWithContent('acme', h1))!.id, 'c2');
    await stores.close();
  });

  s('rewrites the client\'s file name and metadata (a job run under a policy set after it was accepted)', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('r', { source: 'cc-4111111111111111.wav', metadata: { card: '4111111111111111', agent: 'bob' } }));
    await store.rewriteClientText('r', 'cc-################.wav', { card: '################', agent: 'bob' });
    const got = (await store.get('r'))!;
    assert.is(got.source, 'cc-################.wav');
    assert.equal(got.metadata, { card: '################', agent: 'bob' });
    await store.rewriteClientText('r', 'x.wav', undefined);
    assert.is((await store.get('r'))!.metadata, undefined);
    await stores.close();
  });

  s('deletes a job with its items', async () => {
    const stores = await openStores(dirOf());
    const store = stores.jobs;
    await store.create(job('a'));
    await store.setItems('a', ['call.wav']);
    assert.ok(await store.delete('a'));
    assert.not.ok(await store.delete('a'));
    assert.is(await store.get('a'), undefined);
    assert.equal(await store.items('a'), []);
    assert.ok(await store.ping());
    await stores.close();
    assert.not.ok(await store.ping());
  });

  s.run();
}


const delivery = (requestid: string, extra: Partial<EnqueueInput> = {}): EnqueueInput => ({
  requestid,
  company: 'acme',
  url: 'https://hooks.example.com/voxdex',
  kind: 'result',
  body: Buffer.from('{"ok":true}'),
  contentType: 'application/json',
  filename: `${requestid}.json`,
  secret: 'whsec',
  ...extra,
});

function outboxSuite(name: string, openStores: ConformanceOptions['open']) {
  const s = suite(`callback outbox: ${name}`);
  const dirOf = tempDirs(s);
  const T = 1_800_000_000_000;

  s('enqueue is idempotent per (request, kind) and stores the body as bytes or as a path', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const id = await outbox.enqueue(delivery('r1'), T);
    assert.is(await outbox.enqueue(delivery('r1', { url: 'https://other.example.com/' }), T + 5), id);
    const errId = await outbox.enqueue(delivery('r1', { kind: 'error', body: '/data/jobs/r1/result.json' }), T);
    assert.is.not(errId, id);
    const row = (await outbox.get(id))!;
    assert.equal(
      { requestid: row.requestid, kind: row.kind, url: row.url, body: row.body && Buffer.from(row.body).toString(), body_path: row.body_path, state: row.state, attempts: row.attempts, next_at: row.next_at, secret: row.secret },
      { requestid: 'r1', kind: 'result', url: 'https://hooks.example.com/voxdex', body: '{"ok":true}', body_path: null, state: 'pending', attempts: 0, next_at: T, secret: 'whsec' },
    );
    assert.equal([(await outbox.get(errId))!.body, (await outbox.get(errId))!.body_path], [null, '/data/jobs/r1/result.json']);
    assert.is(await outbox.get('no-such-delivery'), undefined);
    // The stored secrets can be forgotten (the service keeps none here); the rows stay.
    assert.is(await outbox.dropSecrets(), 2); // both deliveries were enqueued with one
    assert.is((await outbox.get(id))!.secret, null);
    assert.is(await outbox.dropSecrets(), 0);
    await stores.close();
  });

  s('wakes its listeners after an enqueue, not during it', async () => {
    const stores = await openStores(dirOf());
    let woken = 0;
    const off = stores.outbox.onEnqueue(() => woken++);
    await stores.outbox.enqueue(delivery('r1'), T);
    assert.is(woken, 0);
    await new Promise((r) => setImmediate(r));
    assert.is(woken, 1);
    off();
    await stores.outbox.enqueue(delivery('r2'), T);
    await new Promise((r) => setImmediate(r));
    assert.is(woken, 1);
    await stores.close();
  });

  s('due lists pending deliveries whose time has come, oldest first; a claim is exclusive', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const late = await outbox.enqueue(delivery('late'), T + 1000);
    const early = await outbox.enqueue(delivery('early'), T);
    assert.equal((await outbox.due(T + 999, 10)).map((r) => r.id), [early]);
    assert.equal((await outbox.due(T + 1000, 10)).map((r) => r.id), [early, late]);
    assert.equal((await outbox.due(T + 1000, 1)).map((r) => r.id), [early]);
    assert.is(await outbox.nextDueAt(), T);
    assert.is(await outbox.claim(early, T + 10), 1);
    assert.is(await outbox.claim(early, T + 10), 0, 'another dispatcher took it');
    assert.equal((await outbox.due(T + 1000, 10)).map((r) => r.id), [late]);
    assert.is(await outbox.nextDueAt(), T + 1000);
    await stores.close();
  });

  s('settling attempts: pending again later, then delivered; the status lists every attempt', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const id = await outbox.enqueue(delivery('r1'), T);
    assert.is(await outbox.claim(id, T), 1);
    await outbox.settle(id, 1, { status: 500, durationMs: 12, state: 'pending', nextAt: T + 30_000 }, T + 12);
    assert.equal(await outbox.due(T + 29_999, 10), []);
    assert.is(await outbox.claim(id, T + 30_000), 2);
    await outbox.settle(id, 2, { status: 200, durationMs: 8, state: 'delivered' }, T + 30_008);
    assert.equal(await outbox.deliveries('r1'), [
      {
        delivery: id,
        kind: 'result',
        url: 'https://hooks.example.com/voxdex',
        state: 'delivered',
        attempts: [
          { attempt: 1, at: new Date(T).toISOString(), durationMs: 12, status: 500 },
          { attempt: 2, at: new Date(T + 30_000).toISOString(), durationMs: 8, status: 200 },
        ],
        deliveredAt: new Date(T + 30_008).toISOString(),
      },
    ]);
    assert.is(await outbox.nextDueAt(), undefined);
    await stores.close();
  });

  s('a failed delivery keeps its last error; a pending one shows when it is due', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const a = await outbox.enqueue(delivery('a'), T);
    const b = await outbox.enqueue(delivery('b'), T);
    await outbox.claim(a, T);
    await outbox.settle(a, 1, { status: 404, durationMs: 3, state: 'failed' }, T + 3);
    await outbox.claim(b, T);
    await outbox.settle(b, 1, { error: 'CONNECT_TIMEOUT: no answer', durationMs: 5000, state: 'pending', nextAt: T + 60_000 }, T + 5000);
    const [sa] = await outbox.deliveries('a');
    const [sb] = await outbox.deliveries('b');
    assert.equal([sa!.state, sa!.lastError, sa!.nextAttemptAt], ['failed', 'HTTP 404', undefined]);
    assert.equal([sb!.state, sb!.lastError, sb!.nextAttemptAt], ['pending', 'CONNECT_TIMEOUT: no answer', new Date(T + 60_000).toISOString()]);
    await stores.close();
  });

  s('after reopening, a delivery left in flight is pending again with the same id and a note on its attempt', async () => {
    let stores = await openStores(dirOf());
    const id = await stores.outbox.enqueue(delivery('r1'), T);
    await stores.outbox.claim(id, T);
    await stores.close();
    stores = await openStores(dirOf());
    assert.is(await stores.outbox.recoverInflight(T + 100), 1);
    assert.is(await stores.outbox.recoverInflight(T + 200), 0);
    assert.equal((await stores.outbox.due(T + 100, 10)).map((r) => [r.id, r.state, r.attempts]), [[id, 'pending', 1]]);
    const [status] = await stores.outbox.deliveries('r1');
    assert.equal(status!.attempts, [{ attempt: 1, at: new Date(T).toISOString(), error: 'interrupted: the service stopped during this attempt; retried' }]);
    await stores.close();
  });

  s('resend puts a request’s delivered and failed deliveries back, due now, attempts numbered on; one in flight stays', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const result = await outbox.enqueue(delivery('r1'), T);
    const error = await outbox.enqueue(delivery('r1', { kind: 'error' }), T);
    const busy = await outbox.enqueue(delivery('r2'), T);
    await outbox.claim(result, T);
    await outbox.settle(result, 1, { status: 400, durationMs: 5, state: 'failed' }, T + 10);
    await outbox.claim(error, T);
    await outbox.settle(error, 1, { status: 200, durationMs: 5, state: 'delivered' }, T + 10);
    await outbox.claim(busy, T);
    assert.is(await outbox.resend('r1', T + 500), 2);
    assert.equal((await outbox.due(T + 500, 10)).map((r) => [r.id, r.state, r.attempts]).sort(), [[result, 'pending', 1], [error, 'pending', 1]].sort());
    assert.is(await outbox.claim(result, T + 600), 2);
    assert.is(await outbox.resend('r2', T + 500), 0, 'in flight: left alone');
    assert.is((await outbox.get(busy))!.state, 'inflight');
    assert.is(await outbox.resend('nothing', T), 0);
    await stores.close();
  });

  s('forget removes a request’s deliveries and their attempts', async () => {
    const stores = await openStores(dirOf());
    const { outbox } = stores;
    const id = await outbox.enqueue(delivery('r1'), T);
    await outbox.claim(id, T);
    const other = await outbox.enqueue(delivery('r2'), T);
    await outbox.forget('r1');
    assert.equal(await outbox.deliveries('r1'), []);
    assert.is(await outbox.get(id), undefined);
    assert.equal((await outbox.due(T, 10)).map((r) => r.id), [other]);
    await stores.close();
  });

  s.run();
}

function ledgerSuite(name: string, openStores: ConformanceOptions['open']) {
  const s = suite(`submission ledger: ${name}`);
  const dirOf = tempDirs(s);
  const calls = { company: 'acme', org: 'sales', folder: 'calls' };
  const other = { company: 'acme', org: 'sales', folder: 'other' };
  const sha = 'a'.repeat(64);

  s('submitting → submitted, per destination folder; a submitted content is never reopened', async () => {
    let stores = await openStores(dirOf());
    const { ledger } = stores;
    assert.is(await ledger.get(calls, sha), undefined);
    await ledger.begin(calls, sha, 'drop', '/drop/acme/sales/calls/a.wav');
    const begun = (await ledger.get(calls, sha))!;
    assert.equal([begun.state, begun.source, begun.destination, begun.path, begun.requestid], ['submitting', 'drop', calls, '/drop/acme/sales/calls/a.wav', undefined]);
    await ledger.submitted(calls, sha, 'req-1');
    await ledger.begin(calls, sha, 'import', '/elsewhere/a.wav');
    await ledger.failed(calls, sha, { code: 'BAD_AUDIO', message: 'late' });
    assert.is(await ledger.get(other, sha), undefined, 'keyed per folder');
    await stores.close();
    stores = await openStores(dirOf());
    const done = (await stores.ledger.get(calls, sha))!;
    assert.equal([done.state, done.requestid, done.source, done.path, done.error], ['submitted', 'req-1', 'drop', '/drop/acme/sales/calls/a.wav', undefined]);
    await stores.close();
  });

  s('a failed content keeps its error and may be submitted again; release forgets only an unfinished attempt', async () => {
    const stores = await openStores(dirOf());
    const { ledger } = stores;
    await ledger.begin(calls, sha, 'drop', '/drop/a.wav');
    await ledger.failed(calls, sha, { code: 'BAD_AUDIO', message: 'the WAV header is truncated' });
    const failed = (await ledger.get(calls, sha))!;
    assert.equal([failed.state, failed.error], ['failed', { code: 'BAD_AUDIO', message: 'the WAV header is truncated' }]);
    await ledger.begin(calls, sha, 'import', '/import/a.wav');
    const again = (await ledger.get(calls, sha))!;
    assert.equal([again.state, again.source, again.path, again.error], ['submitting', 'import', '/import/a.wav', undefined]);
    await ledger.release(calls, sha);
    assert.is(await ledger.get(calls, sha), undefined);
    await ledger.begin(calls, sha, 'drop', '/drop/a.wav');
    await ledger.submitted(calls, sha, 'req-2');
    await ledger.release(calls, sha);
    assert.is((await ledger.get(calls, sha))!.state, 'submitted');
    await stores.close();
  });

  s.run();
}

function settleSuite(name: string, options: ConformanceOptions) {
  const s = suite(`settle transaction: ${name}`);
  const dirOf = tempDirs(s);

  s('commits the final state and the callback together; both survive reopening', async () => {
    let stores = await openStores();
    await stores.jobs.create(job('a', { callback: 'https://hooks.example.com/voxdex' }));
    await stores.jobs.markRunning('a');
    let woken = 0;
    stores.outbox.onEnqueue(() => woken++);
    assert.ok(await stores.jobs.settle('a', { state: 'done', resultPath: '/data/jobs/a/result.json' }, delivery('a', { body: '/data/jobs/a/result.json' })));
    await new Promise((r) => setImmediate(r));
    assert.is(woken, 1, 'the dispatcher is woken');
    await stores.close();
    stores = await openStores();
    const a = (await stores.jobs.get('a'))!;
    assert.equal([a.state, a.resultPath], ['done', '/data/jobs/a/result.json']);
    assert.equal((await stores.outbox.deliveries('a')).map((d) => [d.kind, d.state]), [['result', 'pending']]);
    await stores.close();

    async function openStores() {
      return options.open(dirOf());
    }
  });

  s('the first final state wins: a later settle changes nothing and adds no callback', async () => {
    const stores = await options.open(dirOf());
    await stores.jobs.create(job('a'));
    assert.ok(await stores.jobs.settle('a', { state: 'cancelled', error: { code: 'CANCELLED', message: 'The request was cancelled' } }, delivery('a', { kind: 'error' })));
    assert.not.ok(await stores.jobs.settle('a', { state: 'done', resultPath: '/r.json' }, delivery('a')));
    assert.not.ok(await stores.jobs.settle('missing', { state: 'failed', error: { code: 'INTERNAL', message: 'x' } }, delivery('missing', { kind: 'error' })));
    const a = (await stores.jobs.get('a'))!;
    assert.equal([a.state, a.error, a.resultPath], ['cancelled', { code: 'CANCELLED', message: 'The request was cancelled' }, undefined]);
    assert.equal((await stores.outbox.deliveries('a')).map((d) => d.kind), ['error']);
    assert.equal(await stores.outbox.deliveries('missing'), []);
    await stores.close();
  });

  s('settling without a callback commits the state alone', async () => {
    const stores = await options.open(dirOf());
    await stores.jobs.create(job('a'));
    assert.ok(await stores.jobs.settle('a', { state: 'failed', error: { code: 'REQUEST_FAILED', message: 'All 2 files failed' } }));
    assert.is((await stores.jobs.get('a'))!.state, 'failed');
    assert.equal(await stores.outbox.deliveries('a'), []);
    await stores.close();
  });

  s('when the callback row cannot be written, the final state is not committed either', async () => {
    const stores = await options.open(dirOf());
    await stores.jobs.create(job('a', { zpass: 'pw' }));
    await stores.jobs.markRunning('a');
    await options.failNextDelivery(stores);
    let failed = false;
    try {
      await stores.jobs.settle('a', { state: 'done', resultPath: '/r.json' }, delivery('a'));
    } catch {
      failed = true;
    }
    assert.ok(failed, 'settle rejects');
    const a = (await stores.jobs.get('a'))!;
    assert.equal([a.state, a.resultPath, a.zpass], ['running', undefined, 'pw']);
    assert.equal(await stores.outbox.deliveries('a'), []);
    await stores.close();
  });

  s.run();
}
