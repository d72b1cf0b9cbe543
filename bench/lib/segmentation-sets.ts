/**
 * Real speech cut into utterances: the material bench/segmentation.ts compares segmenters on.
 *
 * - Calls made of real recordings with pauses between them (0.25–1.5 s, seeded): Asterisk prompts
 *   (one real speaker, 8 kHz, mu-law), LibriVox's five readers (16 kHz, and through a phone line).
 * - The same calls with noise at a given SNR: `pink` (stationary, like line hiss or a fan) or `room`
 *   (a real meeting room's quiet stretches: rustle, clicks, a chair; the AMI excerpt trn02 without its
 *   one turn of speech). SNR: the RMS of the speech recordings themselves (their own short pauses
 *   included, the pauses put between them not) over the noise's RMS.
 * - The real meetings with their reference turns (no transcripts): segmentation scores on a 10 ms grid.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { encodeG711, MULAW_TO_FLOAT } from '../../src/audio/g711.js';
import { resample, toInt16 } from '../../src/audio/resample.js';
import { decodeWav } from '../../src/stages/decode.js';
import type { DecodedAudio } from '../../src/types.js';
import { meetingTurns, meetingWav, type Turn } from '../../test/fixtures/meetings.js';
import { ASTERISK, DATA } from './datasets.js';

export interface Clip {
  id: string;
  ref: string;
  rate: number;
  samples: Float32Array;
  /** Where each recording joined into it stops being audible (|x| > 0.02), seconds. */
  ends?: number[];
}

export function audioOf(samples: Float32Array, rate: number): DecodedAudio {
  return { format: { encoding: 'pcm_s16', sampleRate: rate, channels: 1, bitsPerSample: 16 }, channels: [samples], durationSec: samples.length / rate, warnings: [] };
}

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** Pauses between recordings, seconds: within a speaker's turn, or one leg of a two-party call (the other party speaks meanwhile). */
export type Pauses = 'turn' | 'leg';
const PAUSES: Record<Pauses, [number, number]> = { turn: [0.25, 1.5], leg: [2, 6] };

/** Recordings joined with seeded pauses of digital silence, 0.5 s before, 1 s after. */
function joinClips(id: string, parts: Array<{ samples: Float32Array; ref: string }>, rate: number, seed: number, pauses: Pauses = 'turn'): Clip & { speechRms: number } {
  const r = rng(seed);
  const [lo, hi] = PAUSES[pauses];
  const gaps = parts.map((_, i) => (i === parts.length - 1 ? 1 : lo + (hi - lo) * r()));
  const total = Math.round(0.5 * rate) + parts.reduce((n, p, i) => n + p.samples.length + Math.round(gaps[i]! * rate), 0);
  const out = new Float32Array(total);
  let at = Math.round(0.5 * rate);
  let energy = 0;
  let n = 0;
  const ends: number[] = [];
  parts.forEach((p, i) => {
    out.set(p.samples, at);
    let last = p.samples.length - 1;
    while (last > 0 && Math.abs(p.samples[last]!) <= 0.02) last--;
    ends.push((at + last + 1) / rate);
    for (const v of p.samples) energy += v * v;
    n += p.samples.length;
    at += p.samples.length + Math.round(gaps[i]! * rate);
  });
  return { id, ref: parts.map((p) => p.ref).join(' '), rate, samples: out, ends, speechRms: Math.sqrt(energy / n) };
}

/** Asterisk prompts (a–l: tuning half, m–z: held out), `calls` calls of `per` prompts each, 8 kHz. */
export async function asteriskCalls(half: 'al' | 'mz', calls: number, pauses: Pauses = 'turn', per = 9): Promise<Array<Clip & { speechRms: number }>> {
  const lines = gunzipSync(readFileSync('/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz')).toString('utf8').split('\n');
  const prompts: Array<{ file: string; text: string }> = [];
  for (const line of lines) {
    const m = /^([^;:\s][^:]*):\s*(.+)$/.exec(line.trim());
    if (!m || m[2]!.includes('[')) continue;
    if ((m[1]!.toLowerCase()[0]! < 'm') !== (half === 'al')) continue;
    const file = path.join(ASTERISK, `${m[1]}.wav`);
    if (existsSync(file)) prompts.push({ file, text: m[2]! });
  }
  prompts.sort((a, b) => (a.file < b.file ? -1 : 1));
  const out = [];
  for (let c = 0; c < calls; c++) {
    const picked = Array.from({ length: per }, (_, i) => prompts[(c * 37 + i * 11 + 5) % prompts.length]!);
    const parts = await Promise.all(picked.map(async (p) => ({ samples: (await decodeWav(p.file)).channels[0]!, ref: p.text })));
    out.push(joinClips(`ast-${half}-${pauses}${c}`, parts, 8000, 1000 + c, pauses));
  }
  return out;
}

/** LibriVox's five readers joined with pauses, 16 kHz. */
export async function librivoxCall(pauses: Pauses = 'turn'): Promise<Clip & { speechRms: number }> {
  const lv = path.join(DATA, 'librivox');
  const ids = readFileSync(path.join(lv, 'fileids'), 'utf8').split('\n').filter(Boolean);
  const refs = readFileSync(path.join(lv, 'transcription'), 'utf8').split('\n').filter(Boolean).map((r) => r.replace(/\([^)]+\)\s*$/, ''));
  const parts = await Promise.all(ids.map(async (id, i) => ({ samples: (await decodeWav(path.join(lv, `${id}.wav`))).channels[0]!, ref: refs[i]! })));
  return joinClips(`librivox-${pauses}`, parts, 16000, 77, pauses);
}

