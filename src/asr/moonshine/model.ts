/**
 * Moonshine (encoder + merged decoder, ONNX Runtime `.ort` files) with a greedy decoder that keeps
 * the key/value cache between steps. One MoonshineModel per worker thread: the two sessions are
 * loaded once and reused; everything per utterance lives in decode().
 *
 * The loop follows the model's reference implementation: encode the whole utterance once; step 0
 * feeds the start token with empty caches (use_cache_branch = false) and keeps every `present.*`
 * output; later steps feed only the last token (use_cache_branch = true) and replace only the
 * decoder (self-attention) caches — the encoder (cross-attention) caches computed at step 0 stay.
 * The abort flag is polled between steps.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { voxdexError } from '../../errors.js';
import { BOS, EOS, loadTokenizer, type Tokenizer } from './tokenizer.js';

/**
 * The two graphs of a model directory: the folded ONNX files (models/fold-moonshine.sh; weights
 * dequantized once, offline) when present, else the official ORT-format files.
 */
export function moonshineGraphs(dir: string): { encoder: string; decoder: string } {
  const ext = existsSync(path.join(dir, 'encoder_model.onnx')) ? 'onnx' : 'ort';
  return { encoder: path.join(dir, `encoder_model.${ext}`), decoder: path.join(dir, `decoder_model_merged.${ext}`) };
}
export const MOONSHINE_RATE = 16000;

const LAYERS = 8;
const HEADS = 8;
const HEAD_DIM = 52;

export interface MoonshineOptions {
  /** ONNX Runtime intra-op threads per session (1: the pool's threads are the parallelism). */
  intraOpThreads?: number;
  /** ONNX Runtime's CPU memory arena (off halves the resident memory at a small speed cost). */
  memArena?: boolean;
}

export interface DecodeOptions {
  /** Upper bound on generated tokens (the model's reference uses 6 per second of audio). */
  maxTokens: number;
  /** When the first token would be end-of-sequence, take the best other token instead. */
  forcePastEos?: boolean;
  /** Int32 over a SharedArrayBuffer; non-zero stops decoding between steps (CANCELLED). */
  abort?: Int32Array;
}

export interface DecodedToken {
  id: number;
  /** Natural log of the token's softmax probability. */
  logprob: number;
}

export interface MoonshineOutput {
  /** Generated tokens, without the start and end tokens. */
  tokens: DecodedToken[];
  /** Whether decoding stopped at end-of-sequence (false: maxTokens or a repetition loop). */
  ended: boolean;
  /** A repeated token pattern was cut off. */
  repetition: boolean;
  /** Log probability of end-of-sequence at step 0 (how sure the model was there is nothing). */
  firstEosLogprob: number;
  encodeMs: number;
  decodeMs: number;
}

export interface MoonshineModel {
  readonly tokenizer: Tokenizer;
  decode(pcm: Float32Array, opts: DecodeOptions): Promise<MoonshineOutput>;
  release(): Promise<void>;
}

export async function loadMoonshine(dir: string, opts: MoonshineOptions = {}): Promise<MoonshineModel> {
  const sessionOptions: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: opts.intraOpThreads ?? 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    enableCpuMemArena: opts.memArena ?? true,
    graphOptimizationLevel: 'all',
  };
  let encoder: ort.InferenceSession | undefined;
  try {
    const tokenizer = loadTokenizer(path.join(dir, 'tokenizer.bin'));
    const files = moonshineGraphs(dir);
    encoder = await ort.InferenceSession.create(files.encoder, sessionOptions);
    const decoder = await ort.InferenceSession.create(files.decoder, sessionOptions);
    return createModel(tokenizer, encoder, decoder);
  } catch (err) {
    await encoder?.release().catch(() => {});
    throw voxdexError('MODEL_LOAD_FAILED', `Moonshine model in ${dir} could not be loaded: ${(err as Error).message}`, err);
  }
}

function cacheNames(kind: 'past_key_values' | 'present'): string[] {
  const names: string[] = [];
  for (let l = 0; l < LAYERS; l++) for (const a of ['decoder', 'encoder']) for (const b of ['key', 'value']) names.push(`${kind}.${l}.${a}.${b}`);
  return names;
}
const PAST = cacheNames('past_key_values');
const PRESENT = cacheNames('present');

