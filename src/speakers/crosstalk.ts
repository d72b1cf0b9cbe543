/**
 * Crosstalk (bleed) across the channels of one recording: a microphone per person, or a call recorded per
 * leg with echo, carries the other speakers quietly on every channel, and the ASR writes their words there
 * too. Pure (levels of 10 ms frames in, masks and decisions out).
 *
 * A frame of channel c is bleed from channel d when d is at least `minLevelDb` louder there (absolute
 * levels: bleed is a quieter copy) and the two level envelopes move together around it — Pearson
 * correlation of the dB envelopes over ±`halfWindowSec`, at the pair's delay — of at least `minCorrelation`:
 * a quieter copy follows its source syllable by syllable, while two people talking at once do not. The
 * delay of each pair (acoustic crosstalk ≈ 0, a line echo up to `maxLagSec`) is the lag that best
 * correlates the envelopes over the whole recording. A recognised word is bleed when at least `wordShare` of
 * its frames are, or when the same word is said on the louder channel at that time (its content matches).
 */
import type { Utterance } from '../types.js';
import { splitUtterance } from './assign.js';

export interface CrosstalkOptions {
  minLevelDb: number;
  minCorrelation: number;
  halfWindowSec: number;
  maxLagSec: number;
  wordShare: number;
  /** Frames below this level (dBFS) are silence on that channel. */
  floorDb: number;
}

export const CROSSTALK_DEFAULTS: Readonly<CrosstalkOptions> = Object.freeze({
  minLevelDb: 6,
  minCorrelation: 0.7,
  halfWindowSec: 0.25,
  maxLagSec: 0.25,
  wordShare: 0.5,
  floorDb: -60,
});

export const FRAME_SEC = 0.01;

/** Level (dBFS, floored) of each 10 ms frame. */
export function frameLevels(samples: Float32Array, rate: number, floorDb = CROSSTALK_DEFAULTS.floorDb): Float32Array {
  const hop = Math.max(1, Math.round(rate * FRAME_SEC));
  const n = Math.floor(samples.length / hop);
  const out = new Float32Array(n);
  for (let f = 0; f < n; f++) {
    let e = 0;
    for (let i = f * hop; i < (f + 1) * hop; i++) e += samples[i]! * samples[i]!;
    out[f] = Math.max(floorDb, 10 * Math.log10(e / hop + 1e-12));
  }
  return out;
}

/** Pearson correlation of a[i] and b[i − lag] over i in [from, to). */
function correlation(a: Float32Array, b: Float32Array, lag: number, from: number, to: number): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let i = Math.max(from, lag, 0); i < Math.min(to, a.length, b.length + lag); i++) {
    const x = a[i]!;
    const y = b[i - lag]!;
    n++;
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  if (n < 3) return 0;
  const va = saa - (sa * sa) / n;
  const vb = sbb - (sb * sb) / n;
  return va > 1e-9 && vb > 1e-9 ? (sab - (sa * sb) / n) / Math.sqrt(va * vb) : 0;
}

/** The delay (frames, 0..maxLag) at which channel `a` best follows channel `b`. */
export function pairLag(a: Float32Array, b: Float32Array, maxLag: number): number {
  let best = 0;
  let bestR = -Infinity;
  for (let lag = 0; lag <= maxLag; lag++) {
    const r = correlation(a, b, lag, 0, a.length);
    if (r > bestR + 1e-6) [best, bestR] = [lag, r];
  }
  return best;
}

/** Per channel, per frame: the channel whose bleed the frame is, or -1. */
export function bleedFrames(levels: Float32Array[], opts: Partial<CrosstalkOptions> = {}): Int8Array[] {
  const o = { ...CROSSTALK_DEFAULTS, ...opts };
  const half = Math.round(o.halfWindowSec / FRAME_SEC);
  const maxLag = Math.round(o.maxLagSec / FRAME_SEC);
  return levels.map((a, c) => {
    const out = new Int8Array(a.length).fill(-1);
    levels.forEach((b, d) => {
      if (d === c) return;
      const lag = pairLag(a, b, maxLag);
      for (let f = 0; f < a.length; f++) {
        if (out[f]! >= 0 || a[f]! <= o.floorDb) continue;
        const src = b[f - lag];
        if (src === undefined || src - a[f]! < o.minLevelDb) continue;
        if (correlation(a, b, lag, f - half, f + half + 1) >= o.minCorrelation) out[f] = d;
      }
    });
    return out;
  });
}

