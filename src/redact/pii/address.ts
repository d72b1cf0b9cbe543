/**
 * Street addresses and postcodes (kind `address`). Two ways in:
 * - the street pattern anywhere: a house number, one to four name words and a street type ("42 maple
 *   street", "forty two north oak avenue"), then what follows it — unit ("apartment 4 b"), city,
 *   state, ZIP digits — up to a function word or a pause;
 * - an address question or cue ("what's your address", "I live at", "zip code"): the answer
 *   (spans.ts `answerSpan`: after "yes it is", up to a pause or a reply), misheard words included,
 *   when it holds an address word (a number, a street type, a state, a name-like word).
 * A street named without a number and outside an address window ("the shop on main street") is kept.
 */
import type { Stream, StreamToken } from '../digit-runs.js';
import { DIRECTIONS, NOT_A_NAME, REPLIES, STATE_PAIRS, STATES, STREET_TYPES, UNIT_WORDS } from './lexicon.js';
import { answerSpan, continues, gap, isLetter, isNumber, nameLike, openAnswerReach, piiRecognizer, type PiiSpan, type PiiView } from './spans.js';
import type { Recognizer } from '../recognizer.js';

const ADDRESS_PAUSE_SEC = 1.5;
/** Most tokens of one address (number, street, unit, city, state, ZIP said digit by digit). */
const MAX_ADDRESS_TOKENS = 30;
/** Function words that may sit inside an address ("in springfield", "apartment number 4"). */
const INSIDE = new Set(['in', 'of', 'the', 'number', 'and', 'at', 'on']);

function addressWord(t: readonly StreamToken[], i: number): boolean {
  const k = t[i]!.key;
  return isNumber(t[i]) || STREET_TYPES.has(k) || STATES.has(k) || STATE_PAIRS.has(`${k}_${t[i + 1]?.key}`) || STATE_PAIRS.has(`${t[i - 1]?.key}_${k}`) ||
    UNIT_WORDS.has(k) || DIRECTIONS.has(k) || isLetter(t[i]) || nameLike(t[i]);
}

/** From `from`, the last index of the address: address words, single function words between them. */
function extend(t: readonly StreamToken[], from: number, last: number): number {
  let end = from;
  for (let j = from + 1; j <= last && j - from < MAX_ADDRESS_TOKENS; j++) {
    if (!continues(t, j, ADDRESS_PAUSE_SEC) || REPLIES.has(t[j]!.key)) break;
    if (addressWord(t, j)) end = j;
    else if (!(INSIDE.has(t[j]!.key) && j + 1 <= last && addressWord(t, j + 1))) break;
  }
  return end;
}

/** "42 maple street": a number, 1–4 name words, a street type. Returns [from, streetTypeIndex]. */
function streetAt(t: readonly StreamToken[], i: number): [number, number] | undefined {
  if (!isNumber(t[i])) return undefined;
  let j = i;
  while (j + 1 < t.length && isNumber(t[j + 1]) && gap(t[j]!, t[j + 1]!) < 1) j++;
  for (let k = j + 1; k < t.length && k <= j + 5 && gap(t[k - 1]!, t[k]!) < ADDRESS_PAUSE_SEC; k++) {
    if (STREET_TYPES.has(t[k]!.key) && k > j + 1) return [i, k];
    if (!nameLike(t[k]) && !DIRECTIONS.has(t[k]!.key)) return undefined;
  }
  return undefined;
}

function inWindow(view: PiiView, stream: Stream, i: number): boolean {
  return view.windows.some((w) => w.topic === 'address' && w.stream === stream && i >= w.first && i <= w.last);
}

export function recognizeAddresses(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    const t = stream.tokens;
    for (let i = 0; i < t.length; i++) {
      const street = streetAt(t, i);
      if (!street) continue;
      // After the street: unit, city, state, ZIP while the words look like an address.
      let end = street[1];
      let last = end;
      while (last + 1 < t.length && last - end < 12 && t[last + 1]!.u === t[end]!.u) last++;
      end = extend(t, end, inWindow(view, stream, i) ? t.length - 1 : last);
      out.push({ kind: 'address', stream, from: street[0], to: end });
      i = end;
    }
  }
  // A city and state followed by a ZIP ("portland oregon nine seven two oh one"), street or no street.
  for (const stream of view.streams) {
    const t = stream.tokens;
    for (let i = 1; i < t.length; i++) {
      const pair = STATE_PAIRS.has(`${t[i - 1]!.key}_${t[i]!.key}`);
      if (!STATES.has(t[i]!.key) && !pair) continue;
      let z = i + 1;
      let digits = '';
      while (z < t.length && isNumber(t[z]) && continues(t, z, ADDRESS_PAUSE_SEC)) digits += t[z++]!.digits || t[z - 1]!.key.replace(/\D/g, '');
      if (digits.length < 5) continue;
      const city = pair ? i - 2 : i - 1;
      const from = city >= 0 && nameLike(t[city]) && t[city]!.u === t[i]!.u ? city : i - (pair ? 1 : 0);
      out.push({ kind: 'address', stream, from, to: z - 1 });
    }
  }
  // The answer to an address question, misheard words and all ("for seventeen april wey austin texas").
  for (const w of view.windows) {
    if (w.topic !== 'address') continue;
    const t = w.stream.tokens;
    const a = answerSpan(t, w.first, w.last);
    if (!a || !t.slice(a[0], a[1] + 1).some((_, k) => addressWord(t, a[0] + k) && !NOT_A_NAME.has(t[a[0] + k]!.key))) continue;
    out.push({ kind: 'address', stream: w.stream, from: a[0], to: Math.max(a[1], extend(t, a[0], w.last)) });
  }
  return out;
}

/**
 * How far back an address completed by words said from `now` on reaches: a street type said within
 * ADDRESS_PAUSE_SEC makes the house number and up to four words before it a street ("42 maple" +
 * "street"); ZIP digits make the city and state before them an address ("portland oregon" + "nine
 * seven two oh one"); in an open address window the answer so far becomes one.
 */
function addressReach(view: PiiView, stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  let open = openAnswerReach(view, stream, ['address'], now);
  if (now - t[t.length - 1]!.end >= ADDRESS_PAUSE_SEC) return open;
  const close = (i: number) => i === t.length - 1 || gap(t[i]!, t[i + 1]!) < ADDRESS_PAUSE_SEC;
  let k = t.length - 1;
  while (k >= 0 && t.length - 1 - k < 5 && !isNumber(t[k]) && (nameLike(t[k]) || DIRECTIONS.has(t[k]!.key)) && close(k)) k--;
  if (k >= 0 && isNumber(t[k]) && close(k)) {
    while (k > 0 && isNumber(t[k - 1]) && gap(t[k - 1]!, t[k]!) < 1) k--;
    open = Math.min(open, k);
  }
  // A state, maybe with some of its ZIP's digits, at the end: its city before it.
  let z = t.length - 1;
  while (z > 0 && isNumber(t[z])) z--;
  if (STATES.has(t[z]!.key) || STATE_PAIRS.has(`${t[z - 1]?.key}_${t[z]!.key}`)) open = Math.min(open, Math.max(0, z - 2));
  return open;
}

export const addressRecognizer: Recognizer = piiRecognizer('addresses', ['address'], recognizeAddresses, addressReach, ['address']);
