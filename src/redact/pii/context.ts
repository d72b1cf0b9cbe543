/**
 * The context personal-data recognizers share (presidio's context words, as for card numbers): the
 * cues said in a call ("my name is", "what's your email", "date of birth", "routing number") and the
 * windows they open. A cue opens an ANSWER window on the other speakers (the agent asks, the caller
 * answers) and, when said in the first person ("my name is", "I live at", "I was born on"), a window
 * on the speaker's own next words. A window lasts until ANSWER_WINDOW_SEC after the cue or until a
 * cue of another topic. Pure: a call so far gives the windows so far (live calls call it again).
 */
import type { Stream, StreamToken } from '../digit-runs.js';
import { MAIL_DOMAINS } from './lexicon.js';

export type PiiKind = 'bank' | 'phone' | 'email' | 'name' | 'address' | 'dob' | 'id';

/** Seconds after a cue in which the other speakers' words answer it. */
export const ANSWER_WINDOW_SEC = 20;
/** Seconds after a first-person cue in which the speaker's own words are the answer. */
export const SELF_WINDOW_SEC = 10;

export interface Cue {
  topic: PiiKind;
  stream: Stream;
  /** Index of the cue's last token in its stream. */
  index: number;
  time: number;
  /** Said of oneself ("my name is", "I live at"): opens a window on the speaker's own words. */
  self: boolean;
  /** A weak cue ("this is", "I'm") needs a name-like word after it. */
  weak?: boolean;
  /** Asks for the speaker's own data: "your email", "email address", "your name" (not "the email we sent"). */
  asks: boolean;
}

export interface Window {
  topic: PiiKind;
  cue: Cue;
  stream: Stream;
  /** Token indexes [first, last] of `stream` inside the window (first > last: empty). */
  first: number;
  last: number;
}

type Pattern = [topic: PiiKind, words: string, person?: 'self' | 'weak'];

/** Cue phrases, matched on word keys ending at a token; the longest match wins. */
const PATTERNS: readonly Pattern[] = [
  ['name', 'my name is', 'self'], ['name', 'my name', 'self'], ['name', "my name's", 'self'], ['name', 'name is'], ["name", "name's"],
  ['name', 'name please'], ['name', 'first name'], ['name', 'last name'], ['name', 'full name'], ['name', 'middle name'], ['name', 'surname'], ['name', 'your name'],
  ['name', 'the name'], ['name', 'speaking with'], ['name', 'speaking to'], ["name", "who's calling"], ['name', 'who is calling'],
  ['name', 'this is', 'weak'], ["name", "i'm", 'weak'], ['name', 'i am', 'weak'], ['name', 'call me', 'self'], ['name', 'named'],
  ['name', 'spell that'], ['name', 'spell it'], ['name', 'spelled'], ['name', 'spelt'], ['name', 'spell'],
  ['address', 'address'], ['address', 'my address', 'self'], ['address', 'live at', 'self'], ['address', 'live on', 'self'],
  ['address', 'i live', 'self'], ['address', 'zip code'], ['address', 'zip'], ['address', 'postcode'], ['address', 'postal code'],
  ['address', 'post code'], ['address', 'the city'], ['address', 'what city'], ['address', 'which city'], ['address', 'the state'],
  ['address', 'what state'], ['address', 'which state'], ['address', 'the town'], ['address', 'street name'], ['address', 'ship it to'], ['address', 'send it to'], ['address', 'mailing'], ['address', 'moved to', 'self'],
  ['email', 'email'], ['email', 'e-mail'], ['email', 'e mail'], ['email', 'email address'], ['email', 'my email', 'self'],
  ['email', 'emails'], ['email', 'mail address'],
  ['phone', 'phone number'], ['phone', 'phone'], ['phone', 'telephone'], ['phone', 'mobile'], ['phone', 'cell'], ['phone', 'call you back'],
  ['phone', 'reach you'], ['phone', 'reach me', 'self'], ['phone', 'contact number'], ['phone', 'best number'], ['phone', 'call me back', 'self'],
  ['phone', 'my number', 'self'], ['phone', 'area code'], ['phone', 'extension'],
  ['dob', 'date of birth'], ['dob', 'birth date'], ['dob', 'birthdate'], ['dob', 'birthday'], ['dob', 'born', 'self'], ['dob', 'dob'],
  ['dob', 'd o b'], ['dob', 'my birthday', 'self'],
  ['bank', 'account number'], ['bank', 'routing number'], ['bank', 'routing'], ['bank', 'sort code'], ['bank', 'iban'], ['bank', 'bank'],
  ['bank', 'checking account'], ['bank', 'savings account'], ['bank', 'swift'], ['bank', 'bic'], ['bank', 'aba'], ['bank', 'my account', 'self'],
  ['id', 'passport'], ['id', 'license number'], ['id', 'licence number'], ['id', "driver's license"], ['id', 'drivers license'],
  ['id', "driver's licence"], ['id', 'driving licence'], ['id', 'license'], ['id', 'licence'], ['id', 'id number'], ['id', 'i d number'],
  ['id', 'identification'], ['id', 'member id'], ['id', 'national insurance'], ['id', 'tax id'], ['id', 'medicare'], ['id', 'insurance number'],
  ['id', 'my id', 'self'], ['id', 'id'],
];
const BY_LAST = new Map<string, Array<{ topic: PiiKind; words: string[]; person?: 'self' | 'weak' }>>();
for (const [topic, words, person] of PATTERNS) {
  const w = words.split(' ');
  const list = BY_LAST.get(w.at(-1)!) ?? [];
  list.push({ topic, words: w, person });
  list.sort((a, b) => b.words.length - a.words.length);
  BY_LAST.set(w.at(-1)!, list);
}
/** First-person words before a cue make it a self cue ("my … address", "I was born"). */
const FIRST_PERSON = new Set(['my', 'i', "i'm", 'me', "i've", 'mine']);

