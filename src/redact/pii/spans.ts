/**
 * What every personal-data recognizer receives (the call's streams, cues and windows, the words as
 * written, the person tags) and returns (spans of stream tokens with a kind), and the
 * token tests they share.
 */
import type { Utterance } from '../../types.js';
import type { Stream, StreamToken } from '../digit-runs.js';
import { ANSWER_WINDOW_SEC, openWindowsSince, windowOpen, type Cue, type PiiKind, type Window } from './context.js';
import type { Recognizer } from '../recognizer.js';
import { FILLERS, LETTER_WORDS, NOT_A_NAME, REPLIES } from './lexicon.js';

export interface PiiSpan {
  kind: PiiKind;
  stream: Stream;
  /** Token indexes [from, to] of the stream, inclusive. */
  from: number;
  to: number;
}

export interface PiiView {
  utterances: readonly Utterance[];
  streams: readonly Stream[];
  cues: readonly Cue[];
  windows: readonly Window[];
  /** Token indexes of the stream that the tagger calls a person's name (computed on first use). */
  persons(stream: Stream): ReadonlySet<number>;
  /** Token indexes of the stream the tagger does not know at all (no lexicon entry): rare words, most of them names. */
  unknown(stream: Stream): ReadonlySet<number>;
}

export type Recognize = (view: PiiView) => PiiSpan[];

/** The event's word as the transcript holds it (case and symbols kept: "john.smith@gmail.com"). */
export function rawWord(view: PiiView, t: StreamToken): string {
  return view.utterances[t.u]!.events[t.e]!.word;
}

/** A letter said when spelling: "s", "el", "double" (of "double u"). */
export function isLetter(t: StreamToken | undefined): boolean {
  return t !== undefined && (t.key in LETTER_WORDS || /^[a-z]\.?$/.test(t.key));
}

/** A single-letter word ("s", "m"): spelling, not an ordinary word like "see" or "are". */
export function isSingleLetter(t: StreamToken | undefined): boolean {
  return t !== undefined && /^[a-z]$/.test(t.key) && t.key !== 'a' && t.key !== 'i';
}

/** Digits or a numeral. */
export function isNumber(t: StreamToken | undefined): boolean {
  return t !== undefined && (t.kind === 'digit' || t.kind === 'homophone' || /\d/.test(t.key));
}

/** A word that may be part of a name (not a function word, not a number). */
export function nameLike(t: StreamToken | undefined): boolean {
  return t !== undefined && t.key !== '' && !NOT_A_NAME.has(t.key) && !isNumber(t);
}

/** Seconds between two tokens of a stream (end of a to start of b). */
export function gap(a: StreamToken, b: StreamToken): number {
  return b.start - a.end;
}

/** "X as in Y" after index i (a letter spelled with an example word): the index of Y, else -1. */
export function asIn(t: readonly StreamToken[], i: number): number {
  return t[i + 1]?.key === 'as' && (t[i + 2]?.key === 'in' || t[i + 2]?.key === 'for') && t[i + 3] ? i + 3 : -1;
}

/**
 * Seconds between letters spelled in answer to a name question ("spell your surname"): people spell
 * slowly, 1.5–2.2 s a letter, the ASR writing each letter as an utterance of its own.
 */
export const SLOW_SPELL_GAP_SEC = 3;

/**
 * A run of spelled letters starting at i (single letters, letter names next to single letters,
 * "double u", "X as in Y"): the index of its last token, or i - 1 when none starts there.
 */
export function spelledRun(t: readonly StreamToken[], i: number, maxGap = 1.5): number {
  let j = i - 1;
  let singles = 0;
  while (j + 1 < t.length) {
    const n = t[j + 1]!;
    if (j >= i && gap(t[j]!, n) > maxGap) break;
    // "a" and "i" after letters are letters, unless they start a new utterance before a word ("… t e" + "i bought").
    const pronoun = (n.key === 'a' || n.key === 'i') && j >= i && n.u !== t[j]!.u && !isLetter(t[j + 2]);
    if (pronoun) break;
    const single = isSingleLetter(n) || ((n.key === 'a' || n.key === 'i') && singles > 0);
    const named = isLetter(n) && (singles > 0 || isSingleLetter(t[j + 2]));
    const dbl = n.key === 'double' && (t[j + 2]?.key === 'u' || t[j + 2]?.key === 'you' || isLetter(t[j + 2]));
    if (!single && !named && !dbl) break;
    if (single) singles++;
    j++;
    const y = asIn(t, j);
    if (y > 0) j = y;
  }
  return singles >= 2 || (singles >= 1 && j > i) ? j : i - 1;
}

