/** The numbers stage (numtrans, default on): every utterance's number words as numerals (docs/numbers.md). */
import type { TranscriptDocument } from '../types.js';
import { normalizeNumbers } from './normalize.js';

export function numbersDocument(doc: TranscriptDocument, o: { numtrans: boolean }): TranscriptDocument {
  if (!o.numtrans) return doc;
  return { ...doc, utterances: doc.utterances.map((u) => ({ ...u, events: normalizeNumbers(u.events) })) };
}
