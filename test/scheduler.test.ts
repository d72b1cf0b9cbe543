import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../src/log.js';
import { CANCEL, LIVE_PRIORITY, SHUTDOWN, Scheduler } from '../src/scheduler.js';

const scheduler = suite('scheduler');

/** A runner whose jobs finish when the test says so; records start order and abort reasons. */
function harness(concurrency: number) {
  const started: string[] = [];
  const aborted: Record<string, unknown> = {};
  const finish = new Map<string, () => void>();
  const s = new Scheduler({
    concurrency,
    shortBytes: 100,
    log: silentLogger,
    run: (id, signal) =>
      new Promise<void>((resolve) => {
        started.push(id);
        finish.set(id, resolve);
        signal.addEventListener('abort', () => {
          aborted[id] = signal.reason;
          resolve();
        });
      }),
  });
  return { s, started, aborted, done: (id: string) => finish.get(id)!() };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

scheduler('runs the smallest waiting job first and keeps a slot for short jobs', async () => {
  const { s, started, done } = harness(1);
  s.enqueue({ id: 'long1', sizeBytes: 10_000 });
  await tick();
  s.enqueue({ id: 'long2', sizeBytes: 5_000 });
  s.enqueue({ id: 'short1', sizeBytes: 50 });
  await tick();
  // long1 holds the one normal slot; short1 takes the short-job slot at once, long2 waits.
  assert.equal(started, ['long1', 'short1']);
  s.enqueue({ id: 'short2', sizeBytes: 60 });
  await tick();
  assert.equal(started, ['long1', 'short1']);
  done('short1');
  await tick();
  assert.equal(started, ['long1', 'short1', 'short2']);
  done('long1');
  await tick();
  assert.equal(started, ['long1', 'short1', 'short2', 'long2']);
  done('short2');
  done('long2');
  await s.idle();
});

scheduler('ignores a second enqueue of the same id and never drops a waiting job', async () => {
  const { s, started, done } = harness(1);
  for (const id of ['a', 'b', 'a', 'c', 'b']) s.enqueue({ id, sizeBytes: 1000 });
  assert.is(s.queued + s.active, 3);
  for (let i = 0; i < 3; i++) {
    await tick();
    done(started[started.length - 1]!);
  }
  await s.idle();
  assert.equal([...started].sort(), ['a', 'b', 'c']);
});

scheduler('cancels a waiting job and aborts a running one with reason cancel', async () => {
  const { s, started, aborted } = harness(1);
  s.enqueue({ id: 'run', sizeBytes: 1000 });
  s.enqueue({ id: 'wait', sizeBytes: 2000 });
  await tick();
  assert.is(s.cancel('wait'), 'queued');
  assert.is(s.cancel('run'), 'running');
  await s.settled('run');
  assert.equal(aborted, { run: CANCEL });
  assert.is(s.cancel('nothing'), false);
  await s.idle();
  assert.equal(started, ['run']);
});

scheduler('stop waits for running jobs within the grace period, then aborts them with reason shutdown', async () => {
  const { s, aborted, done } = harness(2);
  s.enqueue({ id: 'quick', sizeBytes: 1000 });
  s.enqueue({ id: 'slow', sizeBytes: 1000 });
  await tick();
  setTimeout(() => done('quick'), 10);
  await s.stop(60);
  assert.equal(aborted, { slow: SHUTDOWN });
  s.enqueue({ id: 'late', sizeBytes: 1 });
  assert.is(s.queued, 0);
});

scheduler.run();

scheduler('a live call job (LIVE_PRIORITY) runs before smaller waiting uploads, and may take the short-job slot whatever its size', async () => {
  const { s, started, done } = harness(1);
  s.enqueue({ id: 'long', sizeBytes: 10_000 });
  await tick();
  s.enqueue({ id: 'small-upload', sizeBytes: 50 });
  s.enqueue({ id: 'live-call', sizeBytes: 900_000, priority: LIVE_PRIORITY });
  await tick();
  // The normal slot is busy: the live call takes the short-job slot though it is large, ahead of the small upload.
  assert.equal(started, ['long', 'live-call']);
  done('live-call');
  await tick();
  assert.equal(started, ['long', 'live-call', 'small-upload']);
  s.enqueue({ id: 'upload', sizeBytes: 10 });
  s.enqueue({ id: 'live-2', sizeBytes: 5_000, priority: LIVE_PRIORITY });
  done('long');
  await tick();
  assert.equal(started.slice(3), ['live-2']);
  done('small-upload');
  done('live-2');
  await tick();
  assert.equal(started.slice(4), ['upload']);
  done('upload');
  await s.idle();
});
