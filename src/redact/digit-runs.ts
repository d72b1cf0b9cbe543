/**
 * The analysis every redaction recognizer shares: each channel's words in time order (a stream per
 * channel, whatever speaker labels diarization gave: a one-voice call split in two labels must not
 * hide a digit), what digits each word stands for — numerals ("4111"), number
 * words ("forty five" → 4 5), "double"/"triple", and homophones ("to", "for", "ate", "won", "oh")
 * when they sit next to real digits — and the digit RUNS: groups of digits joined across pauses,
 * fillers and utterances of the same speaker within RUN_WINDOW_SEC (a card read out in four turns).
 * Quantities (amounts, percentages, times, ordinals, counts before a unit) break runs. Runs named by
 * the length their pieces add up to, and `digitRuns`, are length-runs.ts's.
 */
import { DIGITS, HOMOPHONES, MONTHS, ORDINALS, QUANTITY_UNITS, REPEATS, SCALES, TEENS, TENS, tensUnitParts, wordKey } from '../numbers/lexicon.js';
import type { Utterance } from '../types.js';

/** Groups of the same speaker this close (seconds, end to start) may join into one run. */
export const RUN_WINDOW_SEC = 20;
/** Words that may sit between digit groups of one number ("four one one one, uh, okay, one one…"). */
export const FILLERS: ReadonlySet<string> = new Set([
  'uh', 'um', 'er', 'ah', 'eh', 'hmm', 'mm', 'and', 'then', 'okay', 'ok', 'yes', 'yeah', 'right', 'sorry', 'so', 'is', "it's", 'its',
  'the', 'rest', 'next', 'last', 'digits', 'numbers', 'number', 'dash', 'space', 'again', 'that', "that's", 'thats', 'um-hum', 'uh-huh', 'it',
]);
export const MONTH_SET: ReadonlySet<string> = new Set<string>(MONTHS);

export type TokenKind = 'digit' | 'homophone' | 'word' | 'quantity';

export interface StreamToken {
  /** Utterance and event index in the transcript. */
  u: number;
  e: number;
  /** The utterance's `metadata.speaker`, else `C<channel>`. */
  speaker: string;
  start: number;
  end: number;
  key: string;
  kind: TokenKind;
  /** The digits this word stands for ('' for words). */
  digits: string;
}

export interface Stream {
  /** `C<channel>`: the stream's name in hints and spans. */
  speaker: string;
  channel: number;
  tokens: StreamToken[];
}

export interface DigitRun {
  stream: Stream;
  /** Token indexes in the stream, first and last digit-bearing token (inclusive). */
  first: number;
  last: number;
  digits: string;
  start: number;
  end: number;
  /** How many utterances (breaths, as the ASR split them) its digits were said in. */
  pieces: number;
  /**
   * Set when the run is one of a speaker's numbers that together have a card's, an SSN's or a phone
   * number's length, or hold a long number read in pieces (length-runs.ts): that kind (`digits` for
   * the last), cue or not. Each keeps its own tokens: the words between stay.
   */
  byLength?: 'card' | 'ssn' | 'phone' | 'digits';
}

const isNum = (k: string | undefined) => k !== undefined && (k in DIGITS || k in TEENS || k in TENS || k === 'oh');

/** Digits a word stands for, looking at its neighbours for "forty" + "five" and "double" + digit. */
function wordDigits(keys: readonly string[], i: number): string | undefined {
  const k = keys[i]!;
  const next = keys[i + 1];
  if (/\d/.test(k)) return /[$£€%:]|\d(st|nd|rd|th)$|\d\.\d/.test(k) ? undefined : k.replace(/\D/g, '');
  const tensUnit = tensUnitParts(k); // "forty-two": 42; "twenty-first": a quantity
  if (tensUnit) return tensUnit[1] in DIGITS ? `${TENS[tensUnit[0]]! / 10}${DIGITS[tensUnit[1]]}` : undefined;
  if (k in DIGITS) return String(DIGITS[k]);
  if (k in TEENS) return String(TEENS[k]);
  if (k in TENS) return String(TENS[k]! / 10) + (next !== undefined && next in DIGITS && DIGITS[next]! > 0 ? '' : '0');
  if (k in REPEATS) {
    const d = next === undefined ? undefined : next in DIGITS ? DIGITS[next] : HOMOPHONES[next];
    return d === undefined ? '' : String(d).repeat(REPEATS[k]! - 1);
  }
  if (k in SCALES && i > 0 && isNum(keys[i - 1])) {
    const zeros = String(SCALES[k]).length - 1;
    const tail = next !== undefined && (next in TENS || next in TEENS) ? 2 : next !== undefined && next in DIGITS ? 1 : 0;
    return '0'.repeat(Math.max(0, zeros - tail));
  }
  return '';
}

