/**
 * Terms AST → SQL over the FTS5 table of the embedded index. Each transcript is one FTS row with one
 * column per channel for its words (c0…c15) and one per channel for their stems (s0…s15,
 * word-forms.ts), so phrases and NEAR stay within a channel while AND/OR/NOT combine across channels.
 * Every leaf carries its column filter: a word typed without quotes looks in the stem columns, a
 * quoted word, a phrase, a proximity group or a wildcard in the word columns; a channel restriction
 * narrows the filter to that channel's column. Whatever FTS5 can express is
 * sent as ONE MATCH (so the full-text lookup runs first); a NOT that FTS5 cannot express (a pure
 * exclusion, or one inside OR) becomes `NOT IN (MATCH …)` in SQL. `?` and inner `*` wildcards are
 * expanded through the fts5vocab table; a trailing `*` is an FTS5 prefix query.
 */
import { voxdexError } from '../errors.js';
import { isWildcard, type QueryNode } from './query.js';
import { matchesForms } from './match.js';
import { wordStem } from './word-forms.js';

/** Channels 0…MAX_CHANNELS-1 get their own FTS column; words on higher channels are not term-searchable. */
export const MAX_CHANNELS = 16;
/** A wildcard (or a phrase of wildcards) may stand for at most this many words / word sequences. */
const MAX_WILDCARD_EXPANSIONS = 256;

/** The words of channel i are column c<i>, their stems column s<i>. */
const WORD_COLUMNS = Array.from({ length: MAX_CHANNELS }, (_, i) => `c${i}`);
const STEM_COLUMNS = Array.from({ length: MAX_CHANNELS }, (_, i) => `s${i}`);
export const FTS_COLUMNS = [...WORD_COLUMNS, ...STEM_COLUMNS];

/** The FTS5 column filters of the leaves: words and stems, all channels or one (null: no column, matches nothing). */
interface Columns {
  words: string | null;
  stems: string | null;
}

function columnsFor(channel: number | undefined): Columns {
  if (channel === undefined) return { words: `{${WORD_COLUMNS.join(' ')}}`, stems: `{${STEM_COLUMNS.join(' ')}}` };
  if (channel >= MAX_CHANNELS) return { words: null, stems: null };
  return { words: `{c${channel}}`, stems: `{s${channel}}` };
}

/** Looks up the indexed words matching a GLOB pattern (sorted, at most `limit`). */
type VocabLookup = (glob: string, limit: number) => string[];

type Expr =
  | { kind: 'true' }
  | { kind: 'false' }
  | { kind: 'fts'; expr: string }
  | { kind: 'and' | 'or'; children: Expr[] }
  | { kind: 'not'; child: Expr };

const TRUE: Expr = { kind: 'true' };
const FALSE: Expr = { kind: 'false' };

/** Whether a word is looked up in the vocabulary (a wildcard other than a plain prefix, which FTS5 does itself). */
function needsLookup(word: string): boolean {
  return isWildcard(word) && !/^[^*?]+\*$/.test(word);
}

/** The lookups `termsCondition` will make for `node` (word, limit), so a caller can make them first, paced. */
export function vocabLookups(node: QueryNode): Array<[string, number]> {
  switch (node.type) {
    case 'and':
    case 'or':
      return node.children.flatMap(vocabLookups);
    case 'not':
      return vocabLookups(node.child);
    case 'word':
      return !matchesForms(node) && needsLookup(node.word) ? [[node.word, MAX_WILDCARD_EXPANSIONS + 1]] : [];
    default:
      return node.words.filter(needsLookup).map((w): [string, number] => [w, MAX_WILDCARD_EXPANSIONS + 1]);
  }
}

/** Alternatives for one word in FTS5 syntax ([] when the wildcard matches no indexed word). */
function alternatives(word: string, vocab: VocabLookup): string[] {
  if (!isWildcard(word)) return [`"${word}"`];
  if (!needsLookup(word)) return [`"${word.slice(0, -1)}" *`];
  const terms = vocab(word, MAX_WILDCARD_EXPANSIONS + 1);
  if (terms.length > MAX_WILDCARD_EXPANSIONS) throw tooBroad(word);
  return terms.map((t) => `"${t}"`);
}

function tooBroad(what: string) {
  return voxdexError(
    'BAD_QUERY',
    `Invalid terms: ${JSON.stringify(what)} matches more than ${MAX_WILDCARD_EXPANSIONS} different words; add letters to narrow the wildcard.`,
  );
}

