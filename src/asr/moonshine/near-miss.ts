/**
 * The last step of the custom vocabulary: written words that nearly spell a listed phrase and are
 * not English words ("Lumore Cloud", "omnivoc") are rewritten as the phrase (vocab.ts nearMisses).
 * The dictionary is the forced aligner's (cmudict: src/asr/pronounce.ts readDictionary).
 */
import { nearMisses, type Vocabulary } from './vocab.js';
import { readingsOf, type WrittenWord } from './words.js';

const EDGE = /^([^\p{L}\p{N}]*)[\s\S]*?([^\p{L}\p{N}]*)$/u;

/** `written` with every near miss of a phrase replaced by the phrase's words (their confidence: the lowest replaced). */
export function rewriteNearMisses(written: readonly WrittenWord[], vocab: Vocabulary, dictionary: { has(word: string): boolean }): WrittenWord[] {
  const misses = nearMisses(
    written.map((w) => w.text),
    vocab,
    (w) => dictionary.has(w),
  );
  return replaceSpans(written, misses, vocab);
}

/** `written` with each span (in order, not overlapping) replaced by its phrase's words, punctuation around it kept. */
export function replaceSpans(written: readonly WrittenWord[], spans: ReadonlyArray<{ at: number; length: number; phrase: number }>, vocab: Pick<Vocabulary, 'phrases'>): WrittenWord[] {
  if (spans.length === 0) return written.slice();
  const out: WrittenWord[] = [];
  let i = 0;
  for (const m of spans) {
    out.push(...written.slice(i, m.at));
    const span = written.slice(m.at, m.at + m.length);
    const confidence = Math.min(...span.map((w) => w.confidence));
    const lead = EDGE.exec(span[0]!.display ?? '')![1]!;
    const trail = EDGE.exec(span[span.length - 1]!.display ?? '')![2]!;
    const words = vocab.phrases[m.phrase]!;
    words.forEach((word, j) => {
      const text = word.toLowerCase();
      const display = span[0]!.display === undefined ? undefined : `${j === 0 ? lead : ''}${word}${j === words.length - 1 ? trail : ''}`;
      out.push({ text, readings: readingsOf(text), confidence, ...(display !== undefined ? { display } : {}) });
    });
    i = m.at + m.length;
  }
  out.push(...written.slice(i));
  return out;
}
