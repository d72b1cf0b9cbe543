/**
 * The last step of the custom vocabulary: written words that nearly spell a listed phrase and are
 * not English words ("Lumore Cloud", "omnivoc") are rewritten as the phrase (vocab.ts nearMisses).
 * The dictionary is the forced aligner's (cmudict), read once per thread.
 */
import { readFileSync } from 'node:fs';
import { nearMisses, type Vocabulary } from './vocab.js';
import { readingsOf, type WrittenWord } from './words.js';

const dictionaries = new Map<string, ReadonlySet<string>>();

/** The words of a PocketSphinx dictionary ("word(2) …" variants folded), lower case. */
export function dictionaryWords(file: string): ReadonlySet<string> {
  let words = dictionaries.get(file);
  if (!words) {
    words = new Set(
      readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.slice(0, l.indexOf(' ')).replace(/\(\d+\)$/, '').toLowerCase())
        .filter(Boolean),
    );
    dictionaries.set(file, words);
  }
  return words;
}

const EDGE = /^([^\p{L}\p{N}]*)[\s\S]*?([^\p{L}\p{N}]*)$/u;

/** `written` with every near miss of a phrase replaced by the phrase's words (their confidence: the lowest replaced). */
export function rewriteNearMisses(written: readonly WrittenWord[], vocab: Vocabulary, dictionary: ReadonlySet<string>): WrittenWord[] {
  const misses = nearMisses(
    written.map((w) => w.text),
    vocab,
    (w) => dictionary.has(w),
  );
  if (misses.length === 0) return written.slice();
  const out: WrittenWord[] = [];
  let i = 0;
  for (const m of misses) {
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