/** One stream per channel, words in time order, with the digits each stands for. */
export function buildStreams(utterances: readonly Utterance[]): Stream[] {
  const streams = new Map<number, Stream>();
  utterances.forEach((utt, u) => {
    const meta = utt.metadata as { channel: number; speaker?: string };
    let s = streams.get(meta.channel);
    if (!s) streams.set(meta.channel, (s = { speaker: `C${meta.channel}`, channel: meta.channel, tokens: [] }));
    const speaker = meta.speaker ?? s.speaker;
    utt.events.forEach((ev, e) => s!.tokens.push({ u, e, speaker, start: ev.start, end: ev.end, key: wordKey(ev.word), kind: 'word', digits: '' }));
  });
  for (const s of streams.values()) {
    s.tokens.sort((a, b) => a.start - b.start || a.u - b.u || a.e - b.e);
    classify(s.tokens);
  }
  return [...streams.values()];
}

function classify(tokens: StreamToken[]): void {
  const keys = tokens.map((t) => t.key);
  tokens.forEach((t, i) => {
    const d = wordDigits(keys, i);
    if (d === undefined || t.key in ORDINALS) t.kind = 'quantity';
    else if (d !== '') {
      t.kind = 'digit';
      t.digits = d;
    } else if (t.key in HOMOPHONES) t.kind = 'homophone';
  });
  // The short number right before a unit ("forty two dollars", "two pm", "three items") is a
  // quantity; it keeps its digits, for a sensitive run it turns out to end (redact.ts).
  tokens.forEach((t, i) => {
    if (QUANTITY_UNITS.has(t.key)) for (const j of unitClaim(tokens, i)) tokens[j]!.kind = 'quantity';
  });
  // "one of them", "no one", "the one": a lone "one" among ordinary words is a word.
  tokens.forEach((t, i) => {
    if (t.key !== 'one') return;
    const p = tokens[i - 1];
    const n = tokens[i + 1];
    const sameWord = (o: StreamToken | undefined) => o !== undefined && o.u === t.u && o.kind === 'word' && !FILLERS.has(o.key);
    const notDigit = (o: StreamToken | undefined) => o === undefined || o.u !== t.u || o.kind !== 'digit';
    if ((sameWord(n) && notDigit(p)) || (sameWord(p) && notDigit(n))) {
      t.kind = 'word';
      t.digits = '';
    }
  });
  // A year after a month or an ordinal ("march third twenty twenty five") is a date.
  tokens.forEach((t, i) => {
    const p = tokens[i - 1];
    if (t.kind !== 'digit' || !p || t.start - p.end > 1.5 || !(MONTH_SET.has(p.key) || p.key in ORDINALS || /^\d+(st|nd|rd|th)$/.test(p.key))) return;
    let j = i;
    let d = '';
    while (j < tokens.length && tokens[j]!.kind === 'digit' && d.length < 4) d += tokens[j++]!.digits;
    if (d.length === 4 && /^(19|20)\d\d$/.test(d) && tokens[j]?.kind !== 'digit') for (let x = i; x < j; x++) tokens[x]!.kind = 'quantity';
  });
  // Homophones count as digits next to real digits (within 2 s), repeatedly: "seven to for one".
  for (let changed = true; changed; ) {
    changed = false;
    tokens.forEach((t, i) => {
      if (t.kind !== 'homophone') return;
      const near = (o: StreamToken | undefined) => o !== undefined && o.kind === 'digit' && Math.abs((o.start > t.start ? o.start - t.end : t.start - o.end)) <= 2;
      if (near(tokens[i - 1]) || near(tokens[i + 1])) {
        t.kind = 'digit';
        t.digits = String(HOMOPHONES[t.key]);
        changed = true;
      }
    });
  }
}

/** Longest numeral a unit may claim as a whole ("1500 dollars"); a longer one is a digit string. */
const SHORT_NUMERAL_DIGITS = 4;

/** Whether number word `p` can come right before `c` inside one cardinal ("forty two", "two hundred and five"). */
function sameCardinal(p: string, written: string): boolean {
  const c = tensUnitParts(written)?.[0] ?? written; // "forty-two" continues like "forty"
  if (c in DIGITS) return DIGITS[c]! > 0 && (p in TENS || p in SCALES || p === 'and');
  if (c in TEENS || c in TENS) return p in SCALES || p === 'and';
  if (c in SCALES) return p in DIGITS || p in TEENS || p in TENS || p in SCALES;
  if (c === 'and') return p in SCALES;
  return false;
}

/**
 * The tokens the unit at `u` claims: the short number right before it in the same utterance — one
 * numeral of up to 4 digits, or the number words of one cardinal ("two", "forty two", "two
 * thousand"): never the digit groups before it ("…zero three" + "three months": only "three").
 */
function unitClaim(tokens: readonly StreamToken[], u: number): number[] {
  const unit = tokens[u]!;
  const prev = tokens[u - 1];
  if (!prev || prev.u !== unit.u || prev.kind !== 'digit' || unit.start - prev.end > 1.5) return [];
  if (/\d/.test(prev.key)) return prev.digits.length <= SHORT_NUMERAL_DIGITS ? [u - 1] : [];
  const claimed = [u - 1];
  for (let j = u - 2; j >= 0; j--) {
    const t = tokens[j]!;
    if (t.u !== unit.u || (t.kind !== 'digit' && t.key !== 'and') || /\d/.test(t.key) || !sameCardinal(t.key, tokens[j + 1]!.key)) break;
    claimed.push(j);
  }
  return claimed.filter((j) => tokens[j]!.kind === 'digit');
}

