/**
 * Custom vocabulary for Moonshine: product names and jargon the model would otherwise miss or
 * misspell. A phrase is matched against the text the decoder writes, case-insensitively, through its
 * tokens: a prefix trie over the tokenizer's pieces gives, for every position in a phrase, the pieces
 * that continue it there (a phrase has many tokenisations). The decoder opens a branch where a
 * phrase may start and spells it with these pieces (phrase-beam.ts). After decoding, written words
 * that spell a phrase are written as the vocabulary spells them.
 */
import { EOS } from './tokenizer.js';
import type { Tokenizer } from './tokenizer.js';

const SPACE = '\u2581';

export interface Vocabulary {
  /** Each phrase's words as the vocabulary spells them. */
  readonly phrases: readonly string[][];
  /** Pieces that start phrase p: [piece, phrase, offset after it]. */
  readonly starts: ReadonlyArray<readonly [number, number, number]>;
  /**
   * next[p][o]: pieces that continue phrase p at character offset o, with the offset after each. Only
   * pieces written in a natural case: as the vocabulary spells that part, lower case, or one capital
   * letter first ("▁Syn", "tara"; not "ZE", "N", "T").
   */
  readonly next: ReadonlyArray<ReadonlyArray<ReadonlyMap<number, number>>>;
  /** Length of each phrase's matched text ("▁word▁word", lower case). */
  readonly lengths: readonly number[];
  /** Pieces that begin a word ("▁…") or are not letters/digits: after them a completed phrase stands. */
  readonly boundary: (id: number) => boolean;
}

/** The pieces of a tokenizer as lower-case strings and as written, by id ('' for special and raw-byte pieces). */
const pieceTexts = new WeakMap<Tokenizer, { texts: string[]; cased: string[]; byText: Map<string, number[]>; maxLen: number }>();
function piecesOf(tokenizer: Tokenizer) {
  let p = pieceTexts.get(tokenizer);
  if (p) return p;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const texts: string[] = [];
  const cased: string[] = [];
  const byText = new Map<string, number[]>();
  let maxLen = 0;
  for (let id = 0; id < tokenizer.size; id++) {
    let text = '';
    if (id > 258) {
      try {
        text = utf8.decode(tokenizer.piece(id));
      } catch {
        text = '';
      }
    }
    cased.push(text);
    text = text.toLowerCase();
    texts.push(text);
    if (text === '') continue;
    const ids = byText.get(text);
    if (ids) ids.push(id);
    else byText.set(text, [id]);
    maxLen = Math.max(maxLen, text.length);
  }
  pieceTexts.set(tokenizer, (p = { texts, cased, byText, maxLen }));
  return p;
}

/** Splits a phrase into words ("Zentrix  Cloud" → ["Zentrix", "Cloud"]). */
export const phraseWords = (phrase: string): string[] => phrase.trim().split(/\s+/).filter(Boolean);

export function compileVocabulary(phrases: readonly string[], tokenizer: Tokenizer): Vocabulary {
  const { texts, cased, byText, maxLen } = piecesOf(tokenizer);
  const words = phrases.map(phraseWords).filter((w) => w.length > 0);
  const spelled = words.map((w) => SPACE + w.join(SPACE));
  const keys = spelled.map((k) => k.toLowerCase());
  // Capitalised only where a word starts ("▁Syn", not "R" inside "Syntara").
  const natural = (id: number, as: string) => cased[id] === as || cased[id] === texts[id] || /^\u2581\p{Lu}[^\p{Lu}]*$/u.test(cased[id]!);
  const next = keys.map((key, p) =>
    Array.from({ length: key.length }, (_, o) => {
      const m = new Map<number, number>();
      for (let len = 1; len <= maxLen && o + len <= key.length; len++) {
        for (const id of byText.get(key.slice(o, o + len)) ?? []) if (natural(id, spelled[p]!.slice(o, o + len))) m.set(id, o + len);
      }
      return m;
    }),
  );
  // A phrase starts with a piece that begins a word and holds at least one character of it (not a bare "▁").
  const starts: Array<[number, number, number]> = [];
  next.forEach((offsets, p) => {
    for (const [id, o] of offsets[0] ?? []) if (texts[id]!.startsWith(SPACE) && o > 1) starts.push([id, p, o]);
  });
  return {
    phrases: words,
    starts,
    next,
    lengths: keys.map((k) => k.length),
    // Ids past the tokenizer's pieces (the model's logits are wider) are never a boundary.
    boundary: (id) => id === EOS || (texts[id] ?? '').startsWith(SPACE) || (!!texts[id] && !/^[\p{L}\p{N}]/u.test(texts[id]!)),
  };
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

/** A near miss may differ from a phrase's sound key in this fraction of its letters (at least one). */
export const NEAR_MISS_RATIO = 0.25;
/** Phrases whose sound key is shorter than this are matched exactly only (short keys collide). */
export const NEAR_MISS_MIN_LETTERS = 5;

/** Letters of a written form, lower case, with spellings that sound alike made alike ("Draccium" → "drakium"). */
export function soundKey(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z]/g, '')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/[cq]/g, 'k')
    .replace(/z/g, 's')
    .replace(/y/g, 'i')
    .replace(/(.)\1+/g, '$1');
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * Near misses of phrases in written words: a run of up to (phrase words + 1) words, at least one of
 * them not an English word (`isWord`: the aligner's dictionary) and none a number, whose sound key is
 * within NEAR_MISS_RATIO of a phrase's ("Lumore Cloud", "omnivoc", "Trevendi"). Real words are never
 * rewritten ("Valerie", "blue metric" stay): that is what keeps names out of speech that did not say
 * them. Non-overlapping, the closest first.
 */
export function nearMisses(texts: readonly string[], vocab: Pick<Vocabulary, 'phrases'>, isWord: (word: string) => boolean): Array<{ at: number; length: number; phrase: number }> {
  const keys = vocab.phrases.map((ws) => soundKey(ws.join('')));
  const found: Array<{ at: number; length: number; phrase: number; distance: number }> = [];
  for (let at = 0; at < texts.length; at++) {
    for (const [phrase, key] of keys.entries()) {
      if (key.length < NEAR_MISS_MIN_LETTERS) continue;
      const most = Math.max(1, Math.floor(key.length * NEAR_MISS_RATIO));
      for (let length = 1; length <= vocab.phrases[phrase]!.length + 1 && at + length <= texts.length; length++) {
        const span = texts.slice(at, at + length).map((t) => t.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
        if (span.some((w) => /\d/.test(w) || w === '') || span.every((w) => isWord(w))) continue;
        const distance = editDistance(soundKey(span.join('')), key);
        if (distance <= most) found.push({ at, length, phrase, distance });
      }
    }
  }
  const taken = new Set<number>();
  const out: Array<{ at: number; length: number; phrase: number }> = [];
  for (const f of found.sort((a, b) => a.distance - b.distance || b.length - a.length)) {
    const cells = Array.from({ length: f.length }, (_, k) => f.at + k);
    if (cells.some((c) => taken.has(c))) continue;
    cells.forEach((c) => taken.add(c));
    out.push({ at: f.at, length: f.length, phrase: f.phrase });
  }
  return out.sort((a, b) => a.at - b.at);
}
