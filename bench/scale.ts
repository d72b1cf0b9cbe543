/**
 * How the distributed mode scales with worker processes, against the single-process embedded mode,
 * on the same calls in the same run.
 *
 *   eval "$(bash scripts/postgres.sh start)"; eval "$(bash scripts/minio.sh start)"; eval "$(bash scripts/elasticsearch.sh start)"
 *   node --import tsx bench/scale.ts [--calls 9] [--seconds 15] [--workers 1,2,3]
 *
 * Input: stereo 8 kHz mu-law calls of real recorded speech (Asterisk prompts, test/fixtures/speech-calls.ts).
 * Contenders, each a fresh set of `voxdex serve` processes (real HTTP, real servers):
 *   embedded ×1   one process, SQLite + data dir, 1 ASR thread (the thread budget of one worker);
 *   embedded ×N   one process, N = cores ASR threads (the single machine's best: the named peer);
 *   workers ×W    PostgreSQL + MinIO + Elasticsearch, 1 API node and W worker processes, 1 ASR thread each.
 * All calls are submitted at once; wall time runs from the first upload to the last result.
 * Correctness first: every contender's transcript of every call (words, channels, times) must equal
 * embedded ×1's, else the run stops. Coordination overhead: each worker's claim and settle latencies
 * (voxdex_claim_seconds, voxdex_settle_seconds: p50 and p99 from its /metrics), the worst worker shown.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshSchema } from '../test/fixtures/pg.js';
import { makeSpeechCall } from '../test/fixtures/speech-calls.js';
import { getJson, ROOT, sleep, startChild, upload, waitHealthy, type Child } from '../test/e2e/harness.js';

const arg = (n: string, def: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const CALLS = Number(arg('calls', '9'));
const SECONDS = Number(arg('seconds', '15'));
const WORKERS = arg('workers', '1,2,3').split(',').map(Number);
const CORES = os.availableParallelism();
const { VOXDEX_TEST_DATABASE_URL: PG, VOXDEX_TEST_S3_URL: S3, VOXDEX_TEST_ES_URL: ES } = process.env;
if (!PG || !S3 || !ES) {
  console.error('needs VOXDEX_TEST_DATABASE_URL, VOXDEX_TEST_S3_URL and VOXDEX_TEST_ES_URL: start the servers with scripts/postgres.sh, minio.sh and elasticsearch.sh (see the header)');
  process.exit(2);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-scale-'));
const children: Child[] = [];
const cleanup: (() => Promise<void>)[] = [];
process.on('exit', () => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

console.log(`command: node --import tsx bench/scale.ts --calls ${CALLS} --seconds ${SECONDS} --workers ${WORKERS.join(',')}`);
console.log(`node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown CPU'}; ${CORES} cores; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const calls = Array.from({ length: CALLS }, (_, n) => makeSpeechCall(tmp, n, SECONDS));
const audioSec = CALLS * SECONDS;
console.log(`input: ${CALLS} stereo mu-law calls × ${SECONDS} s = ${audioSec} s of real speech (Asterisk prompts)\n`);

interface Outcome {
  name: string;
  processes: string;
  wallSec: number;
  words: Map<number, string>;
  claim?: [number, number];
  settle?: [number, number];
}

const words = (doc: any) =>
  [...doc.utterances]
    .sort((a: any, b: any) => a.metadata.channel - b.metadata.channel || a.start - b.start)
    .flatMap((u: any) => u.events.map((e: any) => `${u.metadata.channel}:${e.word}@${e.start}-${e.end}`))
    .join(' ');

function cli(env: Record<string, string>, ...args: string[]): string {
  return execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), ...args], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } })
    .toString()
    .trim();
}

async function stopAll(list: Child[]): Promise<void> {
  for (const c of list) c.proc.kill('SIGTERM');
  await Promise.all(list.map((c) => c.exited));
}

/** Submits every call at once to `api`, waits for all results; wall seconds and each call's words. */
async function runCalls(api: string, token: string): Promise<{ wallSec: number; words: Map<number, string> }> {
  const t0 = performance.now();
  const ids = await Promise.all(
    calls.map(async (f) => {
      const r = await upload(api, { file: f, fields: { token } });
      if (r.status !== 200) throw new Error(`upload refused: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.requestid as string;
    }),
  );
  const done = new Map<number, string>();
  while (done.size < ids.length) {
    await Promise.all(
      ids.map(async (id, n) => {
        if (done.has(n)) return;
        const r = await getJson(`${api}/transcribe/${id}/result?token=${token}`);
        if (r.status === 200) done.set(n, words(r.body));
        else if (r.status !== 202) throw new Error(`request ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      }),
    );
    if (done.size < ids.length) await sleep(100);
  }
  return { wallSec: (performance.now() - t0) / 1000, words: done };
}