export interface TimedWord {
  word: string;
  start: number;
  end: number;
}

/**
 * Whether each word of channel `c` is bleed: `wordShare` of its frames are bleed frames, or the same word
 * (case-insensitive) is said on a channel louder there, overlapping it in time.
 */
export function bleedWords(c: number, words: TimedWord[], masks: Int8Array[], levels: Float32Array[], others: Map<number, TimedWord[]>, opts: Partial<CrosstalkOptions> = {}): boolean[] {
  const o = { ...CROSSTALK_DEFAULTS, ...opts };
  const mask = masks[c]!;
  const level = (ch: number, w: TimedWord) => {
    const l = levels[ch]!;
    let e = 0;
    let n = 0;
    for (let f = Math.floor(w.start / FRAME_SEC); f < Math.min(l.length, Math.ceil(w.end / FRAME_SEC)); f++, n++) e += 10 ** (l[f]! / 10);
    return n ? 10 * Math.log10(e / n + 1e-12) : o.floorDb;
  };
  return words.map((w) => {
    const from = Math.max(0, Math.floor(w.start / FRAME_SEC));
    const to = Math.min(mask.length, Math.max(from + 1, Math.ceil(w.end / FRAME_SEC)));
    let bleed = 0;
    for (let f = from; f < to; f++) if (mask[f]! >= 0) bleed++;
    if (to > from && bleed / (to - from) >= o.wordShare) return true;
    const norm = w.word.toLowerCase();
    for (const [d, ws] of others) {
      if (d === c) continue;
      const twin = ws.find((x) => x.word.toLowerCase() === norm && x.start < w.end && x.end > w.start);
      if (twin && level(d, w) - level(c, w) >= o.minLevelDb) return true;
    }
    return false;
  });
}

/** Bleed frames as time spans (seconds) per channel, for the diarization to leave out of a channel's speech. */
export function bleedSpans(mask: Int8Array): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (let f = 0; f < mask.length; f++) {
    if (mask[f]! < 0) continue;
    const last = out[out.length - 1];
    const t = f * FRAME_SEC;
    if (last && Math.abs(last.end - t) < 1e-9) last.end = t + FRAME_SEC;
    else out.push({ start: t, end: t + FRAME_SEC });
  }
  return out.map((s) => ({ start: Math.round(s.start * 100) / 100, end: Math.round(s.end * 100) / 100 }));
}

// ---------------------------------------------------------------- a recording's channels

export interface CrosstalkChannel {
  channel: number;
  sampleRate: number;
  samples: Float32Array;
  utterances: Utterance[];
}

export interface CrosstalkResult {
  /** Each channel's utterances without its bleed words (pieces of an utterance split around them). */
  utterances: Utterance[][];
  /** The bleed words split off into their own utterances, marked `metadata.crosstalk` (kept only when asked). */
  bleed: Utterance[];
  /** Per channel, where its audio is another channel's bleed (seconds): not this channel's speech. */
  spans: { start: number; end: number }[][];
  words: number;
}

/** Finds and separates every channel's bleed words (nothing to do with one channel). */
export function separateCrosstalk(channels: CrosstalkChannel[], opts: Partial<CrosstalkOptions> = {}): CrosstalkResult {
  if (channels.length < 2) return { utterances: channels.map((c) => c.utterances), bleed: [], spans: channels.map(() => []), words: 0 };
  const levels = channels.map((c) => frameLevels(c.samples, c.sampleRate, opts.floorDb));
  const masks = bleedFrames(levels, opts);
  const words = new Map(channels.map((c, i) => [i, c.utterances.flatMap((u) => u.events)] as const));
  const bleed: Utterance[] = [];
  let count = 0;
  const utterances = channels.map((c, i) => {
    const kept: Utterance[] = [];
    for (const u of c.utterances) {
      const flags = bleedWords(i, u.events, masks, levels, words, opts);
      count += flags.filter(Boolean).length;
      for (const piece of splitUtterance(u, flags.map((f) => (f ? 1 : 0)))) {
        if (piece.speaker === 1) bleed.push({ ...piece.utterance, metadata: { ...piece.utterance.metadata, crosstalk: true } });
        else kept.push(piece.utterance);
      }
    }
    return kept;
  });
  return { utterances, bleed, spans: masks.map(bleedSpans), words: count };
}
