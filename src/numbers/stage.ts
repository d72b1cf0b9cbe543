/** The numbers stage (numtrans, default on): every utterance's number words as numerals (docs/numbers.md). */
import type { FileWork, Stage, TranscriptDocument, Utterance } from '../types.js';
import { normalizeNumbers } from './normalize.js';

export function numbersDocument(doc: TranscriptDocument, o: { numtrans: boolean }): TranscriptDocument {
  if (!o.numtrans) return doc;
  return { ...doc, utterances: doc.utterances.map((u) => ({ ...u, events: normalizeNumbers(u.events) })) };
}

/** One utterance's words with numbers as numerals (batch: every utterance; live: each as it is decoded). */
export function numbersUtterance(u: Utterance): Utterance {
  return { ...u, events: normalizeNumbers(u.events) };
}

/** Post-ASR stage: the work's words with numbers as numerals when `options.numtrans`. */
export const numbersStage: Stage<FileWork, FileWork> = async (work) => {
  if (!work.options.numtrans) return work;
  return { ...work, result: { ...work.result, utterances: work.result.utterances.map(numbersUtterance) } };
};
