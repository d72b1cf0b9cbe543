/** The numbers stage (numtrans, default on): every utterance's number words as numerals (docs/numbers.md). */
import type { FileWork, Stage, TranscriptDocument, Utterance, UtterancePart } from '../types.js';
import { normalizeNumbers } from './normalize.js';

export function numbersDocument(doc: TranscriptDocument, o: { numtrans: boolean }): TranscriptDocument {
  if (!o.numtrans) return doc;
  return { ...doc, utterances: doc.utterances.map((u) => ({ ...u, events: normalizeNumbers(u.events) })) };
}

/** One utterance's words with numbers as numerals (batch: every utterance; live: each as it is decoded). */
export function numbersUtterance(u: Utterance): Utterance {
  return { ...u, events: normalizeNumbers(u.events) };
}

/** The stage table's numbers part (src/pipeline/stage-table.ts): one utterance as it is decoded. */
export const numbersPart: UtterancePart = (u, _i, call) => (call.options.numtrans ? numbersUtterance(u) : u);

/** The work's words with numbers as numerals when `options.numtrans` (the numbers part over a whole file). */
export const numbersStage: Stage<FileWork, FileWork> = async (work) => {
  if (!work.options.numtrans) return work;
  return { ...work, result: { ...work.result, utterances: work.result.utterances.map(numbersUtterance) } };
};
