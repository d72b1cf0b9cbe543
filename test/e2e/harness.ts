/**
 * Helpers for the end-to-end tests: a voxdex server in this process (createService on port 0) or
 * as a child process (`node --import tsx src/cli/voxdex.ts serve`, for crash tests), uploads over
 * real HTTP, polling, and a callback receiver.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createService, type Service } from '../../src/service.js';
import yauzl from 'yauzl';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function startInProcess(dataDir: string, env: Record<string, string> = {}): Promise<Service> {
  const config = loadConfig({ VOXDEX_DATA_DIR: dataDir, VOXDEX_PORT: '0', VOXDEX_LOG_LEVEL: 'silent', VOXDEX_MIN_FREE_DISK_MIB: '0', ...env });
  const service = await createService(config, { log: silentLogger });
  await service.ready;
  return service;
}

export interface Child {
  proc: ChildProcess;
  url: string;
  /** Everything the child wrote to stderr and stdout. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `voxdex serve [args]` as a child process; resolves once it listens (URL read from its stderr). */
export function startChild(dataDir: string, env: Record<string, string> = {}, args: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: dataDir, VOXDEX_PORT: '0', VOXDEX_LOG_LEVEL: 'warn', VOXDEX_MIN_FREE_DISK_MIB: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1]!, output: () => out, exited });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}

/** Waits until GET /health answers 200 (models loaded). */
export async function waitHealthy(url: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = await fetch(`${url}/health`).catch(() => undefined);
    if (r?.status === 200) return;
    await r?.arrayBuffer();
    await sleep(200);
  }
  throw new Error('server never became healthy');
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Upload {
  file?: string;
  /** File name sent in the form (default: base name of file). */
  name?: string;
  fields?: Record<string, string>;
  query?: Record<string, string>;
  path?: string;
}

export async function upload(url: string, u: Upload): Promise<{ status: number; body: any; headers: Headers }> {
  const fd = new FormData();
  if (u.file) fd.set('file', new Blob([readFileSync(u.file)]), u.name ?? path.basename(u.file));
  for (const [k, v] of Object.entries(u.fields ?? {})) fd.set(k, v);
  const q = new URLSearchParams(u.query ?? {}).toString();
  const r = await fetch(`${url}${u.path ?? '/transcribe'}${q ? `?${q}` : ''}`, { method: 'POST', body: fd });
  return answer(r);
}

/** Status, headers and the body: parsed JSON when it is JSON, else the text. */
async function answer(r: Response): Promise<{ status: number; body: any; headers: Headers }> {
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: r.status, body, headers: r.headers };
}

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(url, init);
  return answer(r);
}

/**
 * GET /live/calls once the calls have ended: a call's client sees its connection close before the
 * call has finished ending (its request created), so the list may name it a moment longer.
 */
export async function liveCallsAfterEnd(url: string, token: string): Promise<unknown[]> {
  let calls: unknown[] = [];
  for (let i = 0; i < 50; i++) {
    calls = (await getJson(`${url}/live/calls?token=${token}`)).body.calls;
    if (calls.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return calls;
}

/** Polls GET /transcribe/result until it is not 202; returns the final answer and the 202 states seen. */
export async function waitResult(url: string, token: string, requestid: string, timeoutMs = 60_000) {
  const seen: string[] = [];
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = await getJson(`${url}/transcribe/result?token=${token}&requestid=${requestid}`);
    if (r.status !== 202) return { ...r, seen };
    seen.push(r.body.state);
    await sleep(150);
  }
  throw new Error(`request ${requestid} did not finish in ${timeoutMs} ms`);
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: Buffer;
  at: number;
}

/** A callback receiver; `respond` decides the status per request (default 200). */
export async function startReceiver(respond: (r: Received, n: number) => number = () => 200) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(r);
      res.statusCode = respond(r, received.length);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The entries of a zip (a result file) as UTF-8 text, by name. */
export function readZip(buf: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: Record<string, string> = {};
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out[entry.fileName] = Buffer.concat(chunks).toString('utf8');
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}
