/**
 * Dates of birth (kind `dob`): a date said in a birth context — the answer to "date of birth?", or
 * after "I was born", "my birthday is". A date is month names, ordinals, numbers (words or numerals,
 * "3/15/1985"), "of", "the", "slash"; it needs a month or two numbers. Dates anywhere else (a due
 * date, an appointment) are ordinary talk and kept.
 */
import { MONTHS, ORDINALS } from '../../numbers/lexicon.js';
import type { Stream, StreamToken } from '../digit-runs.js';
import { answerSpan, gap, isNumber, openAnswerReach, piiRecognizer, type PiiSpan, type PiiView } from './spans.js';
import type { Recognizer } from '../recognizer.js';

const MONTH_SET = new Set<string>([...MONTHS, 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);
const JOINERS = new Set(['of', 'the', 'slash', 'dash', 'and']);
/** Number words a year or day is said with besides digits ("nineteen eighty five", "two thousand"). */
const NUMBER_WORDS = new Set(['hundred', 'thousand', 'oh', 'zero']);
const DATE_PAUSE_SEC = 1.5;

function dateWord(t: StreamToken): boolean {
  return MONTH_SET.has(t.key) || t.key in ORDINALS || /^\d+(st|nd|rd|th)$/.test(t.key) || isNumber(t) || NUMBER_WORDS.has(t.key) || t.kind === 'quantity';
}

/** The last year a date said in full is taken for a date of birth without a birth cue (a customer is an adult). */
const LAST_BIRTH_YEAR = 2012;

/**
 * A full date anywhere — month, day, a year from 1900 to LAST_BIRTH_YEAR ("january eleventh nineteen
 * fifty", "3/15/1985") — is a date of birth even when the question was not heard: due dates and
 * appointments are said without such a year. [from, to] of the date at month index i, or undefined.
 */
function fullDateAt(t: readonly StreamToken[], i: number): [number, number] | undefined {
  const isDay = (x: StreamToken | undefined) => x !== undefined && (x.key in ORDINALS || /^\d{1,2}(st|nd|rd|th)?$/.test(x.key) || x.kind === 'digit');
  let from = i;
  let k: number;
  if (MONTH_SET.has(t[i]!.key)) {
    // "january eleventh 1950", "january the 11th 1950"
    const j = t[i + 1]?.key === 'the' ? i + 2 : i + 1;
    if (!isDay(t[j])) return undefined;
    k = j + 1;
  } else if (isDay(t[i]) && t[i + 1]?.key === 'of' && MONTH_SET.has(t[i + 2]?.key ?? '')) {
    // "the seventh of april 1950"
    k = i + 3;
    if (t[i - 1]?.key === 'the') from = i - 1;
  } else return undefined;
  let year = '';
  while (k < t.length && year.length < 4 && (t[k]!.kind === 'digit' || t[k]!.kind === 'quantity' || /^\d+$/.test(t[k]!.key)) && gap(t[k - 1]!, t[k]!) <= DATE_PAUSE_SEC) {
    year += t[k]!.digits || t[k]!.key.replace(/\D/g, '');
    k++;
  }
  const y = Number(year);
  return year.length === 4 && y >= 1900 && y <= LAST_BIRTH_YEAR ? [from, k - 1] : undefined;
}

/** Words that say a birth date is coming ("i was born on", "my birthday is"), and the joiners after them. */
const BIRTH_PREAMBLE = new Set(['born', 'birthday', 'birth', 'is', 'was', "it's", 'its']);
const LEAD_JOINERS = new Set(['on', 'in', 'the', 'of']);

/**
 * Where misheard words of a date before its first date word at k start: after the answer's preamble
 * ("i was born on" + date keeps "i was born on"), at `from` when there is none.
 */
function afterPreamble(t: readonly StreamToken[], from: number, k: number): number {
  let start = from;
  for (let j = k - 1; j >= from; j--) {
    if (BIRTH_PREAMBLE.has(t[j]!.key)) {
      start = j + 1;
      break;
    }
  }
  while (start < k && LEAD_JOINERS.has(t[start]!.key)) start++;
  return start;
}

export function recognizeDatesOfBirth(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    for (let i = 0; i < stream.tokens.length; i++) {
      const d = fullDateAt(stream.tokens, i);
      if (d) out.push({ kind: 'dob', stream, from: d[0], to: d[1] });
    }
  }
  for (const w of view.windows) {
    if (w.topic !== 'dob') continue;
    const t = w.stream.tokens;
    for (let k = w.first; k <= w.last; k++) {
      if (!dateWord(t[k]!) || JOINERS.has(t[k]!.key)) continue;
      let end = k;
      for (let j = k + 1; j <= w.last && gap(t[j - 1]!, t[j]!) <= DATE_PAUSE_SEC; j++) {
        if (dateWord(t[j]!)) end = j;
        // A joiner, or one misheard word, before more of the date ("ten minutes of december" for "the tenth of december").
        else if (!((JOINERS.has(t[j]!.key) && j + 1 <= w.last && dateWord(t[j + 1]!)) || [1, 2].some((d) => j + d <= w.last && MONTH_SET.has(t[j + d]!.key)))) break;
      }
      const words = t.slice(k, end + 1);
      if (words.some((x) => MONTH_SET.has(x.key)) || words.filter((x) => !JOINERS.has(x.key)).length >= 2 || t[k]!.key.replace(/\D/g, '').length >= 6) {
        // The answer's words before the date in its utterance are the date misheard ("i can not do i 1985").
        const a = answerSpan(t, w.first, w.last);
        const from = a && a[0] < k && t[a[0]]!.u === t[k]!.u ? afterPreamble(t, a[0], k) : k;
        out.push({ kind: 'dob', stream: w.stream, from, to: end });
        break;
      }
      k = end;
    }
  }
  return out;
}

/**
 * How far back a date of birth completed by words said from `now` on reaches: a year said within
 * DATE_PAUSE_SEC after a month and a day makes them a full date ("january eleventh" + "nineteen
 * fifty"); in an open birth-date window the answer so far becomes one.
 */
function dateReach(view: PiiView, stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  let open = openAnswerReach(view, stream, ['dob'], now);
  if (now - t[t.length - 1]!.end > DATE_PAUSE_SEC) return open;
  // "the seventh of april" or "january the eleventh": a month among the last four words with only a
  // date's words after it (fullDateAt), and the day and "the" before it.
  for (let i = Math.max(0, t.length - 4); i < t.length; i++) {
    if (MONTH_SET.has(t[i]!.key) && t.slice(i + 1).every((x) => x.key === 'the' || dateWord(x))) return Math.min(open, Math.max(0, i - 3));
  }
  return open;
}

export const dobRecognizer: Recognizer = piiRecognizer('dates of birth', ['dob'], recognizeDatesOfBirth, dateReach, ['dob']);