/**
 * The stream's word keys as cues read them: "email address" as the ASR mishears it on the phone
 * ("amailed dress", "unmaily dress": a word with "mail" in it before "dress" or "address") is read
 * as said; a request "(can) I have/get your … please" whose 1–3 words name no cue of any kind ("can I
 * have your fault, Aim, please" for "full name"; not "your order number please") is read as the name
 * question it most often is: its last word before "please" is read as "name".
 */
function cueKeys(t: readonly StreamToken[]): string[] {
  const keys = t.map((x) => x.key);
  for (let i = 0; i + 1 < keys.length; i++) {
    if (/mail/.test(keys[i]!) && !MAIL_DOMAINS.has(keys[i]!) && (keys[i + 1] === 'dress' || keys[i + 1] === 'address')) {
      keys[i] = 'email';
      keys[i + 1] = 'address';
    }
  }
  for (let i = 0; i + 3 < keys.length; i++) {
    if (keys[i] !== 'i' || (keys[i + 1] !== 'have' && keys[i + 1] !== 'get') || keys[i + 2] !== 'your') continue;
    const please = [4, 5, 6].find((d) => keys[i + d] === 'please' && t[i + d]!.u === t[i]!.u);
    if (please === undefined || keys.slice(i + 3, i + please).some((k) => BY_LAST.has(k))) continue;
    keys[i + please - 1] = 'name';
  }
  return keys;
}

/** The cue ending at token i of the stream (word keys `keys`, as cueKeys reads them), if any. */
function cueAt(t: readonly StreamToken[], keys: readonly string[], i: number): Omit<Cue, 'stream'> | undefined {
  for (const p of BY_LAST.get(keys[i]!) ?? []) {
    const n = p.words.length;
    if (i + 1 < n || !p.words.every((w, k) => keys[i - n + 1 + k] === w)) continue;
    // "email address": the address pattern would also match its last word; the longer one is listed first.
    // "my email", "my home address": the word right before the cue (or one word before it) is "my" / "I".
    const before = keys.slice(Math.max(0, i - n - 1), i - n + 1);
    const self = p.person === 'self' || p.person === 'weak' || before.some((k) => FIRST_PERSON.has(k));
    const asks = n > 1 || keys[i - n] === 'your' || keys[i - n] === 'my';
    return { topic: p.topic, index: i, time: t[i - n + 1]!.start, self, asks, ...(p.person === 'weak' ? { weak: true } : {}) };
  }
  return undefined;
}

