/**
 * Dates of birth (kind `dob`): a date said in a birth context — the answer to "date of birth?", or
 * after "I was born", "my birthday is". A date is month names, ordinals, numbers (words or numerals,
 * "3/15/1985"), "of", "the", "slash"; it needs a month or two numbers. Dates anywhere else (a due
 * date, an appointment) are ordinary talk and kept.
 */
import { MONTHS, ORDINALS } from '../../numbers/lexicon.js';
import type { StreamToken } from '../digit-runs.js';
import { gap, isNumber, type PiiSpan, type PiiView } from './spans.js';

const MONTH_SET = new Set<string>([...MONTHS, 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);
const JOINERS = new Set(['of', 'the', 'slash', 'dash', 'and']);
/** Number words a year or day is said with besides digits ("nineteen eighty five", "two thousand"). */
const NUMBER_WORDS = new Set(['hundred', 'thousand', 'oh', 'zero']);
const DATE_PAUSE_SEC = 1.5;

function dateWord(t: StreamToken): boolean {
  return MONTH_SET.has(t.key) || t.key in ORDINALS || /^\d+(st|nd|rd|th)$/.test(t.key) || isNumber(t) || NUMBER_WORDS.has(t.key) || t.kind === 'quantity';
}

export function recognizeDatesOfBirth(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const w of view.windows) {
    if (w.topic !== 'dob') continue;
    const t = w.stream.tokens;
    for (let k = w.first; k <= w.last; k++) {
      if (!dateWord(t[k]!) || JOINERS.has(t[k]!.key)) continue;
      let end = k;
      for (let j = k + 1; j <= w.last && gap(t[j - 1]!, t[j]!) <= DATE_PAUSE_SEC; j++) {
        if (dateWord(t[j]!)) end = j;
        else if (!(JOINERS.has(t[j]!.key) && j + 1 <= w.last && dateWord(t[j + 1]!))) break;
      }
      const words = t.slice(k, end + 1);
      if (words.some((x) => MONTH_SET.has(x.key)) || words.filter((x) => !JOINERS.has(x.key)).length >= 2 || t[k]!.key.replace(/\D/g, '').length >= 6) {
        out.push({ kind: 'dob', stream: w.stream, from: k, to: end, score: 0.9 });
      }
      break;
    }
  }
  return out;
}
