/**
 * The `terms` query language → AST. Grammar (docs/search.md, "The `terms` language"):
 *
 *   query   := or
 *   or      := and ( '|' and )*
 *   and     := unary ( '&'? unary )*          words side by side are ANDed
 *   unary   := '-' unary | primary            '-' right before a word, phrase or group: NOT
 *   primary := '(' or ')' | '"' word+ '"' ( '~' N )? | word
 *   word    := letters/digits with optional '*' (any run, also empty) and '?' (exactly one) wildcards
 *
 * A word typed without quotes matches its word forms (`weasel` finds "weasels", src/search/word-forms.ts);
 * what is in quotes — a word, a phrase, a proximity group — matches exactly as typed (case and accents
 * aside). A wildcard word matches the written words its pattern fits.
 *
 * `"w1 w2 …"~N` is proximity: all words in one channel, at most N other words between the first and
 * the last of them, in any order (N 0–100). Words are case-insensitive and normalized with
 * `normalizeWord`. Every syntax problem is a BAD_QUERY naming the position.
 *
 * Numbers: transcripts spell numbers as spoken words (docs/moonshine.md, "Numbers"), so a word or phrase
 * with digits also matches its spoken forms: `555-1234` → "five five five one two three four",
 * `$25` → "twenty five dollars" | "twenty five" …, besides the numeral itself (src/text/numbers.ts).
 */
import { voxdexError } from '../errors.js';
import { numeralWords } from '../numbers/normalize.js';
import { spokenForms } from '../text/numbers.js';
import { REDACT_KINDS, type RedactKind } from '../types.js';

export type QueryNode =
  /** `exact`: typed in quotes, so compared as it is; otherwise its word forms match too (word-forms.ts). */
  | { type: 'word'; word: string; exact?: true }
  | { type: 'phrase'; words: string[] }
  | { type: 'near'; words: string[]; distance: number }
  | { type: 'and'; children: QueryNode[] }
  | { type: 'or'; children: QueryNode[] }
  | { type: 'not'; child: QueryNode };

export const MAX_TERMS_LENGTH = 2000;
const MAX_QUERY_LEAVES = 64;
const MAX_NEAR_DISTANCE = 100;

const ASCII_WORD = /^[a-z0-9]+$/;

/**
 * The indexed word of a redacted event of this kind (match.ts `channelWords`): what `[NAME]`, `[CARD]`…
 * in `terms` look for. Letters only, so that both backends' tokenizers keep it whole; no spoken word
 * has this form.
 */
export function redactedToken(kind: RedactKind): string {
  return `voxdexredacted${kind}`;
}

/** `[NAME]` (any case) → the redacted token of that kind; undefined for other words; BAD_QUERY for an unknown kind. */
function redactedQueryWord(raw: string, pos: number): string | undefined {
  const m = /^\[([A-Za-z]+)\]$/.exec(raw);
  if (!m) return undefined;
  const kind = m[1]!.toLowerCase();
  if (!(REDACT_KINDS as readonly string[]).includes(kind)) {
    throw bad(`${raw} at position ${pos} names no redaction kind; use one of ${REDACT_KINDS.map((k) => `[${k.toUpperCase()}]`).join(', ')}`);
  }
  return redactedToken(kind as RedactKind);
}

