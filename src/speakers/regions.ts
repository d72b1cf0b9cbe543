/**
 * Step 1 of diarization, speech regions, and the windows the embeddings are taken over. Pure.
 *
 * Regions come from the recognised words (their times, padded a little and merged across short gaps):
 * what the transcript says is speech is what gets a speaker. The regions are laid end to end on a
 * "speech timeline" (silence removed, as Resemblyzer's preprocessing trims long silences), and windows
 * of `windowSec` every `stepSec` are placed on that timeline; each maps back to the recording's time.
 */

export interface Span {
  start: number;
  end: number;
}

export interface RegionOptions {
  /** Padding added around each word, seconds. */
  pad: number;
  /** Words closer than this are one region. */
  mergeGap: number;
}

export const REGION_DEFAULTS: Readonly<RegionOptions> = Object.freeze({ pad: 0.05, mergeGap: 0.3 });

/** Speech regions from word times: padded, sorted, merged, clamped to [0, duration]. */
export function speechRegions(words: readonly Span[], duration: number, o: RegionOptions = REGION_DEFAULTS): Span[] {
  const spans = words
    .filter((w) => w.end > w.start)
    .map((w) => ({ start: Math.max(0, w.start - o.pad), end: Math.min(duration, w.end + o.pad) }))
    .sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start - last.end <= o.mergeGap) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out.filter((r) => r.end > r.start);
}

/** The regions end to end: `offsets[i]` is where region i starts on the speech timeline. */
export interface SpeechTimeline {
  regions: Span[];
  offsets: number[];
  /** Total speech, seconds. */
  length: number;
}

export function speechTimeline(regions: Span[]): SpeechTimeline {
  const offsets: number[] = [];
  let at = 0;
  for (const r of regions) {
    offsets.push(at);
    at += r.end - r.start;
  }
  return { regions, offsets, length: at };
}

/** Recording time → speech-timeline time (a time in a gap maps to the next region's start). */
export function toSpeechTime(t: SpeechTimeline, time: number): number {
  for (let i = 0; i < t.regions.length; i++) {
    const r = t.regions[i]!;
    if (time < r.start) return t.offsets[i]!;
    if (time <= r.end) return t.offsets[i]! + (time - r.start);
  }
  return t.length;
}

export interface WindowOptions {
  windowSec: number;
  stepSec: number;
}

export const WINDOW_DEFAULTS: Readonly<WindowOptions> = Object.freeze({ windowSec: 1.5, stepSec: 0.75 });

/**
 * Window starts on the speech timeline: every `stepSec`, the last one ending at the timeline's end
 * (so the tail is covered); one window when there is less speech than a window.
 */
export function windowStarts(length: number, o: WindowOptions = WINDOW_DEFAULTS): number[] {
  if (length <= o.windowSec) return [0];
  const starts: number[] = [];
  for (let s = 0; s + o.windowSec <= length + 1e-9; s += o.stepSec) starts.push(s);
  const lastEnd = starts[starts.length - 1]! + o.windowSec;
  if (length - lastEnd > o.stepSec / 3) starts.push(length - o.windowSec);
  return starts;
}

/**
 * Windows on the speech timeline that stay inside their region: a region shorter than a window is one
 * window of its own length (the encoder zero-pads it, as Resemblyzer pads a short utterance), a longer
 * one gets windowStarts() of its length. A pause between two regions is often a change of speaker, so
 * no window straddles one.
 */
export function regionWindows(t: SpeechTimeline, o: WindowOptions = WINDOW_DEFAULTS): Span[] {
  return t.regions.flatMap((r, i) => {
    const len = r.end - r.start;
    const off = t.offsets[i]!;
    if (len <= o.windowSec) return [{ start: off, end: off + len }];
    return windowStarts(len, o).map((s) => ({ start: off + s, end: off + s + o.windowSec }));
  });
}
