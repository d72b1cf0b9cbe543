/**
 * Batch voice activity: the speech regions of a whole recording (one channel), through the same stream a
 * live call uses, so that batch and live agree to the sample.
 */
import type { EndpointParams } from './endpointer.js';
import { sileroVad, type SileroVad } from './silero.js';
import { createVadStream } from './stream.js';

export interface SpeechRegion {
  start: number;
  end: number;
}

export interface SpeechRegions {
  regions: SpeechRegion[];
  /** Speech probability per window of `windowSeconds` (window i starts at i·windowSeconds). */
  probabilities: Float32Array;
  windowSeconds: number;
}

/** Speech regions (seconds) of 8 or 16 kHz float samples; probabilities per 32 ms window beside them. */
export async function speechRegions(samples: Float32Array, rate: number, params: Partial<EndpointParams> = {}, model?: SileroVad): Promise<SpeechRegions> {
  const stream = createVadStream(model ?? (await sileroVad()), { sampleRate: rate, ...params });
  const a = await stream.push(samples);
  const b = await stream.end();
  const probabilities = new Float32Array(a.probabilities.length + b.probabilities.length);
  probabilities.set(a.probabilities);
  probabilities.set(b.probabilities, a.probabilities.length);
  const regions = [...a.events, ...b.events].flatMap((e) => (e.type === 'end' ? [{ start: e.start, end: e.end }] : []));
  return { regions, probabilities, windowSeconds: stream.windowSeconds };
}