/** Lowercase, diacritics removed, everything but letters and digits removed ("Don't" → "dont"). */
export function normalizeWord(word: string): string {
  if (ASCII_WORD.test(word)) return word;
  return word.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** True for a word containing `*` or `?`. */
export function isWildcard(word: string): boolean {
  return /[*?]/.test(word);
}

/** A query word with wildcards kept: "Hel*O?" → "hel*o?". */
function normalizeQueryWord(raw: string, pos: number): string {
  const word = raw
    .split(/([*?])/)
    .map((part) => (part === '*' || part === '?' ? part : normalizeWord(part)))
    .join('')
    .replace(/\*+/g, '*');
  if (!/[\p{L}\p{N}]/u.test(word)) {
    throw bad(`the word ${JSON.stringify(raw)} at position ${pos} has no letters or digits`);
  }
  return word;
}

function bad(message: string) {
  return voxdexError('BAD_QUERY', `Invalid terms: ${message}. See docs/search.md for the syntax.`);
}

type Token =
  | { kind: 'word'; text: string; raw: string; pos: number }
  | { kind: 'phrase'; words: string[]; raw: string[]; distance?: number; pos: number }
  | { kind: '(' | ')' | '|' | '&' | '-'; pos: number };

const SPECIAL = new Set(['"', '(', ')', '|', '&']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === '|' || c === '&') {
      tokens.push({ kind: c, pos: i });
      i++;
    } else if (c === '-') {
      tokens.push({ kind: '-', pos: i });
      i++;
    } else if (c === '"') {
      const close = input.indexOf('"', i + 1);
      if (close < 0) throw bad(`the quote at position ${i} is not closed`);
      const raw = input.slice(i + 1, close).split(/\s+/).filter((w) => w !== '');
      const words = raw.map((w) => redactedQueryWord(w, i) ?? normalizeQueryWord(w, i)).filter((w) => w !== '');
      if (words.length === 0) throw bad(`the quoted phrase at position ${i} is empty`);
      const pos = i;
      i = close + 1;
      let distance: number | undefined;
      if (input[i] === '~') {
        const m = /^~(\d{1,3})(?![\w*?])/.exec(input.slice(i));
        const n = m ? Number(m[1]) : NaN;
        if (!(n >= 0 && n <= MAX_NEAR_DISTANCE)) {
          throw bad(`expected a whole number of words from 0 to ${MAX_NEAR_DISTANCE} after "~" at position ${i}`);
        }
        distance = n;
        i += m![0].length;
      }
      tokens.push({ kind: 'phrase', words, raw, distance, pos });
    } else {
      let j = i;
      while (j < input.length && !/\s/.test(input[j]!) && !SPECIAL.has(input[j]!)) j++;
      const text = input.slice(i, j);
      if (text.includes('~')) throw bad(`"~N" proximity applies to a quoted phrase ("word1 word2"~5), found ${JSON.stringify(text)} at position ${i}`);
      tokens.push({ kind: 'word', text: redactedQueryWord(text, i) ?? normalizeQueryWord(text, i), raw: text, pos: i });
      i = j;
    }
  }
  return tokens;
}

