/**
 * Call metrics benchmark (issue 20): two-channel telephone calls built with known overlap and silence
 * from synthetic speech (espeak-ng and flite sentences, their leading/trailing silence trimmed with
 * sox, placed at chosen times on each channel, 8 kHz mu-law), transcribed by the real ASR, and the
 * overtalk and silence events of src/analytics/metrics.ts compared with the planned ones: per event
 * its start, end and duration error (goal: within 0.3 s per event). The same metrics computed from the
 * planned speech intervals themselves (no ASR) are the peer: what the rules give with perfect times.
 *   nice node --import tsx bench/metrics.ts [--calls 6] [--threads 2]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callEvents, type Interval } from '../src/analytics/metrics.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWavBuffer } from '../src/stages/decode.js';
import { SENTIMENT_SET } from './lib/sentiment-set.js';
import { prng } from './lib/corpus.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CALLS = arg('calls', 6);
const THREADS = arg('threads', 2);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-metrics-'));

console.log(`command: node --import tsx bench/metrics.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);

/** One sentence as 8 kHz audio with its leading and trailing silence removed; returns the file and its length. */
function clip(text: string, voice: number, name: string): { file: string; secs: number } {
  const raw = path.join(tmp, `${name}.raw.wav`);
  const out = path.join(tmp, `${name}.wav`);
  if (voice === 0) execFileSync('espeak-ng', ['-v', 'en-us', '-s', '165', '-w', raw, text]);
  else execFileSync('flite', ['-voice', 'slt', '-t', text, '-o', raw]);
  execFileSync('sox', ['-V1', raw, '-r', '8000', '-c', '1', '-b', '16', out, 'silence', '1', '0.02', '0.5%', 'reverse', 'silence', '1', '0.02', '0.5%', 'reverse']);
  const secs = Number(execFileSync('soxi', ['-D', out]).toString().trim());
  return { file: out, secs };
}

/** Places clips on a channel at the given starts: a file of `length` seconds. */
function channelFile(parts: Array<{ file: string; at: number }>, length: number, name: string): string {
  const out = path.join(tmp, `${name}.wav`);
  const padded = parts.map((p, i) => {
    const f = path.join(tmp, `${name}-${i}.wav`);
    execFileSync('sox', ['-V1', p.file, f, 'pad', p.at.toFixed(3), '0']);
    return f;
  });
  execFileSync('sox', ['-V1', '-n', '-r', '8000', '-c', '1', '-b', '16', path.join(tmp, `${name}-silence.wav`), 'trim', '0', String(length)]);
  execFileSync('sox', ['-V1', '-m', path.join(tmp, `${name}-silence.wav`), ...padded, out, 'trim', '0', String(length)]);
  return out;
}

interface Match {
  kind: 'overtalk' | 'silence';
  truth: Interval;
  found?: Interval;
}

function match(kind: Match['kind'], truth: Interval[], found: Interval[]): { matches: Match[]; extra: Interval[] } {
  const used = new Set<number>();
  const matches = truth.map((t): Match => {
    const k = found.findIndex((f, i) => !used.has(i) && f[0] < t[1] && f[1] > t[0]);
    if (k < 0) return { kind, truth: t };
    used.add(k);
    return { kind, truth: t, found: found[k] };
  });
  return { matches, extra: found.filter((_, i) => !used.has(i)) };
}

const rand = prng(42);
const config = loadConfig({ VOXDEX_ASR_THREADS: String(THREADS) });
const transcriber = createTranscriber({ config, log: silentLogger });
await transcriber.ready();
const all: Match[] = [];
const peer: Match[] = [];
let extras = 0;
try {
  for (let n = 0; n < CALLS; n++) {
    // Turns alternate between the channels; each next turn starts before the previous one ends
    // (overlap 0.5–2.5 s) or after a gap (0.3–0.8 s: turn-taking, or 1.5–4 s: silence).
    const turns: Array<{ channel: number; file: string; at: number; end: number }> = [];
    let t = 0.5;
    for (let k = 0; k < 5; k++) {
      const channel = k % 2;
      const s = SENTIMENT_SET[(n * 5 + k) % SENTIMENT_SET.length]!;
      const c = clip(s.text, channel, `c${n}-t${k}`);
      turns.push({ channel, file: c.file, at: t, end: t + c.secs });
      const r = rand();
      t = r < 0.4 ? t + c.secs - (0.5 + rand() * 2) : r < 0.7 ? t + c.secs + 0.3 + rand() * 0.5 : t + c.secs + 1.5 + rand() * 2.5;
      t = Math.max(t, turns[turns.length - 1]!.at + 0.5);
    }
    const length = Math.max(...turns.map((x) => x.end)) + 1;
    const sides = [0, 1].map((ch) => channelFile(turns.filter((x) => x.channel === ch), length, `c${n}-ch${ch}`));
    const call = path.join(tmp, `call-${n}.wav`);
    execFileSync('sox', ['-V1', '-M', ...sides, '-e', 'mu-law', '-b', '8', call]);
    const truthUtts = turns.map((x) => ({ start: x.at, end: x.end, metadata: { channel: x.channel }, events: [] }));
    const truth = callEvents(truthUtts);
    const r = await transcriber.transcribe(decodeWavBuffer(readFileSync(call)), { source: call });
    const found = callEvents(r.utterances);
    for (const kind of ['overtalk', 'silence'] as const) {
      const m = match(kind, truth[kind], found[kind]);
      all.push(...m.matches);
      extras += m.extra.length;
      peer.push(...match(kind, truth[kind], truth[kind]).matches);
    }
  }
} finally {
  await transcriber.close();
  rmSync(tmp, { recursive: true, force: true });
}

const f = (x: number) => x.toFixed(2);
for (const kind of ['overtalk', 'silence'] as const) {
  const ms = all.filter((m) => m.kind === kind);
  const hit = ms.filter((m) => m.found);
  const errs = hit.map((m) => ({ s: Math.abs(m.found![0] - m.truth[0]), e: Math.abs(m.found![1] - m.truth[1]), d: Math.abs(m.found![1] - m.found![0] - (m.truth[1] - m.truth[0])) }));
  const within = errs.filter((x) => x.s <= 0.3 && x.e <= 0.3).length;
  const med = (xs: number[]) => (xs.length ? xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
  console.log(
    `${kind}: ${ms.length} planned events, ${hit.length} found; start and end within 0.3 s: ${within} of ${ms.length}; ` +
      `median error start ${f(med(errs.map((x) => x.s)))} s, end ${f(med(errs.map((x) => x.e)))} s, duration ${f(med(errs.map((x) => x.d)))} s; ` +
      `max duration error ${f(Math.max(0, ...errs.map((x) => x.d)))} s`,
  );
}
console.log(`events found that were not planned: ${extras}; peer (metrics from the planned intervals): ${peer.filter((m) => m.found).length} of ${peer.length} found exactly`);
