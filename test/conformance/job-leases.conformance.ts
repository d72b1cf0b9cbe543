/**
 * The conformance suite of job leases (JobLeases in src/store/job-store.ts): how several worker
 * processes share one queue. Run against every adapter that offers leases (PostgreSQL); the embedded
 * SQLite store runs jobs in one process and has no leases.
 *   jobLeasesConformance('postgres', { open: () => openPgStores(…) })
 * Each test opens two store instances on the same database (two nodes) where it needs them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LIVE_PRIORITY } from '../../src/scheduler.js';
import type { JobLeases, JobStore, NewJob } from '../../src/store/job-store.js';
import type { Stores } from '../../src/store/stores.js';

export interface LeasesConformanceOptions {
  /** A fresh empty database per `fresh()` call; `open()` opens another node on the same one. */
  fresh: () => Promise<void>;
  open: () => Promise<Stores & { jobs: JobStore & JobLeases }>;
  dispose: () => Promise<void>;
}

const job = (id: string, sizeBytes: number, extra: Partial<NewJob> = {}): NewJob => ({
  id,
  destination: { company: 'acme', org: 'sales', folder: 'calls' },
  model: 'auto',
  output: 'json',
  datetime: '2026-11-22T10:00:00.000Z',
  source: `${id}.wav`,
  kind: 'audio',
  uploadPath: `uploads/${id}-call.wav`,
  sizeBytes,
  ...extra,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function jobLeasesConformance(name: string, o: LeasesConformanceOptions): void {
  const s = suite(`job leases: ${name}`);
  const opened: Stores[] = [];
  const open = async () => {
    const st = await o.open();
    opened.push(st);
    return st;
  };
  s.before.each(async () => {
    await o.fresh();
  });
  s.after.each(async () => {
    for (const st of opened.splice(0)) await st.close();
    await o.dispose();
  });

  s('claims the smallest queued job first, marks it running with a lease, and never gives one job to two workers', async () => {
    const a = await open();
    const b = await open();
    await a.jobs.create(job('big', 9_000_000));
    await a.jobs.create(job('small', 1_000));
    await a.jobs.create(job('mid', 50_000));
    const first = await a.jobs.claim({ owner: 'w1', leaseMs: 30_000 });
    assert.equal([first?.id, first?.state, first?.attempts], ['small', 'running', 1]);
    const together = await Promise.all([a.jobs.claim({ owner: 'w1', leaseMs: 30_000 }), b.jobs.claim({ owner: 'w2', leaseMs: 30_000 })]);
    assert.equal(together.map((j) => j?.id).sort(), ['big', 'mid']);
    assert.is(await b.jobs.claim({ owner: 'w2', leaseMs: 30_000 }), undefined, 'nothing left to claim');
    assert.equal(await a.jobs.countByState(), { queued: 0, running: 3, done: 0, failed: 0, cancelled: 0 });
  });

  s('a live call job (LIVE_PRIORITY) is claimed before smaller uploads, and may take the small-job slot whatever its size', async () => {
    const a = await open();
    await a.jobs.create(job('small', 1_000));
    await a.jobs.create(job('live', 9_000_000, { priority: LIVE_PRIORITY }));
    const slot = await a.jobs.claim({ owner: 'w1', leaseMs: 30_000, maxBytes: 512 * 1024 });
    assert.equal([slot?.id, slot?.priority], ['live', LIVE_PRIORITY]);
    assert.is((await a.jobs.claim({ owner: 'w1', leaseMs: 30_000 }))?.id, 'small');
  });

  s('a worker holding a small-job slot claims only jobs up to maxBytes', async () => {
    const a = await open();
    await a.jobs.create(job('big', 9_000_000));
    assert.is(await a.jobs.claim({ owner: 'w1', leaseMs: 30_000, maxBytes: 512 * 1024 }), undefined);
    await a.jobs.create(job('small', 100_000));
    assert.is((await a.jobs.claim({ owner: 'w1', leaseMs: 30_000, maxBytes: 512 * 1024 }))?.id, 'small');
  });

  s('the heartbeat renews only its own leases; a job whose lease expired is taken over by another worker before any queued one', async () => {
    const a = await open();
    const b = await open();
    await a.jobs.create(job('j', 1_000));
    await a.jobs.create(job('k', 2_000));
    await a.jobs.claim({ owner: 'dead', leaseMs: 300 });
    await a.jobs.claim({ owner: 'live', leaseMs: 300 });
    assert.equal(await a.jobs.renewLeases('live', ['j', 'k'], 30_000), { held: ['k'], cancelRequested: [] });
    assert.is(await b.jobs.claim({ owner: 'other', leaseMs: 30_000 }), undefined, 'leases still hold');
    await b.jobs.create(job('tiny', 10));
    await sleep(450);
    const taken = await b.jobs.claim({ owner: 'other', leaseMs: 30_000 });
    assert.equal([taken?.id, taken?.attempts, taken?.state], ['j', 2, 'running']);
    assert.is((await b.jobs.claim({ owner: 'other', leaseMs: 30_000 }))?.id, 'tiny', 'k was renewed; queued jobs come after a dead worker’s');
    assert.equal(await a.jobs.renewLeases('dead', ['j'], 30_000), { held: [], cancelRequested: [] }, 'the dead worker lost it');
    assert.not.ok(await a.jobs.settle('j', { state: 'done', resultPath: 'jobs/j/result.json', owner: 'dead' }), 'a worker that lost its lease cannot settle');
    assert.ok(await b.jobs.settle('j', { state: 'done', resultPath: 'jobs/j/result.json', owner: 'other' }));
    assert.equal([(await a.jobs.get('j'))?.state, (await a.jobs.get('j'))?.resultPath], ['done', 'jobs/j/result.json']);
  });

  s('requeue gives a job back: claimable again after the delay, and only by its lease holder', async () => {
    const a = await open();
    await a.jobs.create(job('j', 1_000));
    await a.jobs.claim({ owner: 'w1', leaseMs: 30_000 });
    assert.not.ok(await a.jobs.requeue('j', 'w2', 0), 'not w2’s job');
    assert.ok(await a.jobs.requeue('j', 'w1', 400));
    assert.equal([(await a.jobs.get('j'))?.state, await a.jobs.countQueued()], ['queued', 1]);
    assert.is(await a.jobs.claim({ owner: 'w2', leaseMs: 30_000 }), undefined, 'waits for its retry delay');
    await sleep(500);
    const again = await a.jobs.claim({ owner: 'w2', leaseMs: 30_000 });
    assert.equal([again?.id, again?.attempts], ['j', 2]);
  });

  s('a cancel asked by another node shows in the owner’s heartbeat; a queued job settles without an owner', async () => {
    const a = await open();
    const api = await open();
    await a.jobs.create(job('run', 1_000));
    await a.jobs.create(job('wait', 9_000));
    await a.jobs.claim({ owner: 'w1', leaseMs: 30_000 });
    assert.ok(await api.jobs.requestCancel('run'));
    assert.not.ok(await api.jobs.requestCancel('wait'), 'only a running job has an owner to ask');
    assert.equal(await a.jobs.renewLeases('w1', ['run'], 30_000), { held: ['run'], cancelRequested: ['run'] });
    assert.ok(await api.jobs.leaseHeld('run'));
    assert.not.ok(await api.jobs.leaseHeld('wait'));
    assert.ok(await api.jobs.settle('wait', { state: 'cancelled', error: { code: 'CANCELLED', message: 'The request was cancelled' } }));
    assert.ok(await a.jobs.settle('run', { state: 'cancelled', error: { code: 'CANCELLED', message: 'The request was cancelled' }, owner: 'w1' }));
    assert.equal(await a.jobs.countByState(), { queued: 0, running: 0, done: 0, failed: 0, cancelled: 2 });
  });

  s.run();
}
