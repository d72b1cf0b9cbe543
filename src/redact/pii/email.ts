/**
 * Emails and web addresses (kind `email`), written ("john.smith@gmail.com", a word the ASR wrote with
 * "@" or ending in ".com") or spoken ("john dot smith at gmail dot com", "j o h n at yahoo dot co dot
 * uk"). The end is "dot" + a top-level domain (also spelled: "dot c o m"), a mail provider's name, or
 * a written address; the start is found by walking back over the local part (names, letters, digits,
 * "dot", "underscore", "dash") to a function word, a pause or a cue. A spoken address needs "at" (or
 * a provider) inside it, or an email question or cue before it: "amazon dot com" alone is a shop.
 */
import type { Stream, StreamToken } from '../digit-runs.js';
import { EMAIL_SYMBOLS, FILLERS, LETTER_WORDS, MAIL_DOMAINS, NOT_A_NAME, TLDS } from './lexicon.js';
import type { Window } from './context.js';
import { answerSpan, gap, isLetter, isNumber, openAnswerReach, piiRecognizer, rawWord, type PiiSpan, type PiiView } from './spans.js';
import type { Recognizer } from '../recognizer.js';

/** How the ASR hears "dot com" said fast: "not come", "dot calm", "dot's come". */
const DOT_HEARD = new Set(['not', 'dog', 'dart', 'dock', "dot's", 'dots']);
const COM_HEARD = new Set(['come', 'calm', 'comb', 'cam']);
const WRITTEN = /@|^[\w.+-]+\.(com|net|org|edu|gov|co|uk|us|io|ca|info|biz)$/i;
/** Most tokens of a spoken email's local part and domain. */
const MAX_EMAIL_TOKENS = 30;
const EMAIL_PAUSE_SEC = 2;
/**
 * The longest pause before an address's "at" across which a local part said before it still goes with
 * it ("chidi dot okonkwo" + the agent's "okay" + "at yahoo dot com"), when the words before read as one
 * ("x dot y", "x underscore y", spelled letters).
 */
export const SPLIT_EMAIL_PAUSE_SEC = 6;

/** The pause between k - 1 and k may be crossed: a short one, or the one before "at" after a local part. */
function crossable(t: readonly StreamToken[], k: number): boolean {
  const pause = gap(t[k - 1]!, t[k]!);
  if (pause <= EMAIL_PAUSE_SEC) return true;
  const local = EMAIL_SYMBOLS.has(t[k - 2]?.key ?? '') || (isLetter(t[k - 1]) && isLetter(t[k - 2]));
  return t[k]!.key === 'at' && pause <= SPLIT_EMAIL_PAUSE_SEC && emailPart(t[k - 1]!) && local;
}

/** The index of the last token of a top-level domain said at i ("com", "c o m", "co dot uk"), else -1. */
function tldEnd(t: readonly StreamToken[], i: number): number {
  let end = -1;
  if (TLDS.has(t[i]?.key ?? '') || COM_HEARD.has(t[i]?.key ?? '')) end = i;
  else {
    // Spelled: "c o m", "n e t" (the longest that is a domain: "c o m a f" → "com").
    let s = '';
    for (let j = i; j < t.length && j < i + 4 && isLetter(t[j]); j++) {
      s += LETTER_WORDS[t[j]!.key] ?? t[j]!.key[0];
      if (TLDS.has(s)) end = j;
    }
  }
  if (end >= 0 && t[end + 1]?.key === 'dot' && TLDS.has(t[end + 2]?.key ?? '')) end += 2;
  return end;
}

/** A token that may be part of an email's local part or domain. */
function emailPart(t: StreamToken): boolean {
  return EMAIL_SYMBOLS.has(t.key) || isLetter(t) || isNumber(t) || MAIL_DOMAINS.has(t.key) || (t.key !== '' && !NOT_A_NAME.has(t.key) && !FILLERS.has(t.key));
}

/**
 * Walks back from `end` over the address; `stop` is the first index it may not cross. One short
 * function word between address words is crossed ("maria those reed at…": a "dot" misheard), and a
 * pause before "at" up to SPLIT_EMAIL_PAUSE_SEC after a local part.
 */
function startOf(t: readonly StreamToken[], end: number, stop: number): number {
  let k = end;
  for (;;) {
    if (k - 1 <= stop || end - k >= MAX_EMAIL_TOKENS || !crossable(t, k)) break;
    if (emailPart(t[k - 1]!)) k--;
    else if (k - 2 > stop && t[k - 1]!.key.length <= 5 && !FILLERS.has(t[k - 1]!.key) && emailPart(t[k - 2]!) && !NOT_A_NAME.has(t[k - 2]!.key) && gap(t[k - 2]!, t[k - 1]!) <= 0.5) k -= 2;
    else break;
  }
  return k;
}

