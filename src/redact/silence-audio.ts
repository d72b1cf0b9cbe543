/**
 * scrubaudio: the recording kept for playback, silent over every redacted span plus a margin, on
 * every channel (a caller's digits leak into the agent's channel as echo and crosstalk).
 */
import type { DecodedAudio } from '../types.js';

/** Seconds of silence added before and after each redacted span (word times are ±0.1 s). */
export const SILENCE_MARGIN_SEC = 0.25;

export interface TimeSpan {
  start: number;
  end: number;
}

/** Sample ranges [from, to) to silence, merged and clamped to `frames`. */
export function silenceRanges(spans: readonly TimeSpan[], sampleRate: number, frames: number, margin = SILENCE_MARGIN_SEC): Array<[number, number]> {
  const ranges = spans
    .map((s): [number, number] => [Math.max(0, Math.floor((s.start - margin) * sampleRate)), Math.min(frames, Math.ceil((s.end + margin) * sampleRate))])
    .filter(([a, b]) => b > a)
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** Zeroes the ranges in every channel, in place (Float32Array or Int16Array channels). */
export function silenceChannels(channels: ReadonlyArray<Float32Array | Int16Array>, sampleRate: number, spans: readonly TimeSpan[], margin = SILENCE_MARGIN_SEC): number {
  const frames = channels[0]?.length ?? 0;
  let silenced = 0;
  for (const [a, b] of silenceRanges(spans, sampleRate, frames, margin)) {
    for (const ch of channels) ch.fill(0, a, b);
    silenced += b - a;
  }
  return silenced;
}

/** A silenced copy of decoded audio (the input is left as it is). */
export function silenceAudio(audio: DecodedAudio, spans: readonly TimeSpan[], margin = SILENCE_MARGIN_SEC): DecodedAudio {
  const channels = audio.channels.map((c) => c.slice());
  silenceChannels(channels, audio.format.sampleRate, spans, margin);
  return { ...audio, channels };
}