/** The largest logit of a row (other than `exclude`), its log-softmax, and end-of-sequence's log-softmax. */
function pick(logits: Float32Array, offset: number, size: number, exclude: number): { id: number; logprob: number; eosLogprob: number } {
  let best = -1;
  let max = -Infinity;
  let rowMax = -Infinity;
  for (let i = 0; i < size; i++) {
    const v = logits[offset + i]!;
    if (v > rowMax) rowMax = v;
    if (i !== exclude && v > max) {
      max = v;
      best = i;
    }
  }
  let sum = 0;
  for (let i = 0; i < size; i++) sum += Math.exp(logits[offset + i]! - rowMax);
  const lse = rowMax + Math.log(sum);
  return { id: best, logprob: max - lse, eosLogprob: logits[offset + EOS]! - lse };
}

/** Length of a pattern (1–8 tokens) repeated at least `times` times at the end of ids, or 0. */
export function trailingRepeat(ids: readonly number[], times = 4): number {
  for (let p = 1; p <= 8; p++) {
    if (ids.length < p * times) break;
    let ok = true;
    for (let k = 1; k < times && ok; k++) {
      for (let j = 0; j < p; j++) {
        if (ids[ids.length - 1 - j] !== ids[ids.length - 1 - j - k * p]) {
          ok = false;
          break;
        }
      }
    }
    if (ok) return p;
  }
  return 0;
}

function createModel(tokenizer: Tokenizer, encoder: ort.InferenceSession, decoder: ort.InferenceSession): MoonshineModel {
  const emptyCache = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, HEAD_DIM]);
  const cacheOff = new ort.Tensor('bool', new Uint8Array([0]), [1]);
  const cacheOn = new ort.Tensor('bool', new Uint8Array([1]), [1]);
  const cancelled = () => voxdexError('CANCELLED', 'cancelled');

  return {
    tokenizer,
    async decode(pcm, opts) {
      const aborted = () => opts.abort !== undefined && Atomics.load(opts.abort, 0) !== 0;
      if (aborted()) throw cancelled();
      const t0 = performance.now();
      const enc = await encoder.run({ input_values: new ort.Tensor('float32', pcm, [1, pcm.length]) });
      const hidden = enc.last_hidden_state!;
      const t1 = performance.now();
      const feeds: Record<string, ort.Tensor> = { encoder_hidden_states: hidden };
      for (const n of PAST) feeds[n] = emptyCache;
      const tokens: DecodedToken[] = [];
      let last = BOS;
      let ended = false;
      let repetition = false;
      let firstEosLogprob = 0;
      const owned: ort.Tensor[] = [];
      try {
        for (let step = 0; step < opts.maxTokens + 1; step++) {
          if (aborted()) throw cancelled();
          feeds.input_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(last)), [1, 1]);
          feeds.use_cache_branch = step === 0 ? cacheOff : cacheOn;
          const out = await decoder.run(feeds);
          const logits = out.logits!;
          const size = logits.dims[2]!;
          const data = logits.data as Float32Array;
          const row = data.length - size;
          let choice = pick(data, row, size, -1);
          if (step === 0) {
            firstEosLogprob = choice.eosLogprob;
            if (choice.id === EOS && opts.forcePastEos) choice = pick(data, row, size, EOS);
          }
          logits.dispose();
          // Keep the new caches (all of them after step 0, only the decoder's afterwards).
          for (let i = 0; i < PAST.length; i++) {
            const isDecoderCache = i % 4 < 2;
            const present = out[PRESENT[i]!]!;
            if (step === 0 || isDecoderCache) {
              const old = feeds[PAST[i]!]!;
              if (old !== emptyCache && owned.includes(old)) {
                owned.splice(owned.indexOf(old), 1);
                old.dispose();
              }
              feeds[PAST[i]!] = present;
              owned.push(present);
            } else {
              present.dispose();
            }
          }
          if (choice.id === EOS) {
            ended = true;
            break;
          }
          if (step === opts.maxTokens) break; // the bound was reached without end-of-sequence
          tokens.push({ id: choice.id, logprob: choice.logprob });
          last = choice.id;
          const rep = trailingRepeat(tokens.map((t) => t.id));
          if (rep > 0) {
            // A decoding loop: keep one copy of the pattern.
            tokens.length -= rep * 3;
            repetition = true;
            break;
          }
        }
      } finally {
        for (const t of owned) t.dispose();
        hidden.dispose();
      }
      return { tokens, ended, repetition, firstEosLogprob, encodeMs: t1 - t0, decodeMs: performance.now() - t1 };
    },
    async release() {
      await encoder.release();
      await decoder.release();
    },
  };
}
