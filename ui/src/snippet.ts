/**
 * Marks the hit words in a snippet. The query is parsed by the service's own parser
 * (src/search/query.ts, bundled), and words are compared the way the index compares them
 * (normalizeWord: case and accents ignored, wildcards * and ?; a word typed without quotes by its
 * stem, src/search/word-forms.ts), so the marks agree with the hits.
 */
import { matchesForms } from '../../src/search/match.js';
import { normalizeWord, parseTerms, type QueryNode } from '../../src/search/query.js';
import { wordStem } from '../../src/search/word-forms.js';
import { h } from './dom.js';

export type WordTest = (word: string) => boolean;

/** A test for the words the query looks for (not those under "-"); never matches for blank or invalid terms. */
export function hitWordTest(terms: string): WordTest {
  let node: QueryNode | undefined;
  try {
    node = parseTerms(terms);
  } catch {
    return () => false;
  }
  const exact = new Set<string>();
  const stems = new Set<string>();
  const patterns: RegExp[] = [];
  const visit = (n: QueryNode) => {
    switch (n.type) {
      case 'not':
        return;
      case 'and':
      case 'or':
        n.children.forEach(visit);
        return;
      case 'word':
        if (matchesForms(n)) stems.add(wordStem(n.word));
        else add(n.word);
        return;
      case 'phrase':
      case 'near':
        n.words.forEach(add);
    }
  };
  const add = (w: string) => {
    if (!/[*?]/.test(w)) exact.add(w);
    else patterns.push(new RegExp(`^${w.replace(/\*/g, '[\\p{L}\\p{N}]*').replace(/\?/g, '[\\p{L}\\p{N}]')}$`, 'u'));
  };
  if (node) visit(node);
  return (word) => {
    const n = normalizeWord(word);
    return n !== '' && (exact.has(n) || stems.has(wordStem(n)) || patterns.some((p) => p.test(n)));
  };
}

/** The snippet as nodes, each hit word in a <mark>. */
export function markSnippet(text: string, isHit: WordTest): (Node | string)[] {
  const out: (Node | string)[] = [];
  for (const part of text.split(/(\s+)/)) {
    if (part === '') continue;
    out.push(/\s/.test(part) || !isHit(part) ? part : h('mark', {}, part));
  }
  return out;
}

/** "Invalid terms: … at position 12 …" → 12 ("at the end" → the length). */
export function errorPosition(message: string, terms: string): number | undefined {
  const m = /at position (\d+)/.exec(message);
  if (m) return Math.min(Number(m[1]), terms.length);
  if (/at the end/.test(message)) return terms.length;
  return undefined;
}
