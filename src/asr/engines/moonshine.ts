/**
 * Moonshine through ONNX Runtime, with the safeguards a text-only neural model needs, and word times
 * from forced alignment (src/asr/align.ts).
 *
 * Safeguards (docs/asr.md, "Moonshine"):
 * - no speech, no words: an utterance with under 0.1 s of frames above the speech level is not decoded;
 * - empty output on speech (the model ends at once): force past that first end-of-sequence — in the
 *   same decode (the audio is encoded once) unless a vocabulary is asked for — and keep the result only
 *   if it is believable, else split the utterance at its quietest point and decode the parts;
 * - runaway output (a repetition loop, or the token budget spent without end-of-sequence): split and
 *   decode the parts; what is left of a loop is cut to one copy;
 * - 0.1–64 s per decode (the model's range): longer input is split, shorter is padded with silence.
 */
import { align } from '../align-engine.js';
import { loadMoonshine, MOONSHINE_RATE, type MoonshineModel, type MoonshineOutput } from '../moonshine/model.js';
import { compileVocabulary, type Vocabulary } from '../moonshine/vocab.js';
import { writtenWords, type WrittenWord } from '../moonshine/words.js';
import { applyVocabulary, type VocabPassContext } from '../moonshine/vocab-pass.js';
import type { EngineRequest, EngineResult, MoonshineDesc, PocketSphinxDesc, WorkerEngine } from './engine.js';
import type { PocketSphinxEngine } from './pocketsphinx.js';

const FRAME = MOONSHINE_RATE / 100; // 10 ms
/** Tokens per second of audio the decoder may write (English speech runs at 3–5). */
export const MAX_TOKENS_PER_SEC = 8;
const MIN_SPEECH_SEC = 0.1;
const MAX_DECODE_SEC = 64;
const MIN_DECODE_SEC = 0.1;
const MAX_SPLIT_DEPTH = 2;
/** Below this much speech an empty answer is believed (a cough, a click). */
const EMPTY_SUSPECT_SEC = 0.3;

export interface MoonshineEngineDeps {
  aligner(desc: PocketSphinxDesc): PocketSphinxEngine;
  /** Benchmarks only: other settings of the vocabulary's verified pass, and what it found. */
  vocabPass?: Pick<VocabPassContext, 'tuning' | 'onCheck'>;
}

/** 10 ms frame levels in dBFS (DC removed). */
export function levelsDb(pcm: Int16Array): Float32Array {
  const n = Math.ceil(pcm.length / FRAME);
  const out = new Float32Array(n);
  for (let f = 0; f < n; f++) {
    const a = f * FRAME;
    const b = Math.min(pcm.length, a + FRAME);
    let mean = 0;
    for (let i = a; i < b; i++) mean += pcm[i]!;
    mean /= Math.max(1, b - a);
    let sum = 0;
    for (let i = a; i < b; i++) sum += (pcm[i]! - mean) ** 2;
    const rms = Math.sqrt(sum / Math.max(1, b - a)) / 32768;
    out[f] = rms > 0 ? 20 * Math.log10(rms) : -120;
  }
  return out;
}

/** Frames loud enough to be speech: above −50 dBFS and within 35 dB of the loud part. */
function loudFrames(levels: Float32Array): number[] {
  if (levels.length === 0) return [];
  const sorted = Float32Array.from(levels).sort();
  const threshold = Math.max(-50, sorted[Math.floor(sorted.length * 0.95)]! - 35);
  return Array.from(levels).filter((l) => l > threshold);
}

/** Seconds of speech-level frames. */
export function speechSeconds(levels: Float32Array): number {
  return loudFrames(levels).length / 100;
}

/**
 * How much the level of the loud frames varies (standard deviation, dB). Speech rises and falls with
 * its syllables (measured 6–12 dB on every real-speech set here); steady noise, hum and tones stay
 * within a dB or two. Below NON_SPEECH_DB the input is not speech and is not decoded.
 */
