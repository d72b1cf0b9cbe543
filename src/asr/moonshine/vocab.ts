/**
 * Custom vocabulary for Moonshine's greedy decoder: product names and jargon the model would
 * otherwise miss or misspell.
 *
 * Each phrase is matched against the text the decoder writes, case-insensitively, through its
 * tokens: a prefix trie over the tokenizer's pieces gives, for every position in a phrase, the pieces
 * that continue it there (a phrase has many tokenisations; every one counts). While decoding:
 * - a piece that starts a phrase at a word boundary gets a small logit boost (only when the model
 *   already gives it some probability: START_MIN_LOGPROB), a piece that continues a phrase under
 *   way a larger one;
 * - a phrase that is not completed (the next piece leaves it, or the word goes on past its end) is
 *   taken back: when a boost decided any of its pieces, the decoder returns to where the phrase began
 *   and takes the unboosted choice there, with that phrase barred at that position.
 * After decoding, written words that spell a phrase are written as the vocabulary spells them.
 */
import { EOS } from './tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

/** Logit added to a piece that starts a phrase. */
export const START_BOOST = 3;
/** Logit added to a piece that continues a phrase under way. */
export const CONTINUE_BOOST = 6;
/** A phrase may start only with a piece the model gives at least this log probability unboosted. */
export const START_MIN_LOGPROB = Math.log(1e-4);
const SPACE = '\u2581';

export interface Vocabulary {
  /** Each phrase's words as the vocabulary spells them. */
  readonly phrases: readonly string[][];
  /** Pieces that start phrase p: [piece, phrase, offset after it]. */
  readonly starts: ReadonlyArray<readonly [number, number, number]>;
  /** next[p][o]: pieces that continue phrase p at character offset o, with the offset after each. */
  readonly next: ReadonlyArray<ReadonlyArray<ReadonlyMap<number, number>>>;
  /** Length of each phrase's matched text ("▁word▁word", lower case). */
  readonly lengths: readonly number[];
  /** Pieces that begin a word ("▁…") or are not letters/digits: after them a completed phrase stands. */
  readonly boundary: (id: number) => boolean;
}

/** The pieces of a tokenizer as lower-case strings, by id ('' for special and raw-byte pieces). */
const pieceTexts = new WeakMap<Tokenizer, { texts: string[]; byText: Map<string, number[]>; maxLen: number }>();
function piecesOf(tokenizer: Tokenizer) {
  let p = pieceTexts.get(tokenizer);
  if (p) return p;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const texts: string[] = [];
  const byText = new Map<string, number[]>();
  let maxLen = 0;
  for (let id = 0; id < tokenizer.size; id++) {
    let text = '';
    if (id > 258) {
      try {
        text = utf8.decode(tokenizer.piece(id)).toLowerCase();
      } catch {
        text = '';
      }
    }
    texts.push(text);
    if (text === '') continue;
    const ids = byText.get(text);
    if (ids) ids.push(id);
    else byText.set(text, [id]);
    maxLen = Math.max(maxLen, text.length);
  }
  pieceTexts.set(tokenizer, (p = { texts, byText, maxLen }));
  return p;
}

/** Splits a phrase into words ("Zentrix  Cloud" → ["Zentrix", "Cloud"]). */
export const phraseWords = (phrase: string): string[] => phrase.trim().split(/\s+/).filter(Boolean);

