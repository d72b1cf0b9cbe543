/**
 * The distributed mode end to end, on real servers (PostgreSQL, MinIO, Elasticsearch started by
 * scripts/test.sh): one API node and three worker processes (`voxdex serve --role api|worker`, one ASR
 * thread each, a 4 s lease) take 60 calls of real recorded speech (Asterisk prompts made into stereo
 * mu-law calls) with callbacks. One worker is SIGKILLed in the middle of a job and one API node in the
 * middle of an upload (a new API node takes over; the interrupted upload is sent again).
 * Then: every accepted request completed exactly once (60 jobs, all done, one item each), with one
 * transcript each in Elasticsearch and one callback delivery id each; the killed worker's job was
 * claimed by another worker as soon as its lease ran out and finished there; nothing was left in object
 * storage but the 60 uploads and their results.
 *
 * The calls are transcribed by the default model for 8 kHz audio; assertions name no words (the
 * engine may change), only that each channel of each call has some.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { distributedEnv, testBlobStore } from '../fixtures/distributed-env.js';
import { freshSchema, type TestSchema } from '../fixtures/pg.js';
import { makeSpeechCall } from '../fixtures/speech-calls.js';
import { getJson, ROOT, sleep, startChild, startReceiver, upload, waitHealthy, type Child } from './harness.js';

const dist = suite('e2e: distributed (PostgreSQL + MinIO + Elasticsearch; 1 API node, 3 workers)');

const PG_URL = process.env.VOXDEX_TEST_DATABASE_URL;
const S3_URL = process.env.VOXDEX_TEST_S3_URL;
const ES_URL = process.env.VOXDEX_TEST_ES_URL;
const LEASE_SEC = 4;
const CALLS = 60;
const LONG = 3; // 20 s calls, the ones a worker is killed on
const run = randomBytes(4).toString('hex');

let dir = '';
let schema: TestSchema | undefined;
let db: pg.Client | undefined;
const children: Child[] = [];
let blobs: S3BlobStore | undefined;

dist.before(async () => {
  dir = makeTempDir('voxdex-e2e-dist-');
});

dist.after(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await db?.end();
  await schema?.drop();
  if (blobs) {
    for (const p of ['uploads/', 'jobs/']) await blobs.deletePrefix(p).catch(() => undefined);
    await blobs.close();
  }
  if (ES_URL) await fetch(`${ES_URL}/vxe2e-${run}-*?ignore_unavailable=true&allow_no_indices=true`, { method: 'DELETE' }).catch(() => undefined);
  removeDir(dir);
});

dist('60 calls on 1 API node and 3 workers, a worker and an API node killed mid-work: each request done exactly once', async () => {
  assert.ok(PG_URL && S3_URL && ES_URL, 'needs VOXDEX_TEST_DATABASE_URL, VOXDEX_TEST_S3_URL and VOXDEX_TEST_ES_URL: run it with bash scripts/test.sh');
  schema = await freshSchema();
  db = new pg.Client({ connectionString: schema.url });
  await db.connect();
  const s3Prefix = `vxe2e-${run}/`;
  const env: Record<string, string> = {
    ...distributedEnv({ databaseUrl: schema.url, dir, s3Prefix, esPrefix: `vxe2e-${run}` }),
    VOXDEX_ASR_THREADS: '1',
    VOXDEX_LEASE_SEC: String(LEASE_SEC),
    VOXDEX_CALLBACK_BASE_DELAY_MS: '200',
    VOXDEX_CALLBACK_MAX_DELAY_MS: '1000',
    VOXDEX_CALLBACK_CONNECT_TIMEOUT_MS: '1000',
    VOXDEX_CALLBACK_RESPONSE_TIMEOUT_MS: '2000',
  };
  blobs = testBlobStore(env, s3Prefix);

  // The company, made with the admin CLI on PostgreSQL (before any node runs: it applies the schema).
  const token = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'company', 'add', 'acme', '--org', 'sales', '--folder', 'calls'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(dir, 'admin'), ...env },
  })
    .toString()
    .trim();
  assert.match(token, /^[0-9a-f]{32}$/);

  // Real speech: 3 calls of 15 s, 57 of 3 s.
  const calls = Array.from({ length: CALLS }, (_, n) => makeSpeechCall(dir, n, n < LONG ? 15 : 3));
  const t0 = Date.now();
  const phases: string[] = [];
  const phase = (name: string) => phases.push(`${name} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const rx = await startReceiver(() => 200);
  try {
    const node = async (name: string, role: 'api' | 'worker') => {
      const c = await startChild(path.join(dir, name), env, ['--role', role]);
      children.push(c);
      return c;
    };
    let api = await node('api-1', 'api');
    const workers = await Promise.all(['worker-1', 'worker-2', 'worker-3'].map((n) => node(n, 'worker')));
    await Promise.all([api, ...workers].map((c) => waitHealthy(c.url, 120_000)));
    phase('nodes ready');

    const accepted: string[] = [];
    const submit = async (url: string, file: string) => {
      const r = await upload(url, { file, fields: { token, callback: `${rx.url}/cb` } });
      assert.is(r.status, 200, JSON.stringify(r.body));
      accepted.push(r.body.requestid);
      return r.body.requestid as string;
    };

    // 1. Kill a worker in the middle of a job: the long calls go first; wait for one to be under way.
    for (const f of calls.slice(0, LONG)) await submit(api.url, f);
    let victim: { id: string; owner: string } | undefined;
    for (let i = 0; i < 600 && !victim; i++) {
      const r = await db.query(`SELECT id, lease_owner FROM jobs WHERE state = 'running' AND progress > 0 ORDER BY progress LIMIT 1`);
      if (r.rows[0]) victim = { id: r.rows[0].id, owner: r.rows[0].lease_owner };
      else await sleep(50);
    }
    assert.ok(victim, 'a long call was being transcribed');
    const killedWorker = workers.find((w) => victim!.owner.split(':')[1] === String(w.proc.pid));
    assert.ok(killedWorker, `the owner ${victim!.owner} is one of the workers`);
    killedWorker!.proc.kill('SIGKILL');
    await killedWorker!.exited;
    const killedAt = Date.now();
    phase('worker killed');

    // 2. The short calls; halfway, an API node is killed in the middle of an upload.
    const short = calls.slice(LONG);
    const half = Math.floor(short.length / 2);
    for (let i = 0; i < half; i += 6) await Promise.all(short.slice(i, Math.min(half, i + 6)).map((f) => submit(api.url, f)));
    const interrupted = short[half]!;
    await uploadInterrupted(api, interrupted, token);
    const jobsAfterKill = Number((await db.query('SELECT COUNT(*) AS n FROM jobs')).rows[0].n);
    assert.is(jobsAfterKill, accepted.length, 'the interrupted upload created no job');
    api = await node('api-2', 'api');
    await waitHealthy(api.url, 60_000);
    for (let i = half; i < short.length; i += 6) await Promise.all(short.slice(i, i + 6).map((f) => submit(api.url, f)));
    assert.is(accepted.length, CALLS);
    phase('all accepted');

    // 3. Everything finishes, on the surviving workers; every callback arrives.
    const until = Date.now() + 240_000;
    let pending = [...accepted];
    while (pending.length > 0 && Date.now() < until) {
      const states = await Promise.all(pending.map(async (id) => [id, (await getJson(`${api.url}/transcribe/result?token=${token}&requestid=${id}`)).status] as const));
      for (const [id, status] of states) assert.ok(status === 200 || status === 202, `request ${id}: HTTP ${status}`);
      pending = states.filter(([, status]) => status !== 200).map(([id]) => id);
      if (pending.length > 0) await sleep(500);
    }
    assert.equal(pending, [], 'every accepted request is done');
    const deliveredIds = () => new Set(rx.received.map((r) => r.headers['x-voxdex-request-id'] as string));
    for (let i = 0; i < 300 && deliveredIds().size < CALLS; i++) await sleep(100);
    assert.equal([...deliveredIds()].sort(), [...accepted].sort(), 'one callback per request');
    phase('all done and called back');

    // Exactly once, in the store: 60 jobs, all done, one finished item each.
    const jobs = await db.query(`SELECT state, COUNT(*)::int AS n FROM jobs GROUP BY state`);
    assert.equal(jobs.rows, [{ state: 'done', n: CALLS }]);
    const items = await db.query(`SELECT COUNT(*)::int AS n FROM items WHERE state = 'done'`);
    assert.is(items.rows[0].n, CALLS);

    // The killed worker's job: claimed again by another worker once its lease ran out — no earlier (the
    // lease held: it was renewed at most LEASE/3 before the kill), and before any job waiting in the
    // queue (the first claim made by any worker after the lease ended) — and finished there.
    const k = (await db.query(`SELECT state, attempts, lease_owner, claimed_at FROM jobs WHERE id = $1`, [victim!.id])).rows[0];
    assert.equal([k.state, k.attempts], ['done', 2]);
    assert.is.not(k.lease_owner, victim!.owner);
    const takeoverMs = (k.claimed_at as Date).getTime() - killedAt;
    assert.ok(takeoverMs >= ((LEASE_SEC * 2) / 3) * 1000 - 500, `taken over ${takeoverMs} ms after the kill, before its ${LEASE_SEC} s lease ended`);
    const expired = new Date(killedAt + LEASE_SEC * 1000 + 250);
    const before = await db.query(`SELECT id FROM jobs WHERE claimed_at > $1 AND claimed_at < $2`, [expired, k.claimed_at]);
    assert.equal(before.rows, [], `jobs claimed after the lease ended, before the takeover (${takeoverMs} ms after the kill)`);

    // One transcript each in Elasticsearch; one delivery id each; a transcript on both channels of each call.
    for (const id of accepted) {
      const count = await getJson(`${api.url}/search/acme/sales?token=${token}&output=count&requestid=${id}`);
      assert.is(String(count.body).trim(), '1', `transcripts of ${id}`);
      const deliveries = new Set(rx.received.filter((r) => r.headers['x-voxdex-request-id'] === id).map((r) => r.headers['x-voxdex-delivery']));
      assert.is(deliveries.size, 1, `delivery ids of ${id}`);
      const doc = (await getJson(`${api.url}/transcribe/${id}/result?token=${token}`)).body;
      assert.is(doc.requestid, id);
      const channels = new Set(doc.utterances.filter((u: any) => u.events.length > 0).map((u: any) => u.metadata.channel));
      assert.equal([...channels].sort(), [0, 1], `words on both channels of ${id}`);
    }

    // Object storage holds the 60 uploads and 60 results, nothing from the interrupted upload.
    const keys = (await blobs.list('uploads/')).map((b) => b.key);
    assert.is(keys.length, CALLS);
    assert.is((await blobs.list('jobs/')).filter((b) => /\/result\.json$/.test(b.key)).length, CALLS);

    // Graceful stop of the survivors.
    for (const c of children.filter((x) => x.proc.exitCode === null && x.proc.signalCode === null)) c.proc.kill('SIGTERM');
    const codes = await Promise.all(children.filter((c) => c !== killedWorker && c.url !== undefined).map((c) => c.exited));
    assert.equal(codes.filter((c) => c !== 0 && c !== null).length, 0, `exit codes ${codes}`);
    phase('stopped');
    console.log(`  distributed e2e: ${phases.join('; ')}; takeover ${takeoverMs} ms after the kill`);
  } finally {
    await rx.close();
  }
});

/**
 * Sends half of `file` as a multipart upload, then SIGKILLs the API node while it waits for the rest:
 * the upload is never acknowledged (the connection dies), and must leave no job behind.
 */
async function uploadInterrupted(api: Child, file: string, token: string): Promise<void> {
  const boundary = `vx${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="token"\r\n\r\n${token}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file)}"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const data = readFileSync(file);
  const length = head.length + statSync(file).size + tail.length;
  const u = new URL(`${api.url}/transcribe`);
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length } });
    req.on('response', (res) => reject(new Error(`the interrupted upload was answered ${res.statusCode}`)));
    req.on('error', () => resolve()); // the node died under it: expected
    req.write(head);
    req.write(data.subarray(0, data.length >> 1), () => {
      setTimeout(() => {
        api.proc.kill('SIGKILL');
      }, 300);
    });
  });
  await api.exited;
}

dist.run();
