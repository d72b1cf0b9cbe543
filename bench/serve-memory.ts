/**
 * Peak memory of `voxdex serve` with the default model: starts the real server (a child process,
 * default settings: ASR threads = cores, the models `auto` picks loaded up front), sends real calls
 * (8 kHz stereo mu-law and 16 kHz speech, minutes long), waits for the transcripts and reads the
 * server's peak resident set (VmHWM) from /proc. Goal: fits a 2-core, 4 GB machine.
 *
 *   node --import tsx bench/serve-memory.ts [--threads N] [--minutes 3] [--registry FILE]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tenancyDbPath } from '../src/tenancy/tenancy.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import { makeTempDir, removeDir } from '../test/fixtures/make-audio.js';
import { getJson, startChild, upload, waitHealthy, waitResult } from '../test/e2e/harness.js';
import { DATA } from './lib/datasets.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const status = (pid: number, key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const dir = makeTempDir('voxdex-rss-');
const minutes = Number(arg('minutes') ?? 3);
const env: Record<string, string> = {
  ...(arg('threads') ? { VOXDEX_ASR_THREADS: arg('threads')! } : {}),
  ...(arg('registry') ? { VOXDEX_MODELS_FILE: path.resolve(arg('registry')!) } : {}),
};
try {
  // A long stereo call: LibriVox on the left, the same reversed in order on the right, 8 kHz mu-law.
  const lv = ['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`));
  const reps = Math.max(1, Math.round((minutes * 60) / 33));
  const left = path.join(dir, 'left.wav');
  const right = path.join(dir, 'right.wav');
  execFileSync('sox', ['-V1', ...Array.from({ length: reps }, () => lv).flat(), left]);
  execFileSync('sox', ['-V1', ...Array.from({ length: reps }, () => lv.slice().reverse()).flat(), right]);
  const call8k = path.join(dir, 'call-8k.wav');
  execFileSync('sox', ['-V1', '-M', left, right, '-r', '8000', '-e', 'u-law', '-b', '8', call8k, 'sinc', '300-3400']);
  const wide = path.join(dir, 'wide-16k.wav');
  execFileSync('sox', ['-V1', left, '-r', '16000', '-e', 'signed', '-b', '16', wide]);

  const dataDir = path.join(dir, 'data');
  const t = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.close();
  const child = await startChild(dataDir, { VOXDEX_LOG_LEVEL: 'warn', ...env });
  try {
    await waitHealthy(child.url, 120_000);
    const pid = child.proc.pid!;
    const loaded = status(pid, 'VmRSS');
    const t0 = performance.now();
    const ids: string[] = [];
    for (const f of [call8k, wide]) {
      const r = await upload(child.url, { file: f, fields: { token } });
      if (r.status !== 202 && r.status !== 200) throw new Error(`upload ${f}: ${r.status} ${JSON.stringify(r.body)}`);
      ids.push(r.body.requestid);
    }
    const words: number[] = [];
    for (const id of ids) {
      const r = await waitResult(child.url, token, id, 3_600_000);
      if (r.status !== 200) throw new Error(`result ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      const doc = await getJson(`${child.url}/transcribe/result?token=${token}&requestid=${id}&inline=true`);
      words.push((doc.body.utterances as Array<{ events: unknown[] }>).reduce((n, u) => n + u.events.length, 0));
    }
    const wall = (performance.now() - t0) / 1000;
    const health = await getJson(`${child.url}/health`);
    console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
    console.log(`node ${process.version}; ${os.cpus()[0]?.model} × ${os.cpus().length} cores; ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`audio: ${reps * 33 * 2 / 60} min stereo 8 kHz mu-law call + ${(reps * 33) / 60} min 16 kHz; ${words.join(' + ')} words; ${wall.toFixed(0)} s wall; health ${health.status}`);
    console.log(`voxdex serve RSS: ${loaded.toFixed(0)} MiB after loading the models, peak (VmHWM) ${status(pid, 'VmHWM').toFixed(0)} MiB`);
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
} finally {
  removeDir(dir);
}
