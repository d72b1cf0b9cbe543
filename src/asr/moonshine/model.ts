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
import { decodeWithPhrases, type BeamTuning, type Stepper } from './phrase-beam.js';
import type { Vocabulary } from './vocab.js';

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
  /** When the first token would be end-of-sequence, take the best other token instead (`forced` says it did). */
  forcePastEos?: boolean;
  /** Int32 over a SharedArrayBuffer; non-zero stops decoding between steps (CANCELLED). */
  abort?: Int32Array;
  /** Phrases to bias the decoder towards (compileVocabulary; src/asr/moonshine/vocab.ts). */
  vocabulary?: Vocabulary;
  /** The phrase beam's settings other than BEAM_TUNING (benchmarks). */
  beam?: Partial<BeamTuning>;
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
  /** The model's first token was end-of-sequence and `forcePastEos` took the best other one. */
  forced: boolean;
  encodeMs: number;
  decodeMs: number;
}

export interface MoonshineModel {
  readonly tokenizer: Tokenizer;
  decode(pcm: Float32Array, opts: DecodeOptions): Promise<MoonshineOutput>;
  /**
   * Decodes several utterances together: each is encoded alone, then their decoder steps run as one
   * batch (the encoder outputs padded to the longest and masked through the folded decoder's
   * `encoder_attention_bias`, so each row computes what it would alone). A row leaves the batch when
   * it ends. Without that input (the official .ort files) the utterances are decoded one by one.
   */
  decodeBatch(pcms: Float32Array[], opts: DecodeOptions[]): Promise<MoonshineOutput[]>;
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
/**
 * What a cached step (step ≥ 1) fetches: the logits and the decoder's self-attention caches. The
 * encoder's cross-attention caches are computed once at step 0; fetching them again on every later step
 * would copy them out of ONNX Runtime each time (8 layers × 2 × [rows, 8, frames, 52] floats).
 */
const STEP_FETCHES = ['logits', ...PRESENT.filter((_, i) => i % 4 < 2)];

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

/** A bias far below any attention score: the padded frames' softmax weights are exactly 0. */
const MASKED = -1e9;
const BIAS = 'encoder_attention_bias';

/** Rows `keep` of a tensor whose first dimension is the batch. */
function selectRows(t: ort.Tensor, keep: number[]): ort.Tensor {
  const b = t.dims[0]!;
  const data = t.data as Float32Array;
  const row = data.length / b;
  const out = new Float32Array(row * keep.length);
  keep.forEach((r, i) => out.set(data.subarray(r * row, (r + 1) * row), i * row));
  return new ort.Tensor('float32', out, [keep.length, ...t.dims.slice(1)]);
}

/** One utterance's decoding state inside a batch. */
interface Row {
  opts: DecodeOptions;
  tokens: DecodedToken[];
  last: number;
  ended: boolean;
  repetition: boolean;
  done: boolean;
  firstEosLogprob: number;
  forced: boolean;
  encodeMs: number;
}

/** The row's next token (greedy; past end-of-sequence at step 0 when asked). */
function choose(row: Row, data: Float32Array, offset: number, size: number, step: number): { id: number; logprob: number } {
  let choice = pick(data, offset, size, -1);
  if (step === 0) {
    row.firstEosLogprob = choice.eosLogprob;
    if (choice.id === EOS && row.opts.forcePastEos) {
      choice = pick(data, offset, size, EOS);
      row.forced = true;
    }
  }
  return choice;
}

function createModel(tokenizer: Tokenizer, encoder: ort.InferenceSession, decoder: ort.InferenceSession): MoonshineModel {
  const cacheOff = new ort.Tensor('bool', new Uint8Array([0]), [1]);
  const cacheOn = new ort.Tensor('bool', new Uint8Array([1]), [1]);
  const cancelled = () => voxdexError('CANCELLED', 'cancelled');
  const masks = decoder.inputNames.includes(BIAS);

  async function decodeTogether(pcms: Float32Array[], opts: DecodeOptions[]): Promise<MoonshineOutput[]> {
    const aborted = () => opts.some((o) => o.abort !== undefined && Atomics.load(o.abort, 0) !== 0);
    if (aborted()) throw cancelled();
    const hiddens: ort.Tensor[] = [];
    const rows: Row[] = [];
    for (const [i, pcm] of pcms.entries()) {
      const e0 = performance.now();
      hiddens.push((await encoder.run({ input_values: new ort.Tensor('float32', pcm, [1, pcm.length]) })).last_hidden_state!);
      rows.push({ opts: opts[i]!, tokens: [], last: BOS, ended: false, repetition: false, done: false, firstEosLogprob: 0, forced: false, encodeMs: performance.now() - e0 });
      if (aborted()) throw cancelled();
    }
    const t1 = performance.now();
    // The batch's encoder output: each row's frames, zeros after them, masked in the bias.
    const dim = hiddens[0]!.dims[2]!;
    const frames = Math.max(...hiddens.map((h) => h.dims[1]!));
    const hidden = new Float32Array(rows.length * frames * dim);
    const bias = new Float32Array(rows.length * frames);
    hiddens.forEach((h, r) => {
      hidden.set(h.data as Float32Array, r * frames * dim);
      bias.fill(MASKED, r * frames + h.dims[1]!, (r + 1) * frames);
    });
    let feeds: Record<string, ort.Tensor> = { encoder_hidden_states: new ort.Tensor('float32', hidden, [rows.length, frames, dim]) };
    if (masks) feeds[BIAS] = new ort.Tensor('float32', bias, [rows.length, 1, 1, frames]);
    for (const n of PAST) feeds[n] = new ort.Tensor('float32', new Float32Array(0), [rows.length, HEADS, 0, HEAD_DIM]);

    let active = rows.slice();
    for (let step = 0; active.length > 0; step++) {
      if (aborted()) throw cancelled();
      feeds.input_ids = new ort.Tensor('int64', BigInt64Array.from(active, (r) => BigInt(r.last)), [active.length, 1]);
      feeds.use_cache_branch = step === 0 ? cacheOff : cacheOn;
      const out = step === 0 ? await decoder.run(feeds) : await decoder.run(feeds, STEP_FETCHES);
      const logits = out.logits!;
      const size = logits.dims[2]!;
      const data = logits.data as Float32Array;
      const perRow = data.length / active.length;
      // The inputs of the next step: the new caches (all of them after step 0, only the decoder's afterwards).
      const next: Record<string, ort.Tensor> = { ...feeds };
      for (let i = 0; i < PAST.length; i++) if (step === 0 || i % 4 < 2) next[PAST[i]!] = out[PRESENT[i]!]!;
      for (const [k, row] of active.entries()) {
        const choice = choose(row, data, k * perRow + perRow - size, size, step);
        if (choice.id === EOS) {
          row.ended = row.done = true;
          continue;
        }
        if (step === row.opts.maxTokens) {
          row.done = true; // the bound was reached without end-of-sequence
          continue;
        }
        row.tokens.push({ id: choice.id, logprob: choice.logprob });
        row.last = choice.id;
        const rep = trailingRepeat(row.tokens.map((x) => x.id));
        if (rep > 0) {
          row.tokens.length -= rep * 3; // a decoding loop: keep one copy of the pattern
          row.repetition = row.done = true;
        }
      }
      const still = active.map((r, k) => (r.done ? -1 : k)).filter((k) => k >= 0);
      if (still.length < active.length && still.length > 0) {
        // Rows that ended leave the batch: every batch-shaped input keeps the others' rows.
        for (const name of [...PAST, 'encoder_hidden_states', ...(masks ? [BIAS] : [])]) next[name] = selectRows(next[name]!, still);
      }
      feeds = next;
      active = still.map((k) => active[k]!);
    }
    const decodeMs = (performance.now() - t1) / rows.length;
    return rows.map((r) => ({ tokens: r.tokens, ended: r.ended, repetition: r.repetition, firstEosLogprob: r.firstEosLogprob, forced: r.forced, encodeMs: r.encodeMs, decodeMs }));
  }

  /** One utterance with a vocabulary: greedy decoding plus the beam over phrase starts (phrase-beam.ts). */
  async function decodeWithVocabulary(pcm: Float32Array, opts: DecodeOptions, vocabulary: Vocabulary): Promise<MoonshineOutput> {
    const checkAbort = () => {
      if (opts.abort !== undefined && Atomics.load(opts.abort, 0) !== 0) throw cancelled();
    };
    checkAbort();
    const e0 = performance.now();
    const hidden = (await encoder.run({ input_values: new ort.Tensor('float32', pcm, [1, pcm.length]) })).last_hidden_state!;
    const encodeMs = performance.now() - e0;
    const t1 = performance.now();
    const feeds: Record<string, ort.Tensor> = { encoder_hidden_states: hidden };
    if (masks) feeds[BIAS] = new ort.Tensor('float32', new Float32Array(hidden.dims[1]!), [1, 1, 1, hidden.dims[1]!]);
    for (const n of PAST) feeds[n] = new ort.Tensor('float32', new Float32Array(0), [1, HEADS, 0, HEAD_DIM]);
    type State = { feeds: Record<string, ort.Tensor>; step: number };
    const stepper: Stepper<State> = {
      async step(s, token) {
        const input = { ...s.feeds, input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(token)), [1, 1]), use_cache_branch: s.step === 0 ? cacheOff : cacheOn };
        const out = s.step === 0 ? await decoder.run(input) : await decoder.run(input, STEP_FETCHES);
        const next: Record<string, ort.Tensor> = { ...input };
        for (let i = 0; i < PAST.length; i++) if (s.step === 0 || i % 4 < 2) next[PAST[i]!] = out[PRESENT[i]!]!;
        const data = out.logits!.data as Float32Array;
        return { logits: data.subarray(data.length - out.logits!.dims[2]!), state: { feeds: next, step: s.step + 1 } };
      },
    };
    const r = await decodeWithPhrases(stepper, { feeds, step: 0 }, { vocabulary, maxTokens: opts.maxTokens, forcePastEos: opts.forcePastEos, checkAbort, repeats: trailingRepeat, tuning: opts.beam });
    return { tokens: r.tokens, ended: r.ended, repetition: r.repetition, firstEosLogprob: r.firstEosLogprob, forced: r.forced, encodeMs, decodeMs: performance.now() - t1 };
  }

  return {
    tokenizer,
    async decode(pcm, opts) {
      if (opts.vocabulary) return decodeWithVocabulary(pcm, opts, opts.vocabulary);
      return (await decodeTogether([pcm], [opts]))[0]!;
    },
    async decodeBatch(pcms, opts) {
      if (pcms.length === 0) return [];
      // A vocabulary decodes one utterance at a time (its hypotheses are a batch of their own).
      if (masks && !opts.some((o) => o.vocabulary)) return decodeTogether(pcms, opts);
      const out: MoonshineOutput[] = [];
      for (const [i, pcm] of pcms.entries()) out.push(opts[i]!.vocabulary ? await decodeWithVocabulary(pcm, opts[i]!, opts[i]!.vocabulary!) : (await decodeTogether([pcm], [opts[i]!]))[0]!);
      return out;
    },
    async release() {
      await encoder.release();
      await decoder.release();
    },
  };
}
