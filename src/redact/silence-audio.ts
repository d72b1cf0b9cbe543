/**
 * scrubaudio: the recording kept for playback, silent over every redacted span plus a margin, on
 * every channel (a caller's digits leak into the agent's channel as echo and crosstalk).
 */
import { playableHeader } from '../audio/wav-stream.js';
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

/**
 * The kept recording for scrubaudio: a 16-bit PCM WAV (what playback serves) of `audio`, silent over
 * the spans plus the margin. Nothing of the original encoding survives: every sample is re-written.
 */
export function redactedWav(audio: DecodedAudio, spans: readonly TimeSpan[], margin = SILENCE_MARGIN_SEC): Buffer {
  const frames = audio.channels[0]?.length ?? 0;
  const nch = audio.channels.length;
  const pcm = new Int16Array(frames * nch);
  audio.channels.forEach((ch, c) => {
    for (let i = 0; i < frames; i++) pcm[i * nch + c] = Math.max(-32768, Math.min(32767, Math.round(ch[i]! * 32768)));
  });
  const inter = Array.from({ length: nch }, (_, c) => c);
  for (const [a, b] of silenceRanges(spans, audio.format.sampleRate, frames, margin)) for (const c of inter) for (let i = a; i < b; i++) pcm[i * nch + c] = 0;
  return Buffer.concat([playableHeader(audio.format.sampleRate, nch, frames), Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength)]);
}

/** The recording as a 16-bit PCM WAV, as it is (the stages already silenced it for scrubaudio). */
export function playableWav(audio: DecodedAudio): Buffer {
  return redactedWav(audio, []);
}
