/**
 * The data dir as an operator finds it: one server at a time (an OS-held lock, released when the
 * holder dies, kill -9 included), and private: the dir 0700, everything the server writes 0600.
 * The server runs as `voxdex serve` in a child process, as deployed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { VoxdexError } from '../../src/errors.js';
import { tenancyDbPath } from '../../src/tenancy/tenancy.js';
import { SqliteTenancy } from '../../src/tenancy/sqlite-tenancy.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { verifySignature } from '../../src/callbacks/signature.js';
import { ROOT, sleep, startChild, startInProcess, startReceiver, upload, waitHealthy, waitResult, type Child } from './harness.js';

const dd = suite('e2e: data dir');
let dir = '';
const children: Child[] = [];

dd.before(() => {
  dir = makeTempDir('voxdex-datadir-');
});
dd.after(async () => {
  for (const c of children) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) {
      c.proc.kill('SIGKILL');
      await c.exited;
    }
  }
  removeDir(dir);
});

/** `voxdex serve` expected to fail: its exit status and stderr. */
function serveFails(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: dataDir, VOXDEX_PORT: '0', VOXDEX_LOG_LEVEL: 'warn', VOXDEX_MIN_FREE_DISK_MIB: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000); // a second server that starts is killed
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

dd('a second server on the same data dir refuses to start and names the holder; the OS frees the lock on kill -9', async () => {
  const dataDir = path.join(dir, 'shared');
  const first = await startChild(dataDir);
  children.push(first);
  // An upload the first server is receiving: a second server must not remove it.
  writeFileSync(path.join(dataDir, 'incoming', 'upload_in_progress'), 'partial');
  const second = await serveFails(dataDir);
  assert.is(second.code, 1, second.stderr);
  const escaped = dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(
    second.stderr,
    new RegExp(
      `^voxdex: The data dir ${escaped} is in use by another voxdex server \\(pid ${first.proc.pid} on \\S+, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, listening on ${first.url.replace(/[.]/g, '\\.')}\\)\\. One server per data dir: stop that one, or give this one another VOXDEX_DATA_DIR\\.`,
    ),
  );
  assert.ok(existsSync(path.join(dataDir, 'incoming', 'upload_in_progress')), 'the first server keeps its incoming upload');
  // In one process too (tests, embedders): the second createService is refused.
  try {
    await startInProcess(dataDir);
    assert.unreachable('a second in-process service started');
  } catch (err) {
    assert.instance(err, VoxdexError);
    assert.is((err as VoxdexError).code, 'DATA_DIR_IN_USE');
  }
  first.proc.kill('SIGKILL');
  await first.exited;
  const after = await startChild(dataDir);
  children.push(after);
  await waitHealthy(after.url);
  after.proc.kill('SIGTERM');
  assert.is(await after.exited, 0);
  // A graceful stop releases it in-process as well.
  const a = await startInProcess(dataDir);
  await a.close();
  const b = await startInProcess(dataDir);
  await b.close();
});

dd('the data dir is made 0700, what the server writes there is 0600, and no file holds a callback secret in plain text', async () => {
  const dataDir = path.join(dir, 'private');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755); // as an earlier version (or a plain mkdir) left it
  const t = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token, callbackSecret } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.close();
  const wav = await makeWav(dir, { name: 'hello.wav', rate: 8000, text: 'hello there' });
  const rx = await startReceiver();
  const server = await startChild(dataDir);
  children.push(server);
  await waitHealthy(server.url);
  const up = await upload(server.url, { file: wav, fields: { token, callback: `${rx.url}/hook` } });
  assert.is(up.status, 200, JSON.stringify(up.body));
  assert.is((await waitResult(server.url, token, up.body.requestid)).status, 200);
  for (let i = 0; i < 100 && rx.received.length === 0; i++) await sleep(100);
  assert.is(rx.received.length, 1, 'the callback was delivered (signed)');
  assert.ok(verifySignature(rx.received[0]!.headers['x-voxdex-signature'] as string, rx.received[0]!.body, callbackSecret, 60));
  await rx.close();
  server.proc.kill('SIGTERM');
  assert.is(await server.exited, 0);

  assert.is(statSync(dataDir).mode & 0o777, 0o700, 'data dir');
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        assert.is(statSync(p).mode & 0o077, 0, `${path.relative(dataDir, p)}/ is private`);
        walk(p);
      } else files.push(p);
    }
  };
  walk(dataDir);
  const names = files.map((f) => path.relative(dataDir, f));
  for (const expected of ['root.token', 'url.secret', 'secrets.key', 'tenancy.sqlite', 'jobs.sqlite', 'search.sqlite', 'voxdex.lock', `jobs/${up.body.requestid}/result.json`]) {
    assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
  }
  assert.ok(names.some((n) => n.startsWith(`uploads/${up.body.requestid}-`)), 'the upload');
  assert.ok(names.some((n) => n.startsWith(`jobs/${up.body.requestid}/transcripts/`)), 'the transcript');
  for (const f of files) assert.is((statSync(f).mode & 0o777).toString(8), '600', path.relative(dataDir, f));
  // No file holds the callback secret in plain text (tenancy.sqlite seals it; the callback outbox in
  // jobs.sqlite keeps none): a copy of the databases alone cannot sign callbacks.
  for (const f of files) {
    const bytes = readFileSync(f);
    assert.is(bytes.indexOf(callbackSecret), -1, `${path.relative(dataDir, f)} holds the callback secret`);
  }
});

dd.run();
