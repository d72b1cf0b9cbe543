/**
 * Utterances for the ASR from the VAD's endpoints (pure; no model): the parameters that suit the
 * recognizer (a pause long enough to split, padding, the longest utterance), the rate the VAD runs at
 * for a channel's rate, and an 'end' event as a segment of the channel's own samples. The batch
 * segmenter (src/asr/segmenter.ts) and the live endpointer (src/asr/vad-endpointer.ts) both go
 * through here, on the same probabilities, so a call cut live and at upload gives the same utterances.
 */
import type { EndpointParams, VadEvent } from './endpointer.js';
import type { VadRate } from './silero.js';

/** The endpointing parameters for utterances (docs/vad.md, "Utterances for the ASR"). */
export type UtteranceVadParams = Omit<EndpointParams, 'maxSpeechS'>;

/** Chosen on the tuning sets (bench/segmentation.ts; docs/vad.md). */
export const UTTERANCE_VAD_DEFAULTS: Readonly<UtteranceVadParams> = Object.freeze({
  threshold: 0.5,
  negThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: 400,
  shortSilenceMs: 400,
  shortSpeechMs: 0,
  padMs: 200,
});

/** The endpointer's parameters for utterances of at most `maxUtteranceSec` (padding included). */
export function utteranceEndpointParams(maxUtteranceSec: number, p: Partial<UtteranceVadParams> = {}): Partial<EndpointParams> {
  const threshold = p.threshold ?? UTTERANCE_VAD_DEFAULTS.threshold;
  const negThreshold = p.negThreshold ?? (p.threshold === undefined ? UTTERANCE_VAD_DEFAULTS.negThreshold : Math.max(threshold - 0.15, 0.01));
  const minSilenceMs = p.minSilenceMs ?? UTTERANCE_VAD_DEFAULTS.minSilenceMs;
  const shortSilenceMs = p.shortSilenceMs ?? (p.minSilenceMs === undefined ? UTTERANCE_VAD_DEFAULTS.shortSilenceMs : minSilenceMs);
  return { ...UTTERANCE_VAD_DEFAULTS, ...p, threshold, negThreshold, minSilenceMs, shortSilenceMs, maxSpeechS: maxUtteranceSec };
}

/** The rate the VAD scores a channel at: its own when 8 or 16 kHz, else the nearer of the two below it. */
export function vadRate(sampleRate: number): VadRate {
  return sampleRate >= 16000 ? 16000 : 8000;
}

/** One utterance in samples of its channel: the padded range decoded, the speech inside it. */
export interface SampleSegment {
  start: number;
  end: number;
  speechStart: number;
  speechEnd: number;
}

/** A frame whose RMS is under −80 dBFS (zeros, ±1 LSB) is digital silence, not a noise floor. */
const DIGITAL_SILENCE_RMS = 1e-4;
const FRAME_SEC = 0.01;

function silentFrame(x: Float32Array, a: number, b: number): boolean {
  let mean = 0;
  for (let i = a; i < b; i++) mean += x[i]!;
  mean /= b - a;
  let sum = 0;
  for (let i = a; i < b; i++) sum += (x[i]! - mean) ** 2;
  return Math.sqrt(sum / (b - a)) < DIGITAL_SILENCE_RMS;
}

/**
 * An 'end' event as samples of the channel (at `rate`, `samples` from `offset` on), its padding
 * drawn back out of digital silence 10 ms at a time: the energy segmenter's rule, kept for the
 * PocketSphinx models, whose cepstra go out of range on zeros (docs/asr.md).
 */
export function eventSegment(e: Extract<VadEvent, { type: 'end' }>, rate: number, samples: Float32Array, offset = 0): SampleSegment {
  const at = (t: number) => Math.round(t * rate);
  const speechStart = at(e.speechStart);
  const speechEnd = Math.min(at(e.speechEnd), offset + samples.length);
  let start = at(e.start);
  let end = Math.min(at(e.end), offset + samples.length);
  const frame = Math.max(1, Math.round(rate * FRAME_SEC));
  while (start + frame <= speechStart && silentFrame(samples, start - offset, start - offset + frame)) start += frame;
  while (end - frame >= speechEnd && silentFrame(samples, end - frame - offset, end - offset)) end -= frame;
  return { start, end, speechStart, speechEnd };
}
