/** PocketSphinx through the native addon: decode with a language model, or align known words. */
import { loadBinding, type NativeRecognizer, type NativeTranscript } from '../binding.js';
import type { EngineRequest, EngineResult, PocketSphinxDesc, WorkerEngine } from './engine.js';

export interface PocketSphinxEngine extends WorkerEngine {
  readonly recognizer: NativeRecognizer;
  align(samples: Int16Array, slots: string[][][], abort: Int32Array, penalties?: number[][]): NativeTranscript;
  addWord(word: string, phones: string): boolean;
}

export function loadPocketSphinx(desc: PocketSphinxDesc): PocketSphinxEngine {
  const { Recognizer } = loadBinding();
  const recognizer = new Recognizer(desc);
  return {
    recognizer,
    decode(req: EngineRequest): EngineResult {
      const out = recognizer.decode(req.samples, req.abort, req.wholeUtterance === true);
      return { words: out.words, frames: out.frames, notes: [] };
    },
    align(samples, slots, abort, penalties) {
      return recognizer.align(samples, slots, abort, penalties);
    },
    addWord(word, phones) {
      return recognizer.addWord(word, phones);
    },
  };
}