/** Every cue of the call, in time order (an "email address" is one email cue, not an address cue too). */
export function findCues(streams: readonly Stream[]): Cue[] {
  const cues: Cue[] = [];
  for (const stream of streams) {
    const t = stream.tokens;
    const keys = cueKeys(t);
    for (let i = 0; i < t.length; i++) {
      const c = cueAt(t, keys, i);
      if (!c) continue;
      const prev = cues.at(-1);
      if (prev && prev.stream === stream && prev.index === i - 1 && prev.topic !== c.topic && c.topic === 'address' && prev.topic === 'email') continue;
      cues.push({ ...c, stream });
    }
  }
  return cues.sort((a, b) => a.time - b.time);
}

/** Token indexes of `stream` whose start lies in [from, to), after index `after`. */
function tokensIn(stream: Stream, from: number, to: number, after = -1): [number, number] {
  const t = stream.tokens;
  let first = after + 1;
  while (first < t.length && t[first]!.start < from) first++;
  let last = first - 1;
  while (last + 1 < t.length && t[last + 1]!.start < to) last++;
  return [first, last];
}

/** A pause inside an utterance (seconds) at which another voice may start answering on a one-channel call. */
const TURN_PAUSE_SEC = 0.5;

/**
 * On a one-channel call, the last token of the question a cue is said in: the rest of its utterance up
 * to a pause of TURN_PAUSE_SEC. The answer starts after it ("which address should we use" + the
 * address: "should we use" is no address). *Case (issue 33): "should we use" was removed.*
 */
function questionEnd(stream: Stream, index: number): number {
  const t = stream.tokens;
  let k = index;
  while (k + 1 < t.length && t[k + 1]!.u === t[k]!.u && t[k + 1]!.start - t[k]!.end < TURN_PAUSE_SEC) k++;
  return k;
}

/** The windows the cues open: on the other speakers (answers) and, for first-person cues, on the speaker's own words (`channels`: as answer-windows.ts reads it). */
export function findWindows(streams: readonly Stream[], cues: readonly Cue[], channels = streams.length): Window[] {
  const windows: Window[] = [];
  const oneStream = channels === 1;
  cues.forEach((cue, k) => {
    const next = cues.slice(k + 1).find((o) => o.topic !== cue.topic && o.time > cue.time);
    const nextOwn = cues.slice(k + 1).find((o) => o.stream === cue.stream && o.time > cue.time);
    const end = Math.min(cue.time + ANSWER_WINDOW_SEC, next?.time ?? Infinity);
    // A weak cue ("this is", "I'm") speaks of the speaker only: it opens no answer window.
    for (const stream of cue.weak ? [] : streams) {
      if (stream === cue.stream && !oneStream) continue;
      const [first, last] = tokensIn(stream, cue.time, end, stream === cue.stream ? (cue.self ? cue.index : questionEnd(stream, cue.index)) : -1);
      if (first <= last) windows.push({ topic: cue.topic, cue, stream, first, last });
    }
    if (cue.self && (!oneStream || cue.weak)) {
      const selfEnd = Math.min(cue.time + SELF_WINDOW_SEC, nextOwn?.time ?? Infinity, next?.time ?? Infinity);
      const [first, last] = tokensIn(cue.stream, cue.time, selfEnd, cue.index);
      if (first <= last) windows.push({ topic: cue.topic, cue, stream: cue.stream, first, last });
    }
  });
  return windows;
}

/**
 * Whether a window can still take words said from `now` on: within ANSWER_WINDOW_SEC of its cue (the
 * longer of the two windows) and before the next cue of another topic. The reach of the personal-data
 * recognizers reads it (recognizer.ts).
 */
export function windowOpen(cues: readonly Cue[], w: Window, now: number): boolean {
  const next = cues.find((o) => o.topic !== w.cue.topic && o.time > w.cue.time);
  return Math.min(w.cue.time + ANSWER_WINDOW_SEC, next?.time ?? Infinity) > now;
}

/** The earliest cue of an open window of `topics` on `stream` (Infinity: none): what a recognizer reading windows still needs. */
export function openWindowsSince(cues: readonly Cue[], windows: readonly Window[], stream: Stream, topics: readonly PiiKind[], now: number): number {
  let since = Infinity;
  for (const w of windows) if (w.stream === stream && topics.includes(w.topic) && windowOpen(cues, w, now)) since = Math.min(since, w.cue.time);
  return since;
}