function product(lists: string[][], what: string): string[][] {
  let out: string[][] = [[]];
  for (const list of lists) {
    out = out.flatMap((prefix) => list.map((x) => [...prefix, x]));
    if (out.length > MAX_WILDCARD_EXPANSIONS) throw tooBroad(what);
  }
  return out;
}

function leaf(node: QueryNode, vocab: VocabLookup, cols: Columns): Expr {
  if (node.type === 'word' && matchesForms(node)) return cols.stems === null ? FALSE : { kind: 'fts', expr: `${cols.stems} : "${wordStem(node.word)}"` };
  if (cols.words === null) return FALSE;
  let options: string[];
  if (node.type === 'word') {
    options = alternatives(node.word, vocab);
  } else if (node.type === 'phrase') {
    options = product(node.words.map((w) => alternatives(w, vocab)), node.words.join(' ')).map((c) => c.join(' + '));
  } else if (node.type === 'near') {
    options = product(node.words.map((w) => alternatives(w, vocab)), node.words.join(' ')).map(
      (c) => `NEAR(${c.join(' ')}, ${node.distance})`,
    );
  } else {
    throw new Error(`not a leaf: ${node.type}`);
  }
  if (options.length === 0) return FALSE;
  return { kind: 'fts', expr: `${cols.words} : (${options.length === 1 ? options[0]! : options.map((o) => `(${o})`).join(' OR ')})` };
}

/** Expands wildcards and folds constant TRUE/FALSE parts away. */
function build(node: QueryNode, vocab: VocabLookup, cols: Columns): Expr {
  switch (node.type) {
    case 'not': {
      const c = build(node.child, vocab, cols);
      return c.kind === 'true' ? FALSE : c.kind === 'false' ? TRUE : { kind: 'not', child: c };
    }
    case 'and': {
      const cs = node.children.map((c) => build(c, vocab, cols)).filter((c) => c.kind !== 'true');
      if (cs.some((c) => c.kind === 'false')) return FALSE;
      return cs.length === 0 ? TRUE : cs.length === 1 ? cs[0]! : { kind: 'and', children: cs };
    }
    case 'or': {
      const cs = node.children.map((c) => build(c, vocab, cols)).filter((c) => c.kind !== 'false');
      if (cs.some((c) => c.kind === 'true')) return TRUE;
      return cs.length === 0 ? FALSE : cs.length === 1 ? cs[0]! : { kind: 'or', children: cs };
    }
    default:
      return leaf(node, vocab, cols);
  }
}

/** The whole expression as one FTS5 MATCH string, or undefined when FTS5 cannot express it. */
function asFts(e: Expr): string | undefined {
  if (e.kind === 'fts') return e.expr;
  if (e.kind === 'or') {
    const parts = e.children.map(asFts);
    return parts.every((p) => p !== undefined) ? parts.map((p) => `(${p})`).join(' OR ') : undefined;
  }
  if (e.kind === 'and') {
    const pos: string[] = [];
    const neg: string[] = [];
    for (const c of e.children) {
      const p = asFts(c.kind === 'not' ? c.child : c);
      if (p === undefined) return undefined;
      (c.kind === 'not' ? neg : pos).push(`(${p})`);
    }
    if (pos.length === 0) return undefined;
    const and = pos.length === 1 ? pos[0]! : `(${pos.join(' AND ')})`;
    return neg.length === 0 ? and : `${and} NOT (${neg.join(' OR ')})`;
  }
  return undefined;
}

/**
 * SQL condition on `idColumn` for the terms (restricted to `channel` when given), with its parameters.
 * Channels ≥ MAX_CHANNELS match nothing by terms.
 */
export function termsCondition(
  node: QueryNode,
  vocab: VocabLookup,
  idColumn: string,
  channel?: number,
): { sql: string; params: string[] } {
  const params: string[] = [];
  const match = (fts: string) => {
    params.push(fts);
    return `${idColumn} IN (SELECT rowid FROM fts WHERE fts MATCH ?)`;
  };
  const sql = (e: Expr): string => {
    const fts = asFts(e);
    if (fts !== undefined) return match(fts);
    switch (e.kind) {
      case 'true':
        return '1';
      case 'false':
        return '0';
      case 'not':
        return `NOT (${sql(e.child)})`;
      case 'and':
        return `(${e.children.map(sql).join(' AND ')})`;
      case 'or':
        return `(${e.children.map(sql).join(' OR ')})`;
      default:
        throw new Error('unreachable');
    }
  };
  return { sql: sql(build(node, vocab, columnsFor(channel))), params };
}