export function compileVocabulary(phrases: readonly string[], tokenizer: Tokenizer): Vocabulary {
  const { texts, byText, maxLen } = piecesOf(tokenizer);
  const words = phrases.map(phraseWords).filter((w) => w.length > 0);
  const keys = words.map((w) => SPACE + w.join(SPACE).toLowerCase());
  const next = keys.map((key) =>
    Array.from({ length: key.length }, (_, o) => {
      const m = new Map<number, number>();
      for (let len = 1; len <= maxLen && o + len <= key.length; len++) {
        for (const id of byText.get(key.slice(o, o + len)) ?? []) m.set(id, o + len);
      }
      return m;
    }),
  );
  const starts: Array<[number, number, number]> = [];
  next.forEach((offsets, p) => {
    for (const [id, o] of offsets[0] ?? []) if (texts[id]!.startsWith(SPACE)) starts.push([id, p, o]);
  });
  return {
    phrases: words,
    starts,
    next,
    lengths: keys.map((k) => k.length),
    boundary: (id) => id === EOS || texts[id]!.startsWith(SPACE) || (texts[id] !== '' && !/^[\p{L}\p{N}]/u.test(texts[id]!)),
  };
}

/** A phrase under way in one decoding: where it began (tokens written before it) and how far it got. */
export interface PhraseMatch {
  phrase: number;
  offset: number;
  /** Tokens written before the phrase's first piece. */
  from: number;
  /** A boost decided one of its pieces (so it is taken back if not completed). */
  boosted: boolean;
}

/**
 * The boost each piece gets at this step: the phrases under way, and the ones that may start here
 * (`lse`: the log of the row's softmax denominator, for START_MIN_LOGPROB).
 */
export function phraseBoosts(
  vocab: Vocabulary,
  active: readonly PhraseMatch[],
  barred: ReadonlySet<number>,
  logits: Float32Array,
  offset: number,
  lse: number,
): Map<number, number> {
  const boosts = new Map<number, number>();
  for (const m of active) {
    for (const id of vocab.next[m.phrase]![m.offset]?.keys() ?? []) boosts.set(id, CONTINUE_BOOST);
  }
  for (const [id, p] of vocab.starts) {
    if (barred.has(p) || boosts.has(id)) continue;
    if (logits[offset + id]! - lse >= START_MIN_LOGPROB) boosts.set(id, START_BOOST);
  }
  return boosts;
}

/** The phrases under way after writing piece `id` (`written`: tokens before it), and the ones it broke. */
export function advance(
  vocab: Vocabulary,
  active: readonly PhraseMatch[],
  barred: ReadonlySet<number>,
  id: number,
  written: number,
  boosted: boolean,
): { active: PhraseMatch[]; broken: PhraseMatch[]; completed: PhraseMatch[] } {
  const out: PhraseMatch[] = [];
  const broken: PhraseMatch[] = [];
  const completed: PhraseMatch[] = [];
  for (const m of active) {
    if (m.offset === vocab.lengths[m.phrase]) {
      // The phrase is spelled out: it stands if the word ends here.
      (vocab.boundary(id) ? completed : broken).push(m);
      continue;
    }
    const to = vocab.next[m.phrase]![m.offset]?.get(id);
    if (to === undefined) broken.push(m);
    else out.push({ ...m, offset: to, boosted: m.boosted || boosted });
  }
  for (const [sid, p, o] of vocab.starts) {
    if (sid === id && !barred.has(p)) out.push({ phrase: p, offset: o, from: written, boosted });
  }
  return { active: out, broken, completed };
}

/**
 * Writes words that spell a vocabulary phrase (compared in lower case, without surrounding
 * punctuation) as the vocabulary spells them. `texts` are the written words, lower-cased.
 */
export function vocabularySpellings(texts: readonly string[], vocab: Pick<Vocabulary, 'phrases'>): Array<string | undefined> {
  const bare = (w: string) => w.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  const out: Array<string | undefined> = texts.map(() => undefined);
  const phrases = vocab.phrases.map((ws) => ({ ws, keys: ws.map(bare) })).sort((a, b) => b.ws.length - a.ws.length);
  for (let i = 0; i < texts.length; i++) {
    for (const { ws, keys } of phrases) {
      if (i + keys.length > texts.length || !keys.every((k, j) => k === bare(texts[i + j]!))) continue;
      ws.forEach((w, j) => (out[i + j] = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));
      i += keys.length - 1;
      break;
    }
  }
  return out;
}
