/**
 * Step 1 of diarization, speech regions from the voice activity detector (src/vad, Silero) and the words:
 * a 10 ms frame is speech when the VAD's probability for its 32 ms window reaches `threshold` or a
 * recognised word covers it (what the transcript says gets a speaker even where the VAD doubts). Runs of
 * speech closer than `mergeGap` are one region; regions shorter than `minRegion` with no word in them are
 * dropped (clicks, breaths). `exclude`: stretches that are another channel's crosstalk (crosstalk.ts), not this
 * channel's speech even where the VAD hears a voice. Pure.
 *
 * The threshold is below Silero's usual 0.5: on the real meeting excerpts quiet and distant speakers score
 * 0.3–0.5 (docs/vad.md), and a region the clustering finds to be noise costs less than a missed voice.
 */
import type { Span } from './regions.js';

export interface SpeechOptions {
  threshold: number;
  /** Padding added around each word, seconds. */
  wordPad: number;
  mergeGap: number;
  minRegion: number;
}

export const SPEECH_DEFAULTS: Readonly<SpeechOptions> = Object.freeze({ threshold: 0.35, wordPad: 0.05, mergeGap: 0.2, minRegion: 0.2 });

const FRAME = 0.01;

/** Speech regions (seconds, sorted, disjoint) of a channel of `duration` seconds. */
export function speechFromVad(probabilities: ArrayLike<number>, windowSec: number, words: readonly Span[], duration: number, o: SpeechOptions = SPEECH_DEFAULTS, exclude: readonly Span[] = []): Span[] {
  const n = Math.max(0, Math.ceil(duration / FRAME));
  const speech = new Uint8Array(n);
  const mark = (from: number, to: number, v: number) => {
    for (let f = Math.max(0, Math.floor(from / FRAME + 1e-9)); f < Math.min(n, Math.ceil(to / FRAME - 1e-9)); f++) speech[f] |= v;
  };
  for (let i = 0; i < probabilities.length; i++) if (probabilities[i]! >= o.threshold) mark(i * windowSec, (i + 1) * windowSec, 1);
  for (const x of exclude) for (let f = Math.max(0, Math.round(x.start / FRAME)); f < Math.min(n, Math.round(x.end / FRAME)); f++) speech[f] = 0;
  for (const w of words) if (w.end > w.start) mark(w.start - o.wordPad, w.end + o.wordPad, 2);
  const runs: (Span & { word: boolean })[] = [];
  for (let f = 0; f < n; f++) {
    if (!speech[f]) continue;
    const t = f * FRAME;
    const last = runs[runs.length - 1];
    if (last && t - last.end <= o.mergeGap + 1e-9) {
      last.end = Math.min(duration, t + FRAME);
      last.word ||= speech[f]! >= 2;
    } else runs.push({ start: t, end: Math.min(duration, t + FRAME), word: speech[f]! >= 2 });
  }
  return runs.filter((r) => r.word || r.end - r.start >= o.minRegion - 1e-9).map((r) => ({ start: round(r.start), end: round(r.end) }));
}

const round = (x: number) => Math.round(x * 1000) / 1000;
