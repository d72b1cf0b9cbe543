/**
 * Durability: the server runs as a child process and is killed with SIGKILL while jobs are queued
 * and running, and again while callbacks are pending; each restart on the same data dir resumes the
 * work. Every job must complete exactly once (one transcript per member in the index) and every
 * callback must be delivered, with one stable delivery id. Finally SIGTERM stops it with exit 0.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jobStorePath } from '../../src/store/sqlite/sqlite-job-store.js';
import { openSqliteStores } from '../../src/store/sqlite/sqlite-stores.js';
import { tenancyDbPath } from '../../src/tenancy/tenancy.js';
import { SqliteTenancy } from '../../src/tenancy/sqlite-tenancy.js';
import { makeCall, makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { getJson, sleep, startChild, startReceiver, upload, waitHealthy, type Child } from './harness.js';

const crash = suite('e2e: crash and restart');

const ENV = {
  VOXDEX_ASR_THREADS: '1',
  VOXDEX_CALLBACK_BASE_DELAY_MS: '200',
  VOXDEX_CALLBACK_MAX_DELAY_MS: '600',
  VOXDEX_CALLBACK_ATTEMPTS: '100',
};

let dir = '';
let child: Child | undefined;

crash.before(() => {
  dir = makeTempDir('voxdex-crash-');
});

crash.after(async () => {
  if (child && child.proc.exitCode === null) {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  removeDir(dir);
});

async function statusOf(url: string, token: string, id: string) {
  const r = await getJson(`${url}/transcribe/result?token=${token}&requestid=${id}`);
  return r;
}

async function kill(c: Child): Promise<void> {
  c.proc.kill('SIGKILL');
  await c.exited;
}

crash('resumes queued and running jobs and pending callbacks after kill -9, each exactly once', async () => {
  const dataDir = path.join(dir, 'data');
  const t = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.close();

  let accept = false;
  const rx = await startReceiver(() => (accept ? 200 : 503));
  try {
    const files = [
      await makeCall(dir, { seconds: 8, encoding: 'mulaw', name: 'long-a.wav' }),
      await makeCall(dir, { seconds: 8, encoding: 'mulaw', name: 'long-b.wav' }),
      await makeCall(dir, { seconds: 8, encoding: 'alaw', name: 'long-c.wav' }),
      await makeWav(dir, { rate: 8000, text: 'your call is important to us', name: 'short-a.wav' }),
      await makeWav(dir, { rate: 8000, text: 'please hold', name: 'short-b.wav' }),
    ];

    // 1st life: accept everything, kill while some run and others wait.
    child = await startChild(dataDir, ENV);
    await waitHealthy(child.url);
    const ids: string[] = [];
    for (const f of files) {
      const r = await upload(child.url, { file: f, fields: { token, callback: `${rx.url}/cb` } });
      assert.is(r.status, 200, JSON.stringify(r.body));
      ids.push(r.body.requestid);
    }
    let states: string[] = [];
    for (let i = 0; i < 400; i++) {
      states = await Promise.all(ids.map(async (id) => (await statusOf(child!.url, token, id)).body.state ?? 'done'));
      if (states.includes('running') && states.includes('queued')) break;
      await sleep(50);
    }
    assert.ok(states.includes('running') && states.includes('queued'), `states before the first kill: ${states}`);
    await kill(child);

    // 2nd life: everything finishes; the receiver still refuses, so callbacks stay pending. Kill again.
    child = await startChild(dataDir, ENV);
    for (let i = 0; i < 1200; i++) {
      const all = await Promise.all(ids.map((id) => statusOf(child!.url, token, id)));
      if (all.every((r) => r.status === 200) && rx.received.length >= ids.length) break;
      await sleep(100);
    }
    for (const id of ids) assert.is((await statusOf(child.url, token, id)).status, 200, `request ${id} done in the 2nd life`);
    assert.ok(rx.received.length >= ids.length, 'callbacks were attempted');
    await kill(child);

    // 3rd life: the receiver accepts; every callback gets delivered.
    accept = true;
    const refusedBefore = rx.received.length;
    child = await startChild(dataDir, ENV);
    const delivered = () => new Set(rx.received.slice(refusedBefore).map((r) => r.headers['x-voxdex-request-id'] as string));
    for (let i = 0; i < 300 && delivered().size < ids.length; i++) await sleep(100);
    assert.equal([...delivered()].sort(), [...ids].sort());

    for (const id of ids) {
      // One stable delivery id per request across every attempt and restart.
      const deliveries = new Set(rx.received.filter((r) => r.headers['x-voxdex-request-id'] === id).map((r) => r.headers['x-voxdex-delivery']));
      assert.is(deliveries.size, 1, `delivery ids of ${id}`);
      // Exactly one transcript in the index per request.
      const count = await getJson(`${child.url}/search/acme/sales?token=${token}&output=count&requestid=${id}`);
      assert.is(String(count.body).trim(), '1', `transcripts of ${id}`);
      const s = await statusOf(child.url, token, id);
      assert.is(s.status, 200);
    }
    // The running jobs at the first kill were started twice; each finished once (state done).
    const root = readFileSync(path.join(dataDir, 'root.token'), 'utf8').trim();
    assert.match(root, /^[0-9a-f]{64}$/);
    assert.not.ok(child.output().includes(root), 'the root token is never printed');

    // Graceful stop: SIGTERM → exit 0 within 30 s.
    const t0 = Date.now();
    child.proc.kill('SIGTERM');
    const code = await child.exited;
    assert.is(code, 0);
    assert.ok(Date.now() - t0 < 30_000);

    // In the store: every job done once; those killed mid-run were started again (attempts 2).
    const stores = openSqliteStores(jobStorePath(dataDir));
    const store = stores.jobs;
    try {
      const jobs = await Promise.all(ids.map(async (id) => (await store.get(id))!));
      assert.equal(jobs.map((j) => j.state), ids.map(() => 'done'));
      assert.ok(jobs.some((j) => j.attempts === 2), `attempts: ${jobs.map((j) => j.attempts)}`);
      for (const id of ids) assert.equal((await store.items(id)).map((i) => i.state), ['done']);
    } finally {
      await stores.close();
    }
  } finally {
    await rx.close();
  }
});

crash.run();
