/**
 * Partial text while someone speaks (`partials=true`): the growing utterance is decoded again every
 * so often, and only the words two consecutive decodes agree on are shown (whisper_streaming's
 * "LocalAgreement"): a partial never takes back a word it showed. Under redaction a partial carries
 * no digit: every word that is or may become a number is masked (`#` per digit, `###` otherwise).
 */
import { HOMOPHONES, isNumberWord, MONTHS, REPEATS, wordKey } from '../numbers/lexicon.js';
import type { RequestOptions } from '../types.js';

export class LocalAgreement {
  #previous: string[] = [];
  #shown = 0;

  /** A new decode of the open utterance: the agreed words when they grew past what was shown, else undefined. */
  add(words: readonly string[]): string[] | undefined {
    const prev = this.#previous;
    let n = 0;
    while (n < prev.length && n < words.length && wordKey(prev[n]!) === wordKey(words[n]!)) n++;
    this.#previous = [...words];
    if (n <= this.#shown) return undefined;
    this.#shown = n;
    return words.slice(0, n);
  }

  /** The utterance ended: the next decode starts a new one. */
  reset(): void {
    this.#previous = [];
    this.#shown = 0;
  }
}

const MONTH_SET = new Set<string>(MONTHS);

/** Whether a word is, or may become, part of a number. */
function numeric(word: string): boolean {
  const k = wordKey(word);
  return /\d/.test(word) || isNumberWord(k) || k in HOMOPHONES || k in REPEATS || MONTH_SET.has(k) || k === 'oh';
}

/**
 * The partial's text; under scrubtext with every number-like word masked, and each word of `masked`
 * (the personal-data kinds' words, src/redact/engine.ts `maskPartial`) shown as it says.
 */
export function partialText(words: readonly string[], options: Pick<RequestOptions, 'scrubtext'>, masked: ReadonlyMap<number, string> = new Map()): string {
  if (!options.scrubtext) return words.join(' ');
  return words.map((w, i) => masked.get(i) ?? (numeric(w) ? (/\d/.test(w) ? w.replace(/\d/g, '#').replace(/[^#]/g, '') || '###' : '###') : w)).join(' ');
}