async function embedded(threads: number): Promise<Outcome> {
  const data = path.join(tmp, `embedded-${threads}`);
  const env = { VOXDEX_DATA_DIR: data, VOXDEX_ASR_THREADS: String(threads), VOXDEX_RATE_LIMIT_PER_MIN: '0' };
  const token = cli(env, 'company', 'add', 'acme', '--org', 'sales', '--folder', 'calls');
  const node = await startChild(data, env);
  children.push(node);
  await waitHealthy(node.url, 120_000);
  const r = await runCalls(node.url, token);
  await stopAll([node]);
  return { name: `embedded ×${threads}`, processes: `1 × ${threads} thread${threads > 1 ? 's' : ''}`, ...r };
}

/** p50 and p99 (ms) of a prom-client summary in a /metrics text. */
function quantiles(metrics: string, name: string): [number, number] {
  const q = (p: string) => Number(new RegExp(`^${name}\\{quantile="${p}"\\} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN) * 1000;
  return [q('0.5'), q('0.99')];
}

async function distributed(workers: number): Promise<Outcome> {
  const schema = await freshSchema(PG);
  cleanup.push(() => schema.drop());
  const run = randomBytes(4).toString('hex');
  const env: Record<string, string> = {
    VOXDEX_DATABASE_URL: schema.url,
    VOXDEX_S3_URL: S3!,
    VOXDEX_S3_BUCKET: process.env.VOXDEX_TEST_S3_BUCKET ?? 'voxdex-test',
    VOXDEX_S3_PREFIX: `vxbench-${run}/`,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? '',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? '',
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    VOXDEX_ES_URL: ES!,
    VOXDEX_SECRETS_KEY_FILE: path.join(tmp, `secrets-${run}.key`),
    VOXDEX_ES_INDEX_PREFIX: `vxbench-${run}`,
    VOXDEX_ASR_THREADS: '1',
    VOXDEX_RATE_LIMIT_PER_MIN: '0',
  };
  cleanup.push(async () => void (await fetch(`${ES}/vxbench-${run}-*?ignore_unavailable=true&allow_no_indices=true`, { method: 'DELETE' }).catch(() => undefined)));
  const token = cli({ VOXDEX_DATA_DIR: path.join(tmp, `admin-${run}`), ...env }, 'company', 'add', 'acme', '--org', 'sales', '--folder', 'calls');
  const api = await startChild(path.join(tmp, `api-${run}`), env, ['--role', 'api']);
  const nodes = await Promise.all(Array.from({ length: workers }, (_, i) => startChild(path.join(tmp, `worker-${run}-${i}`), env, ['--role', 'worker'])));
  children.push(api, ...nodes);
  await Promise.all([api, ...nodes].map((c) => waitHealthy(c.url, 120_000)));
  const r = await runCalls(api.url, token);
  const metrics = await Promise.all(nodes.map(async (w) => (await fetch(`${w.url}/metrics`)).text()));
  const worst = (name: string): [number, number] => {
    const all = metrics.map((m) => quantiles(m, name));
    return [Math.max(...all.map((x) => x[0])), Math.max(...all.map((x) => x[1]))];
  };
  await stopAll([api, ...nodes]);
  return { name: `workers ×${workers}`, processes: `1 API + ${workers} × 1 thread`, ...r, claim: worst('voxdex_claim_seconds'), settle: worst('voxdex_settle_seconds') };
}

const results: Outcome[] = [];
try {
  results.push(await embedded(1));
  for (const w of WORKERS) results.push(await distributed(w));
  if (CORES > 1) results.push(await embedded(CORES));
} finally {
  for (const c of cleanup) await c().catch(() => undefined);
}

// Correctness first: every contender transcribed every call exactly as embedded ×1 did.
const ref = results[0]!;
for (const r of results.slice(1)) {
  for (let n = 0; n < CALLS; n++) {
    if (r.words.get(n) !== ref.words.get(n)) {
      console.error(`MISMATCH: ${r.name} call ${n}:\n  ${ref.name}: ${ref.words.get(n)?.slice(0, 300)}\n  ${r.name}: ${r.words.get(n)?.slice(0, 300)}`);
      process.exit(1);
    }
  }
}
const nwords = [...ref.words.values()].reduce((a, w) => a + (w ? w.split(' ').length : 0), 0);
console.log(`correctness: ${nwords} words, identical (word, channel, times) across all ${results.length} contenders\n`);

const base = results.find((r) => r.name === 'workers ×1');
const ms = (x?: [number, number]) => (x ? `${x[0].toFixed(1)} / ${x[1].toFixed(1)}` : '—');
console.log('| contender | processes | wall s | audio-s per wall-s | vs workers ×1 | claim p50 / p99 ms | settle p50 / p99 ms |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  const rate = audioSec / r.wallSec;
  const vs = base ? (rate / (audioSec / base.wallSec)).toFixed(2) : '—';
  console.log(`| ${r.name} | ${r.processes} | ${r.wallSec.toFixed(1)} | ${rate.toFixed(2)} | ${vs} | ${ms(r.claim)} | ${ms(r.settle)} |`);
}
console.log(`\nload after: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
process.exit(0);