let telCount = 0;

/** Through a phone line: 300–3400 Hz, 8 kHz, mu-law (SoX, as the other benches make it). */
export async function telephone(x: Float32Array, rate: number, tmp: string): Promise<Float32Array> {
  const k = telCount++;
  const a = path.join(tmp, `tel-in-${k}.raw`);
  const b = path.join(tmp, `tel-out-${k}.wav`);
  const pcm = toInt16(x);
  writeFileSync(a, pcm);
  execFileSync('sox', ['-V1', '-t', 'raw', '-r', String(rate), '-e', 'signed', '-b', '16', '-c', '1', a, '-r', '8000', '-e', 'u-law', '-b', '8', b, 'sinc', '300-3400']);
  try {
    return (await decodeWav(b)).channels[0]!;
  } finally {
    rmSync(a, { force: true });
    rmSync(b, { force: true });
  }
}

/** G.711 mu-law and back, as a call's audio arrives. */
export function mulaw(x: Float32Array): Float32Array {
  const codes = encodeG711(toInt16(x), 'mulaw');
  return Float32Array.from(codes, (c) => MULAW_TO_FLOAT[c]!);
}

/** Pink noise (Paul Kellet's filter over seeded white noise), unit RMS. */
function pinkNoise(n: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0;
  for (let i = 0; i < n; i++) {
    const w = r() * 2 - 1;
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  return normalize(out);
}

function normalize(x: Float32Array): Float32Array {
  let e = 0;
  for (const v of x) e += v * v;
  const g = 1 / Math.sqrt(e / x.length || 1);
  return x.map((v) => v * g);
}

/** The real room of the AMI excerpt trn02 without its one turn of speech (20.70–21.39 s), unit RMS, looped to n. */
async function roomNoise(n: number, rate: number): Promise<Float32Array> {
  const a = await decodeWav(meetingWav('trn02'));
  const x = a.channels[0]!;
  const r = a.format.sampleRate;
  const quiet = new Float32Array(x.length - Math.round(1.2 * r));
  quiet.set(x.subarray(0, Math.round(20.5 * r)));
  quiet.set(x.subarray(Math.round(21.7 * r)), Math.round(20.5 * r));
  const y = normalize(rate === r ? quiet : resample(quiet, r, rate));
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = y[i % y.length]!;
  return out;
}

export type NoiseKind = 'pink' | 'room';

/** `clip` with noise at `snrDb` below its speech level (clipped to [-1, 1)). */
export async function withNoise(clip: Clip & { speechRms: number }, kind: NoiseKind, snrDb: number): Promise<Clip> {
  const noise = kind === 'pink' ? pinkNoise(clip.samples.length, 4242) : await roomNoise(clip.samples.length, clip.rate);
  const g = clip.speechRms / 10 ** (snrDb / 20);
  const samples = clip.samples.map((v, i) => Math.max(-1, Math.min(0.99997, v + g * noise[i]!)));
  return { id: `${clip.id}-${kind}${snrDb}`, ref: clip.ref, rate: clip.rate, samples, ends: clip.ends };
}

/** Seconds on a 10 ms grid. */
const GRID = 0.01;

function mask(spans: Array<{ start: number; end: number }>, n: number): Uint8Array {
  const m = new Uint8Array(n);
  for (const s of spans) m.fill(1, Math.max(0, Math.round(s.start / GRID)), Math.min(n, Math.round(s.end / GRID)));
  return m;
}

export interface SegmentationScore {
  /** Reference speech, seconds. */
  speech: number;
  /** Reference speech not inside any utterance (padded range), seconds. */
  missed: number;
  /** Utterance time (padded range) outside the reference speech, seconds. */
  nonSpeech: number;
  /** Utterance time, seconds. */
  inside: number;
}

/** Utterances (seconds, padded ranges) against reference turns. */
export function scoreSegmentation(utts: Array<{ start: number; end: number }>, turns: Turn[], duration: number): SegmentationScore {
  const n = Math.ceil(duration / GRID);
  const ref = mask(turns, n);
  const hyp = mask(utts, n);
  let speech = 0, missed = 0, nonSpeech = 0, inside = 0;
  for (let i = 0; i < n; i++) {
    speech += ref[i]!;
    inside += hyp[i]!;
    if (ref[i] && !hyp[i]) missed++;
    if (hyp[i] && !ref[i]) nonSpeech++;
  }
  return { speech: speech * GRID, missed: missed * GRID, nonSpeech: nonSpeech * GRID, inside: inside * GRID };
}

export interface Meeting {
  id: string;
  rate: number;
  samples: Float32Array;
  turns: Turn[];
}

/** The meeting excerpts `ids` at 16 kHz, or through a phone line (8 kHz mu-law). */
export async function meetings(ids: readonly string[], tel: boolean, tmp: string): Promise<Meeting[]> {
  const turns = meetingTurns();
  return Promise.all(
    ids.map(async (id) => {
      const a = await decodeWav(meetingWav(id));
      const x = a.channels[0]!;
      return tel ? { id: `${id}-tel`, rate: 8000, samples: await telephone(x, a.format.sampleRate, tmp), turns: turns.get(id) ?? [] } : { id, rate: a.format.sampleRate, samples: x, turns: turns.get(id) ?? [] };
    }),
  );
}