function windowOf(view: PiiView, stream: Stream, i: number): Window | undefined {
  return view.windows.find((w) => w.topic === 'email' && w.stream === stream && i >= w.first && i <= w.last);
}

/** The email cue said by this stream last before i (its index), or -1. */
function cueBefore(view: PiiView, stream: Stream, i: number): number {
  let c = -1;
  for (const cue of view.cues) if (cue.stream === stream && cue.index < i) c = cue.index;
  return c;
}

/** Whether tokens [from, end] hold what makes them an email: spelled letters, two dots, "at", a mail provider. */
function evidence(t: readonly StreamToken[], from: number, end: number): boolean {
  const words = t.slice(from, end + 1).map((x) => x.key);
  const spelled = t.slice(from, end + 1).filter((x) => isLetter(x)).length >= 3;
  return spelled || words.filter((k) => k === 'dot').length >= 2 || words.includes('at') || words.some((k) => MAIL_DOMAINS.has(k) || /mail$/.test(k));
}

export function recognizeEmails(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    const t = stream.tokens;
    for (let i = 0; i < t.length; i++) {
      const written = WRITTEN.test(rawWord(view, t[i]!));
      let end = -1;
      if (written) end = i;
      else if (i > 0 && (t[i]!.key === 'dot' || t[i]!.key === 'period' || (DOT_HEARD.has(t[i]!.key) && COM_HEARD.has(t[i + 1]?.key ?? '')))) end = tldEnd(t, i + 1);
      else if (t[i]!.key === 'dotcom') end = i;
      // "at icloud com": the "dot" lost between a mail provider and its domain.
      else if (MAIL_DOMAINS.has(t[i]!.key) && TLDS.has(t[i + 1]?.key ?? '')) end = i + 1;
      if (end < 0) continue;
      // Inside an answer to "what's your email?", the answer starts it ("please ah …" misheard from the name).
      const w = windowOf(view, stream, i);
      const answer = w ? answerSpan(t, w.first, w.last) : undefined;
      const walked = written && !w ? i : startOf(t, i, cueBefore(view, stream, i));
      const from = answer && answer[0] < walked ? answer[0] : walked;
      if (!written && !w && !evidence(t, from, end)) continue;
      out.push({ kind: 'email', stream, from, to: end });
      i = end;
    }
  }
  // An answer to an email question in which no address could be read ("patric's not caught and i glove not come"): the answer itself.
  for (const w of view.windows) {
    if (w.topic !== 'email' || !w.cue.asks || out.some((s) => s.stream === w.stream && s.to >= w.first && s.from <= w.last)) continue;
    const a = answerSpan(w.stream.tokens, w.first, w.last);
    if (a) out.push({ kind: 'email', stream: w.stream, from: a[0], to: a[1] });
  }
  return out;
}

/** Words after which a top-level domain ends an email, however long after ("john smith at gmail dot" … "com"). */
const ENDS_BEFORE_TLD = (t: StreamToken) => t.key === 'dot' || t.key === 'period' || DOT_HEARD.has(t.key) || MAIL_DOMAINS.has(t.key);

/**
 * How far back an email ended by words said from `now` on reaches: an end said within EMAIL_PAUSE_SEC
 * (an "at" within SPLIT_EMAIL_PAUSE_SEC after a local part) walks back over the words before it
 * (startOf, from a word at `now`); a "dot" or a provider among the
 * last words waits for its domain; in an open email window the answer so far is the email's start.
 */
function emailReach(view: PiiView, stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  const last = t[t.length - 1]!;
  const stop = cueBefore(view, stream, t.length);
  let open = t.length;
  if (now - last.end <= EMAIL_PAUSE_SEC) open = startOf([...t, { ...last, start: now, end: now, key: 'dot' }], t.length, stop);
  // An "at" said up to SPLIT_EMAIL_PAUSE_SEC after a local part ("chidi dot okonkwo" + "okay" + "at yahoo dot com").
  else if (now - last.end <= SPLIT_EMAIL_PAUSE_SEC) open = startOf([...t, { ...last, start: now, end: now, key: 'at' }], t.length, stop);
  for (let i = Math.max(1, t.length - 3); i < t.length; i++) {
    if (!ENDS_BEFORE_TLD(t[i]!) || !t.slice(i + 1).every((x) => isLetter(x))) continue;
    const from = startOf(t, i, stop);
    if (evidence(t, from, t.length - 1) || t[i]!.key === 'dot') open = Math.min(open, from);
  }
  return Math.min(open, openAnswerReach(view, stream, ['email'], now));
}

export const emailRecognizer: Recognizer = piiRecognizer('emails', ['email'], recognizeEmails, emailReach, ['email']);