/** The token next to i (dir ±1) is an ordinary word of the same utterance. */
export function inWords(t: readonly StreamToken[], i: number, dir: 1 | -1): boolean {
  const o = t[i + dir];
  return o !== undefined && o.u === t[i]!.u && o.kind === 'word' && !FILLERS.has(o.key);
}

/** What the caller of digitRuns knows about context: where a topic word separates numbers, and the answer windows. */
export interface RunHints {
  /** A topic word said between `from` and `to` that separates this speaker's numbers. */
  breaks(speaker: string, from: number, to: number): boolean;
  /** The answer window (its id) this speaker's word at `time` falls in, if any. */
  window(speaker: string, time: number): number | undefined;
}

/** Seconds between two digit words said together as one group ("four one one one"). */
export const GROUP_GAP_SEC = 2;

export interface DigitGroup {
  first: number;
  last: number;
  digits: string;
}

/** The stream's groups of adjacent digit words (≤ GROUP_GAP_SEC apart), in order. */
export function digitGroups(stream: Stream): DigitGroup[] {
  const t = stream.tokens;
  const groups: DigitGroup[] = [];
  for (let i = 0; i < t.length; i++) {
    if (t[i]!.kind !== 'digit') continue;
    const g = groups[groups.length - 1];
    if (g && g.last === i - 1 && t[i]!.start - t[i - 1]!.end <= GROUP_GAP_SEC) {
      g.last = i;
      g.digits += t[i]!.digits;
    } else groups.push({ first: i, last: i, digits: t[i]!.digits });
  }
  return groups;
}

/** A group after a run, as groupJoins reads it: a group already said, or one still to come (what can be known of it). */
export interface NextGroup {
  /** Its first token's index in the stream (the stream's length for a group still to come). */
  first: number;
  start: number;
  /** How many digits it holds (a group still to come: 2, the most that lets it join). */
  digits: number;
  /** A lone digit followed by an ordinary word in its utterance ("one of them"): a word, not a group. */
  wordUse: boolean;
}

/**
 * Whether group `next` joins the run `cur` (its groups so far) of `stream`: within RUN_WINDOW_SEC, or
 * inside one answer window (`answer`; default: `hints` says both lie in the same window), with no
 * quantity, month or topic word between, and only fillers between — or, both groups having 2+ digits,
 * at most 4 words. The one statement of the rule: digitRuns joins by it, and the run recognizer's
 * reach (run-recognizer.ts) asks it of a group still to come.
 */
export function groupJoins(stream: Stream, cur: DigitGroup, next: NextGroup, hints: RunHints, answer?: boolean): boolean {
  const t = stream.tokens;
  const between = t.slice(cur.last + 1, next.first);
  const from = t[cur.last]!.end;
  const to = next.start;
  // A lone digit inside ordinary words ("one of them") is a word; a topic word said on any
  // channel in between ("security code", "expiry") starts a new number.
  const wordUse = next.wordUse || (cur.digits.length < 2 && inWords(t, cur.first, -1));
  // Inside the answer to "what's the card number?" (or after "my card number is") digits join
  // across long pauses, chatter and misheard words, as long as the window stays open.
  if (answer === undefined) {
    const w = hints.window(stream.speaker, t[cur.first]!.start);
    answer = w !== undefined && w === hints.window(stream.speaker, to);
  }
  return (to - from <= RUN_WINDOW_SEC || answer) && !wordUse &&
    !between.some((b) => b.kind === 'quantity' || MONTH_SET.has(b.key)) &&
    !hints.breaks(stream.speaker, from, to) &&
    (answer || between.every((b) => FILLERS.has(b.key)) || (cur.digits.length >= 2 && next.digits >= 2 && between.length <= 4));
}

/** One stream's runs: its groups joined across pauses, fillers, chatter and answer windows (then by length: length-runs.ts `digitRuns`). */
export function streamRuns(stream: Stream, hints: RunHints): DigitRun[] {
  const runs: DigitRun[] = [];
  const t = stream.tokens;
  const groups = digitGroups(stream);
  let cur: DigitGroup | undefined;
  const flush = () => {
    if (!cur) return;
    const pieces = new Set(t.slice(cur.first, cur.last + 1).filter((x) => x.kind === 'digit').map((x) => x.u)).size;
    runs.push({ stream, first: cur.first, last: cur.last, digits: cur.digits, start: t[cur.first]!.start, end: t[cur.last]!.end, pieces });
  };
  for (const g of groups) {
    if (cur) {
      const next = { first: g.first, start: t[g.first]!.start, digits: g.digits.length, wordUse: g.digits.length < 2 && inWords(t, g.last, 1) };
      if (groupJoins(stream, cur, next, hints)) {
        cur = { first: cur.first, last: g.last, digits: cur.digits + g.digits };
        continue;
      }
      flush();
    }
    cur = { ...g };
  }
  flush();
  return runs;
}
