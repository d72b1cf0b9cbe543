/**
 * Scores of readable text against a written reference (bench/readability.ts): where sentences start
 * (a capital at the start of an utterance or after a sentence's end) and where full stops and question
 * marks go, as F1 over the words of both sides aligned by edit distance on their normalised forms
 * (bench/lib/wer.ts). An ellipsis ("successfully...") ends nothing; "!" counts as a full stop.
 */
import { ARCHAIC_SPELLINGS } from '../../src/readable/tidy.js';
import { normalizeWords } from './wer.js';

export type Mark = '.' | '?' | ',' | '';

export interface ScoredWord {
  word: string;
  /** A sentence starts here (a capital at the start of a line or after a sentence's end). */
  start: boolean;
  /** The mark that ends the word. */
  mark: Mark;
  /** It starts with a capital (sentence starts, "I", names, acronyms). */
  capital: boolean;
}

/** A word's closing mark: ".", "?" ("!" is a full stop), "," (";" and ":" too), or none (an ellipsis). */
function markOf(token: string): Mark {
  const t = token.replace(/["'”’)\]]+$/, '');
  if (/\?$/.test(t)) return '?';
  if (/(\.\.|…)$/.test(t)) return '';
  if (/[,;:]$/.test(t)) return ',';
  return /[.!]$/.test(t) ? '.' : '';
}

/** The words of some lines of text (each line begins a sentence when it starts with a capital). */
export function scoredWords(lines: readonly string[]): ScoredWord[] {
  const out: ScoredWord[] = [];
  for (const line of lines) {
    let lineStart = true;
    for (const token of line.split(/\s+/).filter(Boolean)) {
      const words = normalizeWords(token);
      if (words.length === 0) continue;
      const prev = out[out.length - 1];
      const capital = /^["'“‘(]*\p{Lu}/u.test(token);
      const start = capital && (lineStart || prev === undefined || prev.mark === '.' || prev.mark === '?');
      words.forEach((word, i) => out.push({ word, start: i === 0 && start, mark: i === words.length - 1 ? markOf(token) : '', capital: i === 0 && capital }));
      lineStart = false;
    }
  }
  return out;
}

/** Pairs [ref index | -1, hyp index | -1] of a minimum-edit alignment of the two word sequences. */
export function alignWords(ref: readonly ScoredWord[], hyp: readonly ScoredWord[]): Array<[number, number]> {
  const n = ref.length;
  const m = hyp.length;
  const d = Array.from({ length: n + 1 }, (_, i) => Int32Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1]!.word === hyp[j - 1]!.word ? 0 : 1));
  const pairs: Array<[number, number]> = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (ref[i - 1]!.word === hyp[j - 1]!.word ? 0 : 1)) pairs.push([--i, --j]);
    else if (j > 0 && (i === 0 || d[i]![j] === d[i]![j - 1]! + 1)) pairs.push([-1, --j]);
    else pairs.push([--i, -1]);
  }
  return pairs.reverse();
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export const f1 = (c: Counts) => (c.tp === 0 ? 0 : (2 * c.tp) / (2 * c.tp + c.fp + c.fn));

export type Scores = Record<'start' | 'capital' | 'stop' | 'question' | 'comma' | 'marks', Counts>;

/**
 * Adds one reference/hypothesis pair's counts: sentence starts, capitals (any word), full stops,
 * question marks, commas, and the placement of full stops and question marks together.
 */
export function score(ref: readonly ScoredWord[], hyp: readonly ScoredWord[], into: Scores): void {
  for (const [i, j] of alignWords(ref, hyp)) {
    const r = i >= 0 ? ref[i]! : undefined;
    const h = j >= 0 ? hyp[j]! : undefined;
    count(into.start, r?.start ?? false, h?.start ?? false);
    count(into.capital, r?.capital ?? false, h?.capital ?? false);
    count(into.stop, r?.mark === '.', h?.mark === '.');
    count(into.question, r?.mark === '?', h?.mark === '?');
    count(into.comma, r?.mark === ',', h?.mark === ',');
    // Placement of either sentence mark: right only when the same mark is at the same word.
    const sentenceMark = (w: ScoredWord | undefined) => (w?.mark === '.' || w?.mark === '?' ? w.mark : '');
    const rm = sentenceMark(r);
    const hm = sentenceMark(h);
    if (rm !== '' && rm === hm) into.marks.tp++;
    else {
      if (hm !== '') into.marks.fp++;
      if (rm !== '') into.marks.fn++;
    }
  }
}

function count(c: Counts, truth: boolean, said: boolean): void {
  if (truth && said) c.tp++;
  else if (said) c.fp++;
  else if (truth) c.fn++;
}

/**
 * What a reader stumbles on, counted without a reference (issue 33 item 11): sentences (each line's
 * first word, unless the line before left its sentence open with a comma, colon or dash, and every
 * word after ". ? !") and of those the ones that start in lower case ("Diverd.
 * we're"), a lower-case "i" as a word ("i", "i'm"), double commas, lines with an unbalanced double
 * quote, and the archaic hyphenated forms of the model's written text (src/readable/tidy.ts ARCHAIC_SPELLINGS).
 */
export interface Defects {
  sentences: number;
  lowerStarts: number;
  strayI: number;
  doubleCommas: number;
  unbalancedQuotes: number;
  archaic: number;
}

export const noDefects = (): Defects => ({ sentences: 0, lowerStarts: 0, strayI: 0, doubleCommas: 0, unbalancedQuotes: 0, archaic: 0 });

export function countDefects(lines: readonly string[], into: Defects): void {
  let open = false; // the previous line left its sentence open (",", ";", ":", a dash): this one goes on with it
  for (const line of lines) {
    const tokens = line.split(/\s+/).filter(Boolean);
    tokens.forEach((token, i) => {
      const starts = i === 0 ? !open : /[.?!]["'”’)\]]*$/.test(tokens[i - 1]!);
      const letter = /\p{L}/u.exec(token)?.[0];
      if (starts && letter !== undefined) {
        into.sentences++;
        if (letter !== letter.toUpperCase()) into.lowerStarts++;
      }
      if (/^["'“‘(]*i(['’][a-z]+)?["'”’),.?!;:]*$/.test(token)) into.strayI++;
      if (Object.keys(ARCHAIC_SPELLINGS).some((old) => token.replace(/^["'“‘(]+/, '').toLowerCase().startsWith(old))) into.archaic++;
    });
    into.doubleCommas += (line.match(/,\s*,/g) ?? []).length;
    const straight = (line.match(/"/g) ?? []).length;
    const opening = (line.match(/“/g) ?? []).length;
    const close = (line.match(/”/g) ?? []).length;
    if (straight % 2 === 1 || opening !== close) into.unbalancedQuotes++;
    open = /[,;:\-–—]["'”’)\]]*$/.test(line);
  }
}
