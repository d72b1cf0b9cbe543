/**
 * Gender from pitch: the median fundamental frequency (F0) of voiced frames, by normalised
 * autocorrelation; below `MALE_BELOW_HZ` is 'male'. Pure.
 */
import type { Span } from './regions.js';

export type Gender = 'male' | 'female';

export const MALE_BELOW_HZ = 165;
const MIN_HZ = 60;
const MAX_HZ = 400;
const FRAME_SEC = 0.04;
const HOP_SEC = 0.03;
/** A frame is voiced when its normalised autocorrelation peak reaches this. */
const VOICED = 0.6;

/** F0 of each voiced 40 ms frame (hop 30 ms) inside `spans`, in Hz. */
export function voicedF0(samples: Float32Array, sampleRate: number, spans: Span[]): number[] {
  const n = Math.round(FRAME_SEC * sampleRate);
  const hop = Math.round(HOP_SEC * sampleRate);
  const minLag = Math.floor(sampleRate / MAX_HZ);
  const maxLag = Math.ceil(sampleRate / MIN_HZ);
  const r = new Float64Array(maxLag + 1);
  const out: number[] = [];
  for (const s of spans) {
    const from = Math.max(0, Math.floor(s.start * sampleRate));
    const to = Math.min(samples.length - n - maxLag, Math.floor(s.end * sampleRate) - n);
    for (let at = from; at <= to; at += hop) {
      let e0 = 0;
      for (let i = 0; i < n; i++) e0 += samples[at + i]! ** 2;
      if (e0 / n < 1e-6) continue; // below about -60 dBFS
      let best = -1;
      // energy of the lagged frame, kept as a running sum over the lags
      let e1 = 0;
      for (let i = 0; i < n; i++) e1 += samples[at + minLag + i]! ** 2;
      for (let lag = minLag; lag <= maxLag; lag++) {
        if (lag > minLag) e1 += samples[at + lag + n - 1]! ** 2 - samples[at + lag - 1]! ** 2;
        let c = 0;
        for (let i = 0; i < n; i++) c += samples[at + i]! * samples[at + i + lag]!;
        r[lag] = c / Math.sqrt(e0 * Math.max(e1, 0) + 1e-12);
        if (best < 0 || r[lag]! > r[best]!) best = lag;
      }
      if (r[best]! < VOICED) continue;
      // a peak at a multiple of the period (an octave too low) gives way to a nearly as strong one at half the lag
      const half = Math.round(best / 2);
      if (half >= minLag && Math.max(r[half]!, r[half - 1] ?? 0, r[half + 1] ?? 0) >= 0.9 * r[best]!) best = half;
      out.push(sampleRate / best);
    }
  }
  return out;
}

export function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function genderOf(f0: number | undefined): Gender | undefined {
  return f0 === undefined ? undefined : f0 < MALE_BELOW_HZ ? 'male' : 'female';
}
