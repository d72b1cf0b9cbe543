/**
 * Upload acknowledge latency under sustained concurrent load: how long `POST /transcribe` takes to
 * answer `200 {"requestid"}` (upload + job record durably on disk) while clients keep uploading.
 *
 * Contenders, same client loop, same payload, same run:
 *   voxdex — `node --import tsx src/cli/voxdex.ts serve` on a temp data dir, a company from `company add`;
 *   floor  — a bare node:http server that streams the body to a file, fsyncs it, and answers a uuid
 *            (what any durable acknowledge costs on this disk; voxdex cannot beat it).
 * Correctness first: every answer must be 200 with a uuid v4 requestid (the run stops otherwise).
 *
 * Usage: node --import tsx bench/upload.ts [--clients 8] [--seconds 10] [--only floor|voxdex]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
}

// ---- floor server (child process mode) ------------------------------------------------------------
if (process.argv.includes('--floor-server')) {
  const dir = arg('dir', os.tmpdir());
  const server = http.createServer((req, res) => {
    const id = randomUUID();
    const fd = openSync(path.join(dir, `${id}.upload`), 'w');
    req.on('data', (c: Buffer) => writeSync(fd, c));
    req.on('end', () => {
      fsyncSync(fd);
      closeSync(fd);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requestid: id }));
    });
  });
  server.listen(0, '127.0.0.1', () => console.log(`PORT ${(server.address() as AddressInfo).port}`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  await main();
}

// ---- load loop -----------------------------------------------------------------------------------
interface Figures {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  rps: number;
  mibps: number;
}

async function load(url: string, token: string, payload: Buffer, clients: number, seconds: number): Promise<Figures> {
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  const blob = new Blob([new Uint8Array(payload)], { type: 'audio/wav' });
  const one = async () => {
    const form = new FormData();
    form.set('token', token);
    form.set('file', blob, 'call.wav');
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', body: form });
    const text = await res.text();
    const ms = performance.now() - t0;
    let id: unknown;
    try {
      id = (JSON.parse(text) as { requestid?: unknown }).requestid;
    } catch {
      /* checked below */
    }
    if (res.status !== 200 || typeof id !== 'string' || !UUID.test(id)) throw new Error(`bad answer from ${url}: ${res.status} ${text.slice(0, 300)}`);
    return ms;
  };
  for (let i = 0; i < Math.min(3, clients); i++) await one(); // warm-up, also the correctness check
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) lat.push(await one());
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  return { n: lat.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: lat[lat.length - 1]!, rps: lat.length / wall, mibps: (lat.length * payload.length) / wall / 1048576 };
}

function startChild(cmd: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = ready.exec(out);
      if (m) resolve({ child, match: m });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${out.slice(-2000)}`)));
  });
}

async function waitHttp(url: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`${url} did not answer 200 within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function makePayload(dir: string): Buffer {
  // A 2-channel 8 kHz A-law "call" made from real telephone prompts (asterisk-core-sounds-en-wav).
  const sounds = '/usr/share/asterisk/sounds/en_US_f_Allison';
  const a = path.join(dir, 'a.wav');
  const b = path.join(dir, 'b.wav');
  const call = path.join(dir, 'call.wav');
  execFileSync('sox', [...['agent-loginok', 'all-circuits-busy-now', 'activated'].map((n) => path.join(sounds, `${n}.wav`)), a]);
  execFileSync('sox', [...['added', 'agent-newlocation', 'agent-pass'].map((n) => path.join(sounds, `${n}.wav`)), b]);
  execFileSync('sox', ['-M', a, b, '-e', 'a-law', call]);
  return readFileSync(call);
}

function line(name: string, f: Figures): string {
  return `${name.padEnd(8)} n=${String(f.n).padStart(6)}  p50 ${f.p50.toFixed(1).padStart(7)} ms  p90 ${f.p90.toFixed(1).padStart(7)} ms  p99 ${f.p99.toFixed(1).padStart(7)} ms  max ${f.max.toFixed(1).padStart(7)} ms  ${f.rps.toFixed(0).padStart(5)} uploads/s  ${f.mibps.toFixed(1)} MiB/s`;
}

async function main(): Promise<void> {
  const clients = Number(arg('clients', '8'));
  const seconds = Number(arg('seconds', '10'));
  const only = arg('only', '');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-upload-'));
  const children: ChildProcess[] = [];
  const results: Record<string, Figures> = {};
  try {
    const payload = makePayload(tmp);
    console.log(`command: node --import tsx bench/upload.ts ${process.argv.slice(2).join(' ')}`.trim());
    console.log(`node ${process.version}; ${os.cpus()[0]?.model} x ${os.cpus().length}; ${os.platform()} ${os.release()}; tmp ${tmp}`);
    console.log(`payload: ${payload.length} bytes (8 kHz A-law stereo, ${(payload.length / 16000).toFixed(1)} s); ${clients} concurrent clients for ${seconds} s each`);

    if (only !== 'voxdex') {
      const floorDir = path.join(tmp, 'floor');
      execFileSync('mkdir', ['-p', floorDir]);
      const { child, match } = await startChild(process.execPath, ['--import', 'tsx', 'bench/upload.ts', '--floor-server', '--dir', floorDir], process.env, /PORT (\d+)/);
      children.push(child);
      results.floor = await load(`http://127.0.0.1:${match[1]}/transcribe`, 'none', payload, clients, seconds);
      console.log(line('floor', results.floor));
      child.kill('SIGTERM');
    }

    if (only !== 'floor') {
      const dataDir = path.join(tmp, 'voxdex-data');
      const port = await freePort();
      const env = { ...process.env, VOXDEX_DATA_DIR: dataDir, VOXDEX_PORT: String(port), VOXDEX_LOG_LEVEL: 'warn', VOXDEX_ASR_THREADS: '1', VOXDEX_RATE_LIMIT_PER_MIN: '0' };
      const cli = ['--import', 'tsx', 'src/cli/voxdex.ts'];
      const token = execFileSync(process.execPath, [...cli, 'company', 'add', 'bench', '--org', 'calls', '--folder', 'inbound'], { cwd: ROOT, env }).toString().trim();
      if (!/^[0-9a-f]{32}$/.test(token)) throw new Error(`company add printed ${JSON.stringify(token)}, expected a 32-hex token`);
      const child = spawn(process.execPath, [...cli, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      await waitHttp(`http://127.0.0.1:${port}/status`);
      results.voxdex = await load(`http://127.0.0.1:${port}/transcribe`, token, payload, clients, seconds);
      console.log(line('voxdex', results.voxdex));
    }
    if (results.floor && results.voxdex) {
      console.log(
        `ratio voxdex/floor: p50 ${(results.voxdex.p50 / results.floor.p50).toFixed(2)}x, p99 ${(results.voxdex.p99 / results.floor.p99).toFixed(2)}x, throughput ${(results.voxdex.rps / results.floor.rps).toFixed(2)}x`,
      );
    }
  } finally {
    // Stop the servers and wait for them to exit before removing their data (a running job writes on).
    await Promise.all(children.map((c) => stopChild(c)));
    rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
