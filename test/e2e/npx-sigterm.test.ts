/**
 * SIGTERM through `npx voxdex serve` (API.md §9: stop accepting, finish or checkpoint, exit 0 within
 * 30 s; the compose example sends it to npm). npm runs the bin through `<script-shell> -c`: with the
 * project's .npmrc that is bash, which execs it, so the signal reaches voxdex and npm waits for the
 * graceful stop; with Debian's dash (npm's default) the shell dies of the signal and voxdex, orphaned,
 * notices its parent is gone and stops the same way (src/cli/voxdex.ts, watchParent).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { ROOT, sleep, waitHealthy } from './harness.js';

const test = suite('e2e: SIGTERM through npx voxdex serve');
let dir = '';
test.before(() => {
  dir = makeTempDir('voxdex-npx-sigterm-');
});
test.after(() => removeDir(dir));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts `npx voxdex serve` on a new data dir; resolves once the server listens, with its pid (from the data dir lock). */
async function npxServe(name: string, env: Record<string, string> = {}) {
  const dataDir = path.join(dir, name);
  const npx = spawn('npx', ['--no-install', 'voxdex', 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: dataDir, VOXDEX_PORT: '0', VOXDEX_ASR_THREADS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npx.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  npx.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npx.once('exit', (code, signal) => resolve({ code, signal })));
  const lock = path.join(dataDir, 'voxdex.lock.json'); // its pid
  for (const until = Date.now() + 120_000; !/listening on http/.test(out); await sleep(200)) {
    if (Date.now() > until || npx.exitCode !== null) throw new Error(`voxdex did not start through npx:\n${out}`);
  }
  const server = (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid;
  // Models loaded first: a stop during the load waits for it (minutes on a loaded machine), which is not what this measures.
  await waitHealthy(/listening on (http:\/\/\S+)/.exec(out)![1]!, 300_000);
  assert.ok(server !== npx.pid && alive(server), 'the server is its own process under npm');
  return { npx, server, exited, output: () => out };
}

test('SIGTERM to npx stops the server gracefully, and npx exits only once it has', async () => {
  const s = await npxServe('bash');
  s.npx.kill('SIGTERM');
  const t0 = Date.now();
  await s.exited;
  assert.ok(Date.now() - t0 < 30_000, 'within 30 s');
  assert.not.ok(alive(s.server), 'npm waited for the server');
  assert.match(s.output(), /"msg":"stopped"/);
});

test('with a shell that does not pass the signal on (dash), the orphaned server stops gracefully by itself', async () => {
  const s = await npxServe('dash', { npm_config_script_shell: '/bin/sh' });
  s.npx.kill('SIGTERM');
  await s.exited;
  for (const until = Date.now() + 30_000; alive(s.server) && Date.now() < until; ) await sleep(200);
  assert.not.ok(alive(s.server), 'the server stopped within 30 s');
  for (const until = Date.now() + 5000; !/"msg":"stopped"/.test(s.output()) && Date.now() < until; ) await sleep(100); // its last lines, still in the pipe
  // From the source tree the bin's wrapper is the orphan and passes SIGTERM on; built, the server is ("parent exited").
  assert.match(s.output(), /"signal":"(SIGTERM|parent exited)","msg":"stopping"/);
  assert.match(s.output(), /"msg":"stopped"/);
});

test.run();
