/**
 * The engine interface at the worker level: one module per engine (pocketsphinx.ts, moonshine.ts),
 * loaded once per worker thread, decoding one utterance of 16-bit PCM at the model's rate into words
 * with times (ms from the utterance's first sample) and confidences, stopping when the abort flag rises.
 */
import type { NativeModelDesc, NativeWord } from '../binding.js';

/** What crosses to a worker to name a PocketSphinx model (the native addon's descriptor). */
export type PocketSphinxDesc = NativeModelDesc & { engine: 'pocketsphinx' };

export interface MoonshineDesc {
  name: string;
  engine: 'moonshine';
  sampleRate: number;
  /** Directory with encoder_model.ort, decoder_model_merged.ort, tokenizer.bin. */
  dir: string;
  options: Array<[string, string]>;
}

export type EngineDesc = PocketSphinxDesc | MoonshineDesc;

export interface EngineRequest {
  samples: Int16Array;
  /** Int32 over a SharedArrayBuffer; non-zero means stop (CANCELLED). */
  abort: Int32Array;
  /** PocketSphinx reference mode: the whole utterance in one call. */
  wholeUtterance?: boolean;
  /** For engines that write text only: the PocketSphinx model that aligns it (no language model). */
  aligner?: PocketSphinxDesc;
  /** Custom vocabulary (phrases) the decoder is biased towards; engines without biasing ignore it. */
  vocab?: string[];
}

export interface EngineResult {
  words: NativeWord[];
  /** Acoustic frames (PocketSphinx) or decoder steps (Moonshine). */
  frames: number;
  /** What the engine's safeguards did, for logs and benchmarks ("forced-past-eos", "resegmented", ...). */
  notes: string[];
}

export interface WorkerEngine {
  decode(req: EngineRequest): EngineResult | Promise<EngineResult>;
  /** Several utterances at once (Moonshine: their decoder steps batched); results in the same order. */
  decodeBatch?(reqs: EngineRequest[]): Promise<EngineResult[]>;
}

/** A stable cache key for a descriptor (one engine per key per thread). */
export const descKey = (d: EngineDesc): string => JSON.stringify(d);
