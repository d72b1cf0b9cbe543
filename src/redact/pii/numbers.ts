/**
 * Numbers that are personal data by their context: phone numbers (`phone`), bank account and routing
 * numbers and IBANs (`bank`), passport, driver's licence and other ID numbers (`id`).
 * - Digit runs (digit-runs.ts, joined across pauses and turns as for cards) are named by the
 *   recognizers below, which extend the digit recognizers' list in precedence order: a run in a
 *   phone/bank/ID window (or after its cue) is of that kind; a phone number is also recognised by its
 *   shape alone (10 digits, or 11 starting with 1, as North American numbers are said).
 * - In those windows, letters and digits said together ("a b one two three", "g b eight two w e s t")
 *   are an ID or an IBAN: the answer from its first letter or digit to its last, misheard words between.
 */
import type { DigitRun, Stream } from '../digit-runs.js';
import type { PiiKind } from './context.js';
import type { Recognizer } from '../recognizer.js';
import { REPLIES } from './lexicon.js';
import { gap, isLetter, isNumber, isSingleLetter, openAnswerReach, piiRecognizer, type PiiSpan, type PiiView } from './spans.js';

/** What a digit-run recognizer knows of personal-data context: the topic whose window the run starts in. */
export interface PiiRunContext {
  topic?: PiiKind;
}

export interface PiiRunRecognizer {
  kind: 'phone' | 'bank' | 'id' | 'dob';
  matches(run: DigitRun, ctx: PiiRunContext): boolean;
}

/** ABA routing number checksum (3-7-1 weights), the validator of a 9-digit routing number. */
export function abaValid(d: string): boolean {
  if (!/^\d{9}$/.test(d)) return false;
  const w = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return [...d].reduce((s, c, i) => s + Number(c) * w[i]!, 0) % 10 === 0;
}

/** North American numbers as said: 10 digits (area code first, not 0 or 1), or 11 starting with 1. */
function phoneShaped(d: string): boolean {
  return /^[2-9]\d{9}$/.test(d) || /^1[2-9]\d{9}$/.test(d);
}

export const phoneRecognizer: PiiRunRecognizer = {
  kind: 'phone',
  matches: (run, ctx) => run.byLength === 'phone' || (ctx.topic === 'phone' && run.digits.length >= 3) || (ctx.topic === undefined && phoneShaped(run.digits)),
};
export const bankRecognizer: PiiRunRecognizer = {
  kind: 'bank',
  matches: (run, ctx) => ctx.topic === 'bank' && (run.digits.length >= 4 || abaValid(run.digits)),
};
export const idRecognizer: PiiRunRecognizer = { kind: 'id', matches: (run, ctx) => ctx.topic === 'id' && run.digits.length >= 3 };
export const dobRecognizer: PiiRunRecognizer = { kind: 'dob', matches: (run, ctx) => ctx.topic === 'dob' && run.digits.length >= 4 && run.digits.length <= 8 };

/** In precedence order, after the card recognizers and before `digits`. */
export const PII_RUN_RECOGNIZERS: readonly PiiRunRecognizer[] = [bankRecognizer, idRecognizer, phoneRecognizer, dobRecognizer];

/** The personal-data topic of the window a run starts in (the latest cue's). */
export function runTopic(view: Pick<PiiView, 'windows'>, run: DigitRun): PiiKind | undefined {
  let best: { topic: PiiKind; time: number } | undefined;
  for (const w of view.windows) {
    if (w.stream !== run.stream || run.first < w.first || run.first > w.last) continue;
    if (!best || w.cue.time > best.time) best = { topic: w.topic, time: w.cue.time };
  }
  return best?.topic;
}

const ALNUM_TOPICS = new Set<PiiKind>(['id', 'bank', 'phone']);
const ALNUM_PAUSE_SEC = 3;
/** Misheard words between the letters and digits of one answer ("a b um one two"). */
const MAX_MISHEARD = 3;

/** Letters and digits answering an ID, bank or phone question. */
export function recognizeAlphanumerics(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const w of view.windows) {
    if (!ALNUM_TOPICS.has(w.topic)) continue;
    const t = w.stream.tokens;
    const part = (k: number) => isNumber(t[k]) || isSingleLetter(t[k]) || (isLetter(t[k]) && (isNumber(t[k - 1]) || isNumber(t[k + 1]) || isSingleLetter(t[k + 1])));
    let from = -1;
    let to = -1;
    for (let k = w.first; k <= w.last; k++) {
      if (REPLIES.has(t[k]!.key)) break;
      if (!part(k)) {
        if (from >= 0 && k - to > MAX_MISHEARD) break;
        continue;
      }
      if (from >= 0 && gap(t[to]!, t[k]!) > ALNUM_PAUSE_SEC) break;
      if (from < 0) from = k;
      to = k;
    }
    if (from >= 0 && t.slice(from, to + 1).filter((_, k) => part(from + k)).length >= 3) {
      out.push({ kind: w.topic, stream: w.stream, from, to });
    }
  }
  return out;
}

/**
 * How far back letters and digits said from `now` on reach: in an open ID, bank or phone window, the
 * answer so far (fewer than three of its letters and digits may yet become three), while the next part
 * can still follow within ALNUM_PAUSE_SEC.
 */
function alphanumericReach(view: PiiView, stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  return now - t[t.length - 1]!.end > ALNUM_PAUSE_SEC ? t.length : openAnswerReach(view, stream, [...ALNUM_TOPICS], now);
}

export const alphanumericRecognizer: Recognizer = piiRecognizer('letters and digits', ['id', 'bank', 'phone'], recognizeAlphanumerics, alphanumericReach, [...ALNUM_TOPICS]);
