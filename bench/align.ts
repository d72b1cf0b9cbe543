/**
 * Word-time accuracy against known boundaries. Real single-word recordings (Asterisk digits, tens,
 * letters, symbol names) are joined with known pauses into "utterances"; each word's true start and end
 * are where its recording rises 25 dB over its own noise floor and falls back. Every model transcribes
 * them (at 8 kHz, and upsampled to 16 kHz, which takes the wideband aligner); for every word it got
 * right, the start and end errors are measured.
 *
 *   node --import tsx bench/align.ts [--n 30] [--models a,b] [--threads N] [--registry FILE]
 *
 * CPU s per audio s: the whole process while that model transcribes (Moonshine: decoding and alignment).
 *
 * Goal (issue 9): 90 % of boundaries within 100 ms.
 */
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { resample } from '../src/audio/resample.js';
import { decodeWav } from '../src/stages/decode.js';
import { frameLevels } from '../src/audio/segment.js';
import type { DecodedAudio } from '../src/types.js';
import { ASTERISK } from './lib/datasets.js';
import { correctWords, normalizeWords } from './lib/wer.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TENS: Record<string, string> = { 20: 'twenty', 30: 'thirty', 40: 'forty', 50: 'fifty', 60: 'sixty', 70: 'seventy', 80: 'eighty', 90: 'ninety' };
const VOCAB: Array<[string, string]> = [
  ...DIGITS.map((w, d): [string, string] => [`digits/${d}.wav`, w]),
  ...Object.entries(TENS).map(([n, w]): [string, string] => [`digits/${n}.wav`, w]),
  ...'abcdefghijklmnopqrstuvwxyz'.split('').map((c): [string, string] => [`letters/${c}.wav`, c]),
  ...['asterisk', 'dash', 'dot', 'equals', 'slash', 'space'].map((w): [string, string] => [`letters/${w}.wav`, w]),
];

interface Built {
  audio: DecodedAudio;
  words: string[];
  bounds: Array<[number, number]>;
}

/** Where a recording is audible: first and last 10 ms frame 25 dB over its noise floor (and within 50 dB of its peak). */
function audible(pcm: Float32Array, rate: number): [number, number] {
  const levels = frameLevels(Int16Array.from(pcm, (v) => Math.round(v * 32767)), rate);
  const peak = Math.max(...levels);
  const floor = Float32Array.from(levels).sort()[Math.floor(levels.length * 0.1)]!;
  const th = Math.max(floor + 25, peak - 50);
  const a = levels.findIndex((l) => l > th);
  let b = levels.length - 1;
  while (b > a && levels[b]! <= th) b--;
  return [a / 100, (b + 1) / 100];
}

async function build(n: number, seed: number): Promise<Built[]> {
  const clips = new Map<string, Float32Array>();
  for (const [f] of VOCAB) clips.set(f, (await decodeWav(path.join(ASTERISK, f))).channels[0]!);
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: Built[] = [];
  for (let k = 0; k < n; k++) {
    const count = 4 + Math.floor(rnd() * 5);
    const parts: Float32Array[] = [new Float32Array(Math.round(8000 * 0.2))];
    const words: string[] = [];
    const bounds: Array<[number, number]> = [];
    let at = parts[0]!.length;
    for (let i = 0; i < count; i++) {
      const [file, word] = VOCAB[Math.floor(rnd() * VOCAB.length)]!;
      const clip = clips.get(file)!;
      const [a, b] = audible(clip, 8000);
      words.push(word);
      bounds.push([at / 8000 + a, at / 8000 + b]);
      parts.push(clip, new Float32Array(Math.round(8000 * (0.1 + rnd() * 0.5))));
      at += clip.length + parts[parts.length - 1]!.length;
    }
    const ch = new Float32Array(at);
    let o = 0;
    for (const p of parts) ch.set(p, (o += p.length) - p.length);
    out.push({ audio: { format: { encoding: 'pcm_s16', sampleRate: 8000, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / 8000, warnings: [] }, words, bounds });
  }
  return out;
}

function upsampled(a: DecodedAudio): DecodedAudio {
  const ch = resample(a.channels[0]!, 8000, 16000);
  return { ...a, format: { ...a.format, sampleRate: 16000 }, channels: [ch], durationSec: ch.length / 16000 };
}

const cpuSec = (c0: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
};
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main() {
  const n = Number(arg('n') ?? 30);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  const registry = loadModelRegistry(arg('registry') ?? config.modelsFile);
  const models = arg('models')?.split(',') ?? registry.specs().filter(registry.isAvailable).map((s) => s.name);
  const t = createTranscriber({ config, log: silentLogger, registry });
  await t.ready();
  const sets = await build(n, 4242);
  const words = sets.reduce((a, s) => a + s.words.length, 0);
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`${n} utterances, ${words} words (Asterisk digits, tens, letters, symbol names), pauses 0.1–0.6 s\n`);
  console.log('model\tinput\twords right\tboundaries\twithin 100 ms\twithin 50 ms\tmedian |error| ms\tstart within 100\tend within 100\tCPU s/audio s');
  for (const model of models) {
    for (const [label, rate] of [['8 kHz', 8000], ['16 kHz', 16000]] as const) {
      const errs: number[] = [];
      const starts: number[] = [];
      const ends: number[] = [];
      let right = 0;
      let audioSec = 0;
      const c0 = process.cpuUsage();
      for (const s of sets) {
        audioSec += s.audio.durationSec;
        const r = await t.transcribe(rate === 8000 ? s.audio : upsampled(s.audio), { model, source: 'align' });
        const events = r.utterances.flatMap((u) => u.events);
        const hyp = events.map((e) => normalizeWords(e.word).join(' '));
        const ok = correctWords(s.words, hyp);
        // Map each right hyp word to its ref word (in order).
        let ri = 0;
        hyp.forEach((h, j) => {
          if (!ok[j]) return;
          while (ri < s.words.length && s.words[ri] !== h) ri++;
          if (ri >= s.words.length) return;
          const [ta, tb] = s.bounds[ri++]!;
          const ea = Math.abs(events[j]!.start - ta) * 1000;
          const eb = Math.abs(events[j]!.end - tb) * 1000;
          errs.push(ea, eb);
          starts.push(ea);
          ends.push(eb);
          right++;
        });
      }
      const within = (xs: number[], ms: number) => xs.filter((e) => e <= ms).length / Math.max(1, xs.length);
      console.log([model, label, `${right}/${words}`, errs.length, pct(within(errs, 100)), pct(within(errs, 50)), median(errs).toFixed(0), pct(within(starts, 100)), pct(within(ends, 100)), (cpuSec(c0) / audioSec).toFixed(3)].join('\t'));
    }
  }
  await t.close();
}

await main();