/** Parses `terms`; returns undefined for blank terms (match everything). Throws BAD_QUERY. */
export function parseTerms(input: string): QueryNode | undefined {
  if (input.length > MAX_TERMS_LENGTH) throw bad(`longer than ${MAX_TERMS_LENGTH} characters`);
  const tokens = tokenize(input);
  if (tokens.length === 0) return undefined;
  let at = 0;
  let leaves = 0;
  const peek = () => tokens[at];
  const where = () => (at < tokens.length ? `at position ${tokens[at]!.pos}` : 'at the end');

  function or(): QueryNode {
    const children = [and()];
    while (peek()?.kind === '|') {
      at++;
      children.push(and());
    }
    return children.length === 1 ? children[0]! : { type: 'or', children };
  }
  function and(): QueryNode {
    const children = [unary()];
    for (;;) {
      const t = peek();
      if (t === undefined || t.kind === '|' || t.kind === ')') break;
      if (t.kind === '&') at++;
      children.push(unary());
    }
    return children.length === 1 ? children[0]! : { type: 'and', children };
  }
  function unary(): QueryNode {
    if (peek()?.kind === '-') {
      at++;
      return { type: 'not', child: unary() };
    }
    return primary();
  }
  function primary(): QueryNode {
    const t = peek();
    if (t === undefined) throw bad(`expected a word, phrase or "(" ${where()}`);
    at++;
    if (t.kind === 'word') return withSpokenForms(leaf({ type: 'word', word: t.text }), [t.raw]);
    if (t.kind === 'phrase') {
      if (t.words.length === 1) return withSpokenForms(leaf(exactWord(t.words[0]!)), t.raw);
      if (t.distance !== undefined) return withSpokenForms(leaf({ type: 'near', words: t.words, distance: t.distance }), t.raw, t.distance);
      return withSpokenForms(leaf({ type: 'phrase', words: t.words }), t.raw);
    }
    if (t.kind === '(') {
      if (peek()?.kind === ')') throw bad(`empty parentheses at position ${t.pos}`);
      const inner = or();
      if (peek()?.kind !== ')') throw bad(`the "(" at position ${t.pos} is not closed`);
      at++;
      return inner;
    }
    throw bad(`unexpected "${t.kind}" at position ${t.pos}; expected a word, phrase or "("`);
  }
  function exactWord(word: string): QueryNode {
    return isWildcard(word) ? { type: 'word', word } : { type: 'word', word, exact: true };
  }
  function leaf(node: QueryNode): QueryNode {
    if (++leaves > MAX_QUERY_LEAVES) throw bad(`more than ${MAX_QUERY_LEAVES} words and phrases`);
    return node;
  }
  /** The node OR the spoken forms of its numbers (a near group widens by the words a number adds). */
  function withSpokenForms(node: QueryNode, raw: string[], distance?: number): QueryNode {
    if (raw.some(isWildcard)) return node;
    const words = raw.map((w) => w.replace(/^[^\p{L}\p{N}$£€]+|[^\p{L}\p{N}%]+$/gu, '')).filter((w) => w !== '');
    const forms = spokenForms(words);
    // Typed number words also find numerals ("forty two fifty" → 4250, as "$42.50" is indexed), and
    // digit groups typed apart find the digit string a transcript holds ("555 0142" → 5550142).
    const numerals = numeralWords(words.map((w) => w.toLowerCase()));
    if (numerals) forms.push(numerals);
    if (words.length > 1 && words.every((w) => /^[\d().\-/]+$/.test(w))) forms.push([words.join('')]);
    const normalized = forms.map((f) => f.map(normalizeWord).filter((w) => w !== '')).filter((f) => f.length > 0);
    const seen = new Set([JSON.stringify(node.type === 'word' ? [node.word] : 'words' in node ? node.words : [])]);
    const distinct = normalized.filter((f) => !seen.has(JSON.stringify(f)) && (seen.add(JSON.stringify(f)), true));
    if (distinct.length === 0) return node;
    return withForms(node, raw, distinct, distance);
  }
  function withForms(node: QueryNode, raw: string[], forms: string[][], distance?: number): QueryNode {
    const alternatives = forms.map((words): QueryNode => {
      if (words.length === 1) return leaf({ type: 'word', word: words[0]! });
      // The spread counts every word between the first and the last, the number's extra words too.
      if (distance !== undefined) return leaf({ type: 'near', words, distance: Math.min(MAX_NEAR_DISTANCE, distance + words.length - raw.length) });
      return leaf({ type: 'phrase', words });
    });
    return { type: 'or', children: [node, ...alternatives] };
  }

  const node = or();
  if (at < tokens.length) throw bad(`unexpected "${(tokens[at] as { kind: string }).kind}" at position ${tokens[at]!.pos}`);
  return node;
}

/** Canonical text of an AST (for logs and tests): the same syntax, fully parenthesized. */
export function formatQuery(node: QueryNode): string {
  switch (node.type) {
    case 'word':
      return node.exact ? `"${node.word}"` : node.word;
    case 'phrase':
      return `"${node.words.join(' ')}"`;
    case 'near':
      return `"${node.words.join(' ')}"~${node.distance}`;
    case 'not':
      return `-${formatQuery(node.child)}`;
    case 'and':
      return `(${node.children.map(formatQuery).join(' & ')})`;
    case 'or':
      return `(${node.children.map(formatQuery).join(' | ')})`;
  }
}