/**
 * Does token j go on what token j - 1 said? Within an utterance, when the pause is short; across
 * utterances (the ASR splits a caller's digits and letters into many), when the next one is short or
 * starts with a number, a letter or a name-like word — not a new sentence ("had he married…").
 */
export function continues(t: readonly StreamToken[], j: number, maxPause: number): boolean {
  const a = t[j - 1]!;
  const b = t[j]!;
  if (gap(a, b) > maxPause) return false;
  if (a.u === b.u) return true;
  let n = 0;
  for (let k = j; k < t.length && t[k]!.u === b.u; k++) n++;
  return n <= 4 || isNumber(b) || isLetter(b) || nameLike(b);
}

/** Most tokens of one answer (an address said with its ZIP digit by digit is about 20). */
export const MAX_ANSWER_TOKENS = 30;
/** A pause this long (seconds) ends an answer. */
export const ANSWER_PAUSE_SEC = 1.2;

/**
 * The answer in a window: from the first word after the preamble ("yes it is", "uh", "sure") to a
 * pause, a reply ("okay", "thanks") or MAX_ANSWER_TOKENS, misheard words included: inside an answer
 * to "what's your email?" every word is the answer's, however the ASR wrote it. [from, to] or undefined.
 */
export function answerSpan(t: readonly StreamToken[], first: number, last: number): [number, number] | undefined {
  let k = first;
  while (k <= last && (FILLERS.has(t[k]!.key) || t[k]!.key === '')) k++;
  if (k > last || REPLIES.has(t[k]!.key)) return undefined;
  let end = k;
  while (end + 1 <= last && end - k < MAX_ANSWER_TOKENS && continues(t, end + 1, ANSWER_PAUSE_SEC) && !REPLIES.has(t[end + 1]!.key)) end++;
  // Trailing function words are the next sentence starting, not the answer ("… maple street and i").
  while (end > k && NOT_A_NAME.has(t[end]!.key) && !isNumber(t[end]) && !isLetter(t[end])) end--;
  return [k, end];
}

/**
 * The first token of `stream` an answer in an open window of `topics` starts at (the stream's
 * length: none): a word said in the window may still make the answer so far one of those kinds.
 */
export function openAnswerReach(view: PiiView, stream: Stream, topics: readonly PiiKind[], now: number): number {
  let open = stream.tokens.length;
  for (const w of view.windows) {
    if (w.stream !== stream || !topics.includes(w.topic) || !windowOpen(view.cues, w, now)) continue;
    const a = answerSpan(stream.tokens, w.first, w.last);
    if (a) open = Math.min(open, a[0]);
  }
  return open;
}

/**
 * A personal-data recognizer of the registry (recognizer.ts) from its rules: its spans, its reach (over
 * the view), and the topics of the windows it reads (their cues are the context it still needs while
 * they are open; a cue lies at most ANSWER_WINDOW_SEC before the words it opens a window on).
 */
export function piiRecognizer(name: string, kinds: readonly PiiKind[], recognize: Recognize, reach: (view: PiiView, stream: Stream, now: number) => number, topics: readonly PiiKind[]): Recognizer {
  return {
    name,
    kinds,
    analyze: (a) => recognize(a.view),
    reach: (a, stream, now) => reach(a.view, stream, now),
    renames: () => undefined,
    context: (a, stream, now) => openWindowsSince(a.view.cues, a.view.windows, stream, topics, now),
    contextSec: ANSWER_WINDOW_SEC,
  };
}
