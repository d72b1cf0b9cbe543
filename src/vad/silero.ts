/**
 * Silero VAD 6.2.3 (the authors' silero_vad.onnx, installed by models/fetch-silero.sh) on ONNX Runtime.
 * One call scores one window per stream: 256 samples at 8 kHz or 512 at 16 kHz, preceded by the last 32 / 64
 * samples of the stream's previous window (the context the authors' OnnxWrapper keeps), with each stream's
 * recurrent state [2, 128] carried from call to call. Several streams at one rate go in one batch.
 *
 * ONNX Runtime's Node binding runs a session synchronously on the calling JS thread (deferred by one
 * setImmediate): the VAD costs whoever calls it (docs/vad.md). One intra-op thread, loaded once per thread.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';

export type VadRate = 8000 | 16000;
export const VAD_RATES: readonly VadRate[] = [8000, 16000];
/** Where models/fetch-silero.sh installs the model. */
export const SILERO_DIR = path.join(PACKAGE_ROOT, 'models', 'build', 'silero-vad');
/** silero_vad/data/silero_vad.onnx in the wheel silero-vad==6.2.3 (checked again at load). */
export const SILERO_SHA256 = '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3';
const STATE_SIZE = 2 * 128;

/** Samples scored per call: 256 at 8 kHz, 512 at 16 kHz (32 ms). */
export const windowSamples = (rate: VadRate): number => (rate === 16000 ? 512 : 256);
/** Samples of the previous window put before each window: 32 at 8 kHz, 64 at 16 kHz. */
export const contextSamples = (rate: VadRate): number => (rate === 16000 ? 64 : 32);

/** One stream's recurrent state: the model's [2, 1, 128] state and the tail of its last window. */
export interface SileroState {
  readonly rate: VadRate;
  state: Float32Array;
  context: Float32Array;
}

export function sileroState(rate: VadRate): SileroState {
  return { rate, state: new Float32Array(STATE_SIZE), context: new Float32Array(contextSamples(rate)) };
}

export interface SileroVad {
  /**
   * The speech probability of one window per stream (all at one rate, each window exactly windowSamples long);
   * steps each stream's state and context.
   */
  score(streams: SileroState[], windows: Float32Array[]): Promise<Float32Array>;
  release(): Promise<void>;
}

export function isVadRate(rate: number): rate is VadRate {
  return rate === 8000 || rate === 16000;
}

export async function loadSileroVad(dir: string = SILERO_DIR): Promise<SileroVad> {
  const file = path.join(dir, 'silero_vad.onnx');
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw voxdexError('MODEL_LOAD_FAILED', `the voice activity detector is not installed in ${dir} (run bash models/fetch-silero.sh): ${(err as Error).message}`, err);
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== SILERO_SHA256) throw voxdexError('MODEL_LOAD_FAILED', `${file}: sha256 ${sha}, expected ${SILERO_SHA256} (run bash models/fetch-silero.sh)`);
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const rates = new Map<VadRate, ort.Tensor>(VAD_RATES.map((r) => [r, new ort.Tensor('int64', BigInt64Array.of(BigInt(r)), [])]));
  return {
    async score(streams, windows) {
      const b = streams.length;
      if (b === 0) return new Float32Array(0);
      const rate = streams[0]!.rate;
      const win = windowSamples(rate);
      const ctx = contextSamples(rate);
      const input = new Float32Array(b * (ctx + win));
      const state = new Float32Array(STATE_SIZE * b);
      streams.forEach((s, i) => {
        const w = windows[i]!;
        if (s.rate !== rate || w.length !== win) throw voxdexError('INTERNAL', `VAD: a window of ${w.length} samples at ${s.rate} Hz in a batch at ${rate} Hz (${win} expected)`);
        input.set(s.context, i * (ctx + win));
        input.set(w, i * (ctx + win) + ctx);
        state.set(s.state.subarray(0, 128), i * 128); // [2, B, 128]: layer 0 of every stream, then layer 1
        state.set(s.state.subarray(128), (b + i) * 128);
      });
      const out = await session.run({
        input: new ort.Tensor('float32', input, [b, ctx + win]),
        state: new ort.Tensor('float32', state, [2, b, 128]),
        sr: rates.get(rate)!,
      });
      const probs = out.output!.data as Float32Array;
      const next = out.stateN!.data as Float32Array;
      streams.forEach((s, i) => {
        s.state.set(next.subarray(i * 128, (i + 1) * 128), 0);
        s.state.set(next.subarray((b + i) * 128, (b + i + 1) * 128), 128);
        s.context = windows[i]!.slice(win - ctx);
      });
      return Float32Array.from(probs);
    },
    release: () => session.release(),
  };
}

let shared: Promise<SileroVad> | undefined;

/** This thread's model, loaded on first use (a failed load is retried on the next call). */
export function sileroVad(): Promise<SileroVad> {
  if (!shared) {
    shared = loadSileroVad();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}
