/**
 * Splits a channel at silences into utterances for the ASR pool. Energy-based voice activity
 * detection on 10 ms frames with an adaptive threshold (noise floor + margin), a hangover that
 * bridges short pauses, a minimum speech length, padding, and a maximum length (long speech is
 * cut at the quietest point of its last part). Choices are recorded in docs/asr.md.
 */
import type { ChannelPcm, Stage } from '../types.js';

interface SegmentOptions {
  /** Longest utterance, seconds (config.segment.maxUtteranceSec). */
  maxUtteranceSec: number;
  /** Pauses shorter than this stay inside an utterance, seconds. */
  minPauseSec: number;
  /** Speech shorter than this (after bridging) is dropped as a click, seconds. */
  minSpeechSec: number;
  /** Audio kept before and after the speech, seconds (never crossing into the next utterance). */
  padSec: number;
  /** Speech must be this many dB above the noise floor. */
  marginDb: number;
  /** Frames quieter than this (dBFS) are silence whatever the floor. */
  minLevelDb: number;
}

export const SEGMENT_DEFAULTS: Readonly<SegmentOptions> = Object.freeze({
  maxUtteranceSec: 25,
  minPauseSec: 0.4,
  minSpeechSec: 0.15,
  padSec: 0.25,
  marginDb: 12,
  minLevelDb: -55,
});

/** One utterance, in samples of the channel it came from. */
export interface Segment {
  /** Padded range handed to the engine. */
  start: number;
  end: number;
  /** Speech inside it (without padding). */
  speechStart: number;
  speechEnd: number;
}

interface ChannelSegments {
  channel: number;
  sampleRate: number;
  samples: Int16Array;
  segments: Segment[];
}

const FRAME_SEC = 0.01;
/** Frames below this level (dBFS) are digital silence (zeros, ±1 LSB), not a real noise floor. */
const DIGITAL_SILENCE_DB = -80;
/** Loud frames in a row needed to count as speech (30 ms). */
const MIN_RUN = 3;

/** Frame levels in dBFS (RMS over 10 ms). */
export function frameLevels(samples: Int16Array, sampleRate: number): Float32Array {
  const len = Math.max(1, Math.round(sampleRate * FRAME_SEC));
  const n = Math.ceil(samples.length / len);
  const out = new Float32Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    let mean = 0;
    const a = f * len;
    const b = Math.min(samples.length, a + len);
    for (let i = a; i < b; i++) mean += samples[i]!;
    mean /= Math.max(1, b - a);
    for (let i = a; i < b; i++) {
      const v = samples[i]! - mean; // ignore DC offset
      sum += v * v;
    }
    const rms = Math.sqrt(sum / Math.max(1, b - a)) / 32768;
    out[f] = rms > 0 ? 20 * Math.log10(rms) : -120;
  }
  return out;
}

export function segmentSamples(samples: Int16Array, sampleRate: number, options: Partial<SegmentOptions> = {}): Segment[] {
  const o = { ...SEGMENT_DEFAULTS, ...options };
  const frameLen = Math.max(1, Math.round(sampleRate * FRAME_SEC));
  const levels = frameLevels(samples, sampleRate);
  const n = levels.length;
  if (n === 0) return [];

  // Noise floor: a low percentile of the frame levels; speech is well above it. When there is
  // hardly any pause the floor is speech itself, so the threshold also stays 30 dB under the loud part.
  const sorted = Float32Array.from(levels).sort();
  const floor = sorted[Math.floor(n * 0.1)]!;
  const loud = sorted[Math.floor(n * 0.95)]!;
  const threshold = Math.max(o.minLevelDb, Math.min(floor + o.marginDb, loud - 30));

  // Speech runs, with pauses shorter than minPauseSec bridged (the hangover).
  const minPause = Math.round(o.minPauseSec / FRAME_SEC);
  // A frame is speech when it and its neighbours make a run of at least MIN_RUN loud frames
  // (a click or a single loud frame does not start an utterance).
  const loudFrame = new Uint8Array(n);
  for (let f = 0; f < n; ) {
    if (levels[f]! < threshold) {
      f++;
      continue;
    }
    let g = f;
    while (g < n && levels[g]! >= threshold) g++;
    if (g - f >= MIN_RUN) loudFrame.fill(1, f, g);
    f = g;
  }
  const runs: Array<[number, number]> = [];
  let start = -1;
  let lastSpeech = -1;
  for (let f = 0; f < n; f++) {
    if (!loudFrame[f]) continue;
    if (start >= 0 && f - lastSpeech > minPause) {
      runs.push([start, lastSpeech + 1]);
      start = -1;
    }
    if (start < 0) start = f;
    lastSpeech = f;
  }
  if (start >= 0) runs.push([start, lastSpeech + 1]);

  const minSpeech = Math.round(o.minSpeechSec / FRAME_SEC);
  const maxFrames = Math.max(2 / FRAME_SEC, Math.round((o.maxUtteranceSec - 2 * o.padSec) / FRAME_SEC));
  const pieces: Array<[number, number]> = [];
  for (const [a, b] of runs) {
    if (b - a < minSpeech) continue;
    let s = a;
    while (b - s > maxFrames) {
      const cut = quietestCut(levels, s + Math.floor(maxFrames / 2), s + maxFrames);
      pieces.push([s, cut]);
      s = cut;
    }
    pieces.push([s, b]);
  }

  // Padding, in samples, never overlapping the neighbours.
  const pad = Math.round(o.padSec * sampleRate);
  const total = samples.length;
  return pieces.map(([a, b], i) => {
    const speechStart = a * frameLen;
    const speechEnd = Math.min(total, b * frameLen);
    const prevEnd = i > 0 ? Math.min(total, pieces[i - 1]![1] * frameLen) : 0;
    const nextStart = i + 1 < pieces.length ? pieces[i + 1]![0] * frameLen : total;
    let start = Math.max(speechStart - pad, i > 0 ? Math.ceil((prevEnd + speechStart) / 2) : 0);
    let end = Math.min(speechEnd + pad, i + 1 < pieces.length ? Math.floor((speechEnd + nextStart) / 2) : total);
    // Padding never includes digital silence: its cepstra are far out of range and pull the
    // utterance's cepstral mean (measured: "ten of clubs" with 0.25 s of zeros on both sides
    // decodes as "i've been up close").
    while (start + frameLen <= speechStart && levels[Math.floor(start / frameLen)]! < DIGITAL_SILENCE_DB) start += frameLen;
    while (end - frameLen >= speechEnd && levels[Math.floor((end - 1) / frameLen)]! < DIGITAL_SILENCE_DB) end -= frameLen;
    return { start, end, speechStart, speechEnd };
  });
}

/** The middle of the quietest 200 ms window between frames a and b. */
function quietestCut(levels: Float32Array, a: number, b: number): number {
  const w = 20;
  let best = b;
  let bestSum = Infinity;
  for (let f = a; f + w <= b; f++) {
    let sum = 0;
    for (let k = f; k < f + w; k++) sum += levels[k]!;
    if (sum < bestSum) {
      bestSum = sum;
      best = f + w / 2;
    }
  }
  return best;
}

/** The segment stage: every channel at the model's rate → its utterances. */
export const segment: Stage<ChannelPcm[], ChannelSegments[]> = async (channels, ctx) =>
  channels.map((c) => ({
    channel: c.channel,
    sampleRate: c.sampleRate,
    samples: c.samples,
    segments: segmentSamples(c.samples, c.sampleRate, { maxUtteranceSec: ctx.config.segment.maxUtteranceSec }),
  }));