export function levelSpreadDb(levels: Float32Array): number {
  const loud = loudFrames(levels);
  if (loud.length < 2) return 0;
  const mean = loud.reduce((a, b) => a + b, 0) / loud.length;
  return Math.sqrt(loud.reduce((a, b) => a + (b - mean) ** 2, 0) / loud.length);
}
const NON_SPEECH_DB = 2.5;
/** A forced answer (after an immediate end-of-sequence) is kept only if the model was this sure of it. */
const FORCED_MIN_FIRST_PROB = 0.1;
const FORCED_MIN_MEAN_PROB = 0.4;

/** The quietest 100 ms in the middle half of [from, to) (frame indices), as a frame index. */
function quietestFrame(levels: Float32Array, from: number, to: number): number {
  const lo = from + Math.floor((to - from) / 4);
  const hi = to - Math.floor((to - from) / 4);
  let best = Math.floor((from + to) / 2);
  let bestSum = Infinity;
  for (let f = lo; f + 10 <= hi; f++) {
    let s = 0;
    for (let k = 0; k < 10; k++) s += levels[f + k]!;
    if (s < bestSum) {
      bestSum = s;
      best = f + 5;
    }
  }
  return best;
}

export async function loadMoonshineEngine(desc: MoonshineDesc, deps: MoonshineEngineDeps): Promise<WorkerEngine> {
  const opts = Object.fromEntries(desc.options);
  const model = await loadMoonshine(desc.dir, {
    intraOpThreads: opts.intraOpThreads ? Number(opts.intraOpThreads) : 1,
    memArena: opts.memArena === undefined ? undefined : opts.memArena === 'true',
  });
  const finish = (req: EngineRequest, levels: Float32Array, written: WrittenWord[], notes: string[], steps: number): EngineResult => {
    if (written.length === 0) return { words: [], frames: steps, notes };
    const words = align(req.aligner ? deps.aligner(req.aligner) : undefined, req.samples, written, levels, req.abort, notes);
    return { words, frames: steps, notes };
  };
  /** Why an utterance is not decoded at all, or undefined. */
  const gate = (levels: Float32Array): string | undefined =>
    speechSeconds(levels) < MIN_SPEECH_SEC ? 'no-speech' : levelSpreadDb(levels) < NON_SPEECH_DB ? 'non-speech' : undefined;
  // Compiled vocabularies, by their phrases (a company's list recurs on every call).
  const vocabularies = new Map<string, Vocabulary>();
  const vocabularyOf = (req: EngineRequest): Vocabulary | undefined => {
    if (!req.vocab?.length) return undefined;
    const key = req.vocab.join('\n');
    let v = vocabularies.get(key);
    if (!v) {
      if (vocabularies.size >= 64) vocabularies.delete(vocabularies.keys().next().value!);
      vocabularies.set(key, (v = compileVocabulary(req.vocab, model.tokenizer)));
    }
    return v;
  };
  const decodeBatch = async (reqs: EngineRequest[]): Promise<EngineResult[]> => {
    // The first decode of every utterance runs as one batch; the safeguards (forcing past an
    // immediate end, splitting a loop) then work on each utterance alone, as before.
    const levels = reqs.map((r) => levelsDb(r.samples));
    const gates = levels.map(gate);
    const todo = reqs.flatMap((r, i) => (gates[i] === undefined && levels[i]!.length / 100 <= MAX_DECODE_SEC ? [i] : []));
    const pcms = todo.map((i) => toFloat(reqs[i]!.samples, 0, reqs[i]!.samples.length));
    const firsts = await model.decodeBatch(
      pcms,
      todo.map((i) => {
        const vocabulary = vocabularyOf(reqs[i]!);
        return { maxTokens: maxTokensFor(levels[i]!.length / 100), abort: reqs[i]!.abort, vocabulary, forcePastEos: forceAtOnce(levels[i]!, vocabulary) };
      }),
    );
    const results: EngineResult[] = [];
    for (const [i, req] of reqs.entries()) {
      if (gates[i] !== undefined) {
        results.push({ words: [], frames: 0, notes: [gates[i]!] });
        continue;
      }
      const notes: string[] = [];
      const steps = { n: 0 };
      const k = todo.indexOf(i);
      const vocabulary = vocabularyOf(req);
      let written = await recognize(model, req, levels[i]!, 0, levels[i]!.length, 0, notes, steps, vocabulary, k >= 0 ? firsts[k] : undefined);
      if (vocabulary) {
        const aligner = req.aligner ? { engine: deps.aligner(req.aligner), dict: req.aligner.dict } : undefined;
        written = applyVocabulary(written, vocabulary, { aligner, samples: req.samples, abort: req.abort, ...deps.vocabPass });
      }
      results.push(finish(req, levels[i]!, written, notes, steps.n));
    }
    return results;
  };
  return { decode: async (req) => (await decodeBatch([req]))[0]!, decodeBatch };
}

