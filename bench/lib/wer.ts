/**
 * Word error rate: both sides normalised the same way (lower case, punctuation removed, hyphens
 * split, digits spelled as words), then word-level Levenshtein distance / reference word count.
 */
const DIGITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
/** Spellings that are the same word (either side may use either). */
const SAME: Record<string, string> = { mr: 'mister', mrs: 'missus', ok: 'okay', metres: 'meters', metre: 'meter' };

export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\[[^\]]*\]|<[^>]*>|\([^)]*\)/g, ' ') // [noise], <s>, (uttid)
    .replace(/[’`]/g, "'")
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .flatMap((w) => (/^\d+$/.test(w) && w.length === 1 ? [DIGITS[Number(w)]!] : [w]))
    .map((w) => SAME[w] ?? w)
    .filter((w) => w.length > 0);
}

/**
 * Which hypothesis words are right: a minimum-edit alignment of ref and hyp, then true for each hyp
 * word aligned to an equal ref word (false for substitutions and insertions).
 */
export function correctWords(ref: readonly string[], hyp: readonly string[]): boolean[] {
  const n = ref.length;
  const m = hyp.length;
  const d = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
  const ok = new Array<boolean>(m).fill(false);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    if (d[i]![j] === d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      ok[j - 1] = ref[i - 1] === hyp[j - 1];
      i--;
      j--;
    } else if (d[i]![j] === d[i]![j - 1]! + 1) j--;
    else i--;
  }
  return ok;
}

/** Edit distance between two word sequences (substitutions, insertions, deletions all cost 1). */
export function wordDistance(ref: readonly string[], hyp: readonly string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[hyp.length]!;
}

export interface WerTally {
  errors: number;
  words: number;
}

export function tally(pairs: Iterable<{ ref: string; hyp: string }>): WerTally {
  let errors = 0;
  let words = 0;
  for (const { ref, hyp } of pairs) {
    const r = normalizeWords(ref);
    errors += wordDistance(r, normalizeWords(hyp));
    words += r.length;
  }
  return { errors, words };
}

export function wer(t: WerTally): number {
  return t.words === 0 ? 0 : t.errors / t.words;
}
