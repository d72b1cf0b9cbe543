/**
 * Streaming voice activity: one VadStream per channel keeps the model's state, the partial window not yet
 * scored and an Endpointer. Feed PCM (float32 in [-1, 1], 8 or 16 kHz) as it arrives, in any sizes; each push
 * returns the speech probability of every window it completed (32 ms each) and the utterance start/end events
 * they decided. Pushes are scored in the order they were made, awaited or not.
 */
import { voxdexError } from '../errors.js';
import { createEndpointer, type EndpointParams, type VadEvent } from './endpointer.js';
import { isVadRate, sileroState, windowSamples, type SileroVad, type VadRate } from './silero.js';

export interface VadStreamOptions extends Partial<EndpointParams> {
  sampleRate: number;
}

export interface VadUpdate {
  /** Index of the first window scored by this push (window i covers [i·w, (i+1)·w) samples). */
  firstWindow: number;
  /** One speech probability per window completed by this push. */
  probabilities: Float32Array;
  events: VadEvent[];
  /** After this push: where the utterance in progress starts, if any (Endpointer.openStart, seconds). */
  openStart: number | undefined;
  /** After this push: every utterance still to end starts at or after this time (Endpointer.committed). */
  committed: number;
}

export interface VadStream {
  readonly sampleRate: VadRate;
  /** Seconds per scored window (0.032). */
  readonly windowSeconds: number;
  push(samples: Float32Array): Promise<VadUpdate>;
  /** The stream's end: scores the last partial window (zero-padded) and closes an open utterance. */
  end(): Promise<VadUpdate>;
}

export function createVadStream(model: SileroVad, options: VadStreamOptions): VadStream {
  const { sampleRate, ...params } = options;
  if (!isVadRate(sampleRate)) throw voxdexError('BAD_SAMPLE_RATE', `voice activity detection takes 8000 or 16000 Hz audio, not ${sampleRate} Hz`);
  const win = windowSamples(sampleRate);
  const state = sileroState(sampleRate);
  const endpointer = createEndpointer(sampleRate, win, params);
  let pending = new Float32Array(win);
  let filled = 0;
  let windows = 0;
  let total = 0;
  let ended = false;
  let queue: Promise<unknown> = Promise.resolve();

  async function scoreWindows(samples: Float32Array, last: boolean): Promise<VadUpdate> {
    if (ended) throw voxdexError('INTERNAL', 'VAD stream: audio pushed after end()');
    const firstWindow = windows;
    const probs: number[] = [];
    const events: VadEvent[] = [];
    const step = async (w: Float32Array) => {
      const prob = (await model.score([state], [w]))[0]!;
      probs.push(prob);
      events.push(...endpointer.push(prob));
      windows++;
    };
    total += samples.length;
    let i = 0;
    if (filled > 0) {
      i = Math.min(win - filled, samples.length);
      pending.set(samples.subarray(0, i), filled);
      filled += i;
      if (filled === win) {
        await step(pending);
        pending = new Float32Array(win);
        filled = 0;
      }
    }
    for (; i + win <= samples.length; i += win) await step(samples.slice(i, i + win));
    if (i < samples.length) {
      pending.set(samples.subarray(i), filled);
      filled += samples.length - i;
    }
    if (last) {
      if (filled > 0) await step(pending); // zero-padded, as the authors pad the last window
      filled = 0;
      events.push(...endpointer.finish(total));
      ended = true;
    }
    return { firstWindow, probabilities: Float32Array.from(probs), events, openStart: endpointer.openStart, committed: endpointer.committed };
  }

  function enqueue(samples: Float32Array, last: boolean): Promise<VadUpdate> {
    const run = queue.then(() => scoreWindows(samples, last));
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    sampleRate,
    windowSeconds: win / sampleRate,
    push: (samples) => enqueue(samples, false),
    end: () => enqueue(new Float32Array(0), true),
  };
}