const maxTokensFor = (sec: number) => Math.ceil(Math.max(sec, 1) * MAX_TOKENS_PER_SEC);
/**
 * Whether the first decode of these frames forces past an immediate end-of-sequence itself: when an
 * empty answer would not be believed (enough speech), forcing in the same decode gives the tokens a
 * second, forced decode would, without encoding the audio again. With a vocabulary the phrase beam's
 * branches start from the unforced first step, so that case keeps its second decode.
 */
const forceAtOnce = (levels: Float32Array, vocabulary: Vocabulary | undefined) => !vocabulary && speechSeconds(levels) >= EMPTY_SUSPECT_SEC;

/** Written words of frames [from, to) of the utterance, splitting it where the model misbehaves. */
async function recognize(
  model: MoonshineModel,
  req: EngineRequest,
  levels: Float32Array,
  from: number,
  to: number,
  depth: number,
  notes: string[],
  steps: { n: number },
  vocabulary: Vocabulary | undefined,
  /** The first decode of exactly these frames, when it was already run (in a batch). */
  first?: MoonshineOutput,
): Promise<WrittenWord[]> {
  const sec = (to - from) / 100;
  const speech = speechSeconds(levels.subarray(from, to));
  if (speech < MIN_SPEECH_SEC) return [];
  const split = async (why: string): Promise<WrittenWord[] | undefined> => {
    if (depth >= MAX_SPLIT_DEPTH || sec < 2) return undefined;
    notes.push(why);
    const mid = quietestFrame(levels, from, to);
    const a = await recognize(model, req, levels, from, mid, depth + 1, notes, steps, vocabulary);
    const b = await recognize(model, req, levels, mid, to, depth + 1, notes, steps, vocabulary);
    return [...a, ...b];
  };
  if (sec > MAX_DECODE_SEC) return (await split('too-long')) ?? [];

  const pcm = toFloat(req.samples, from * FRAME, Math.min(req.samples.length, to * FRAME));
  const maxTokens = maxTokensFor(sec);
  let out: MoonshineOutput =
    first ?? (await model.decode(pcm, { maxTokens, abort: req.abort, vocabulary, forcePastEos: forceAtOnce(levels.subarray(from, to), vocabulary) }));
  steps.n += out.tokens.length + 1;
  if (out.forced || (out.tokens.length === 0 && speech >= EMPTY_SUSPECT_SEC)) {
    notes.push('forced-past-eos');
    if (!out.forced) {
      out = await model.decode(pcm, { maxTokens, abort: req.abort, forcePastEos: true, vocabulary });
      steps.n += out.tokens.length + 1;
    }
    const words = writtenWords(out.tokens, model.tokenizer);
    const meanLogprob = out.tokens.reduce((a, t) => a + t.logprob, 0) / Math.max(1, out.tokens.length);
    const believable =
      words.length > 0 && out.ended && !out.repetition && Math.exp(out.tokens[0]!.logprob) >= FORCED_MIN_FIRST_PROB && Math.exp(meanLogprob) >= FORCED_MIN_MEAN_PROB;
    if (!believable) return (await split('resegmented-empty')) ?? [];
    return words;
  }
  if (out.repetition || !out.ended) {
    const parts = await split(out.repetition ? 'resegmented-loop' : 'resegmented-runaway');
    if (parts) return parts;
  }
  return writtenWords(out.tokens, model.tokenizer);
}

/** int16 → float32 in [-1, 1), padded with silence to the model's minimum length. */
function toFloat(samples: Int16Array, a: number, b: number): Float32Array {
  const n = Math.max(b - a, Math.ceil(MIN_DECODE_SEC * MOONSHINE_RATE));
  const out = new Float32Array(n);
  for (let i = a; i < b; i++) out[i - a] = samples[i]! / 32768;
  return out;
}
