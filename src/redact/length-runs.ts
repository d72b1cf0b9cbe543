/**
 * Digit runs by length (docs/redaction.md, "How runs are found", 5): what digit-runs.ts joins by
 * pauses, fillers and answer windows, named by the length the pieces of one speaker's number add up
 * to, cue or not — a card (15, 16), an SSN (9), a phone number with a digit heard as words, a long
 * number read in pieces — and `digitRuns`, the runs every recognizer reads. Pure functions of the
 * streams so far; `lengthChainFirst` is what a live call holds for them (engine.ts).
 */
import { FILLERS, GROUP_GAP_SEC, inWords, MONTH_SET, RUN_WINDOW_SEC, streamRuns, type DigitRun, type RunHints, type Stream, type StreamToken } from './digit-runs.js';

const NO_HINTS: RunHints = { breaks: () => false, window: () => undefined };

/** Digit runs of every stream: adjacent digit words, then groups joined as FILLERS/RUN_WINDOW_SEC allow (digit-runs.ts), then by length (phoneByLength, joinByLength, longInPieces). */
export function digitRuns(streams: readonly Stream[], hints: RunHints = NO_HINTS): DigitRun[] {
  return streams.flatMap((stream) => longInPieces(joinByLength(phoneByLength(streamRuns(stream, hints)), hints), hints));
}

/** Digit counts a card number is said with (American Express 15, the rest 16); an SSN's. */
export const CARD_LENGTHS: ReadonlySet<number> = new Set([15, 16]);
export const SSN_LENGTH = 9;
/** The longest stretch (first digit to last, seconds) whose numbers add up to a card or an SSN: an answer read in groups with chatter between. */
export const LENGTH_STRETCH_SEC = 60;
/** Words of an utterance between two groups that may be digits misheard ("the vero" for "zero", "sakes" for "six"). */
const MISHEARD_MAX_WORDS = 2;
/** Digits at most that may have been misheard as words for a stretch to be taken as a card or an SSN. */
const MISHEARD_MAX_DIGITS = 3;

/**
 * The tokens between runs p and r said as utterances of their own of at most MISHEARD_MAX_WORDS
 * words, not all fillers, no quantity or month ("the vero", "sakes"): digits the ASR misheard as words, maybe.
 */
function misheardBetween(t: readonly StreamToken[], p: DigitRun, r: DigitRun): number[] {
  const out: number[] = [];
  for (let k = p.last + 1; k < r.first; ) {
    let e = k;
    while (e + 1 < r.first && t[e + 1]!.u === t[k]!.u) e++;
    const whole = (k === 0 || t[k - 1]!.u !== t[k]!.u) && (e + 1 >= t.length || t[e + 1]!.u !== t[e]!.u);
    const words = t.slice(k, e + 1);
    const ordinary = words.every((x) => x.kind !== 'quantity' && !MONTH_SET.has(x.key)) && words.some((x) => !FILLERS.has(x.key));
    if (whole && words.length <= MISHEARD_MAX_WORDS && ordinary) for (let x = k; x <= e; x++) out.push(x);
    k = e + 1;
  }
  return out;
}

/** A run that counts toward a card's or an SSN's length: not a lone digit inside ordinary words ("I have 2 kids"). */
const counts = (r: DigitRun) => !(r.digits.length < 2 && r.first === r.last && (inWords(r.stream.tokens, r.first, 1) || inWords(r.stream.tokens, r.first, -1)));

/** Run r cut after its utterances holding its first `n` digits (an utterance boundary there), else undefined. */
function splitRun(r: DigitRun, n: number): [DigitRun, DigitRun] | undefined {
  const t = r.stream.tokens;
  let d = 0;
  for (let k = r.first; k < r.last; k++) {
    d += t[k]!.digits.length;
    if (d > n) return undefined;
    const next = t.slice(k + 1, r.last + 1).findIndex((x) => x.digits !== '') + k + 1;
    if (d === n && t[k]!.digits !== '' && t[next]!.u !== t[k]!.u) {
      const pieces = (a: number, b: number) => new Set(t.slice(a, b + 1).filter((x) => x.kind === 'digit').map((x) => x.u)).size;
      return [
        { ...r, last: k, digits: r.digits.slice(0, n), end: t[k]!.end, pieces: pieces(r.first, k) },
        { ...r, first: next, digits: r.digits.slice(n), start: t[next]!.start, pieces: pieces(next, r.last) },
      ];
    }
  }
  return undefined;
}

/**
 * Failing closed without a cue (the ASR heard "car number", or nothing was asked): consecutive runs of
 * one speaker, each within RUN_WINDOW_SEC of the last, LENGTH_STRETCH_SEC in all, no topic word said
 * between, whose digits add up to a card's length (15, 16) or an SSN's (9) are each of that kind
 * (docs/redaction.md, "How runs are found"); so are they when up to MISHEARD_MAX_DIGITS digits short of
 * it with as many words between them said as short utterances of their own (digits misheard: "the
 * vero", "sakes"), and those words with them. Other words between keep their words. The longest card
 * stretch from each run wins, then the longest SSN one; a lone digit inside ordinary words ("I have 2
 * kids") neither counts nor breaks.
 */
export function joinByLength(given: readonly DigitRun[], hints: RunHints): DigitRun[] {
  let runs = given;
  const out: DigitRun[] = [];
  const maxCard = Math.max(...CARD_LENGTHS);
  const minCard = Math.min(...CARD_LENGTHS);
  for (let i = 0; i < runs.length; ) {
    // A phone number by length (phoneByLength) is no part of a card or an SSN.
    if (runs[i]!.byLength) {
      out.push(runs[i++]!);
      continue;
    }
    let card = -1;
    let ssn = -1;
    let total = 0;
    const misheard: number[][] = [];
    for (let j = i; j < runs.length; j++) {
      const r = runs[j]!;
      if (j > i) {
        const p = runs[j - 1]!;
        if (r.byLength || r.start - p.end > RUN_WINDOW_SEC || r.end - runs[i]!.start > LENGTH_STRETCH_SEC || hints.breaks(r.stream.speaker, p.end, r.start)) break;
        misheard.push(misheardBetween(r.stream.tokens, p, r));
      }
      if (j === i && !counts(r)) break;
      if (counts(r) && j > i && total + r.digits.length > maxCard) {
        // One number's last groups joined with the next one's first ("…990 3" + "537"): the utterances
        // that complete a card's length go with it, the rest is a run of its own.
        const need = [...CARD_LENGTHS].sort((a, b) => b - a).map((n) => n - total).find((n) => splitRun(r, n));
        if (need !== undefined) {
          const [head, rest] = splitRun(r, need)!;
          runs = [...runs.slice(0, j), head, rest, ...runs.slice(j + 1)];
          total += need;
          card = j;
        }
        break;
      }
      if (counts(r)) total += r.digits.length;
      if (total > maxCard) break;
      const slack = Math.min(MISHEARD_MAX_DIGITS, misheard.reduce((n, m) => n + m.length, 0));
      if (j > i && (CARD_LENGTHS.has(total) || (total < minCard && total + slack >= minCard && total >= minCard - MISHEARD_MAX_DIGITS))) card = j;
      if (j > i && (total === SSN_LENGTH || (total < SSN_LENGTH && total + slack >= SSN_LENGTH && total >= SSN_LENGTH - MISHEARD_MAX_DIGITS))) ssn = j;
    }
    const last = card >= 0 ? card : ssn;
    if (last < 0) {
      out.push(runs[i]!);
      i++;
      continue;
    }
    const byLength = card >= 0 ? 'card' : 'ssn';
    const stream = runs[i]!.stream;
    for (let j = i; j <= last; j++) {
      const r = runs[j]!;
      out.push(counts(r) ? { ...r, byLength } : r);
      // The words that may be misheard digits go with them (their text and their audio), as runs of no digits.
      if (j < last) for (const k of misheard[j - i]!) out.push({ stream, first: k, last: k, digits: '', start: stream.tokens[k]!.start, end: stream.tokens[k]!.end, pieces: 1, byLength });
    }
    i = last + 1;
  }
  return out;
}

/**
 * The earliest of one stream's runs (in order) that digits said from `at` on could still make part of a
 * card or an SSN by length (joinByLength's links, read back from the last run): what a live call must
 * hold until no digit can follow (docs/redaction.md, "The engine"). Undefined when no digit said at
 * `at` could link to the last run, or the runs already hold a card's length.
 */
export function lengthChainFirst(runs: readonly DigitRun[], at: number, hints: RunHints): DigitRun | undefined {
  const last = runs[runs.length - 1];
  if (!last || !counts(last) || at - last.end > RUN_WINDOW_SEC || hints.breaks(last.stream.speaker, last.end, at)) return undefined;
  let first = runs.length - 1;
  let total = last.digits.length;
  for (let j = runs.length - 2; j >= 0; j--) {
    const r = runs[j]!;
    const n = runs[j + 1]!;
    if (n.start - r.end > RUN_WINDOW_SEC || at - r.start > LENGTH_STRETCH_SEC || hints.breaks(r.stream.speaker, r.end, n.start)) break;
    if (counts(r)) total += r.digits.length;
    if (total >= Math.max(...CARD_LENGTHS)) break;
    first = j;
  }
  return at - runs[first]!.start > LENGTH_STRETCH_SEC || total >= Math.max(...CARD_LENGTHS) && first === runs.length - 1 ? undefined : runs[first];
}

/** Words at most inside a phone number that may be a digit misheard ("near a" for "zero"). */
const PHONE_MISHEARD_WORDS = 2;

/**
 * `digits` heard and 1–2 ordinary words among them (`words`) that may be the digits missing from a
 * phone number's length (one word or two for each: "near a" for "zero").
 */
function phoneWithMisheard(digits: string, words: readonly StreamToken[]): boolean {
  const misheard = words.length >= 1 && words.length <= PHONE_MISHEARD_WORDS && words.every((x) => x.kind === 'word' && !FILLERS.has(x.key) && !MONTH_SET.has(x.key));
  const target = digits.startsWith('1') ? 11 : /^[2-9]/.test(digits) ? 10 : 0;
  const missing = target - digits.length;
  return misheard && digits.length >= 8 && missing >= 1 && missing <= words.length;
}

/**
 * A phone number with a digit misheard as words ("five five five eight six seven five three near a
 * nine" for "…five three zero nine"): two runs of one speaker said together (at most
 * PHONE_MISHEARD_WORDS ordinary words between them, each within GROUP_GAP_SEC of the next) whose
 * digits fall short of a phone number's length (10; 11 starting with 1) by no more digits than there
 * are words, 8 digits heard at least, are each `phone`, the words between with them; so is one run joined across such words (in an
 * answer window) (docs/pii.md; *case (issue 33): the last digit of such a number stayed*). Runs already
 * named by length are left alone; joinByLength runs after it and leaves these alone.
 */
export function phoneByLength(runs: readonly DigitRun[]): DigitRun[] {
  const out: DigitRun[] = [];
  for (let i = 0; i < runs.length; i++) {
    const p = runs[i]!;
    const r = runs[i + 1];
    const t = p.stream.tokens;
    // One run already joined across the misheard words (inside an answer window): its inner words count.
    if (!p.byLength && phoneWithMisheard(p.digits, t.slice(p.first, p.last + 1).filter((x) => x.digits === ''))) {
      out.push({ ...p, byLength: 'phone' });
      continue;
    }
    if (!r || p.byLength || r.byLength) {
      out.push(p);
      continue;
    }
    const between = t.slice(p.last + 1, r.first);
    const together = t.slice(p.last, r.first + 1).every((x, k, all) => k === 0 || x.start - all[k - 1]!.end <= GROUP_GAP_SEC);
    if (!together || !phoneWithMisheard(p.digits + r.digits, between)) {
      out.push(p);
      continue;
    }
    out.push({ ...p, byLength: 'phone' });
    for (let k = p.last + 1; k < r.first; k++) out.push({ stream: p.stream, first: k, last: k, digits: '', start: t[k]!.start, end: t[k]!.end, pieces: 1, byLength: 'phone' });
    out.push({ ...r, byLength: 'phone' });
    i++;
  }
  return out;
}

/**
 * What is left of a long number read in pieces: runs of one speaker linked as joinByLength links them
 * (each within RUN_WINDOW_SEC of the last, LENGTH_STRETCH_SEC in all, no topic word between), each said
 * as an utterance of its own (not "press five to change your password" of an IVR menu), that hold
 * SSN_LENGTH digits or more together are `digits`, those a length rule named keeping their kind: the
 * ASR heard a digit more or less than a card's or an SSN's length, or joined one number's last group
 * with the next one's first ("…990 3" + "537" of an SSN, then "two one" and "888 46"). *Case (issue 33):
 * "two one" of such an SSN stayed on real voices.*
 */
export function longInPieces(runs: readonly DigitRun[], hints: RunHints): DigitRun[] {
  const out = runs.slice();
  // A number said as an utterance of its own (fillers around it at most) is a piece; one inside a sentence ("press five to change your password") is not.
  const piece = (r: DigitRun) => r.byLength !== undefined || r.stream.tokens.every((x, k) => (k >= r.first && k <= r.last) || (x.u !== r.stream.tokens[r.first]!.u && x.u !== r.stream.tokens[r.last]!.u) || FILLERS.has(x.key));
  const size = (r: DigitRun) => (counts(r) && piece(r) ? r.digits.length : 0);
  for (let i = 0; i < out.length; ) {
    let j = i;
    let total = size(out[i]!);
    while (j + 1 < out.length) {
      const p = out[j]!;
      const r = out[j + 1]!;
      if (r.start - p.end > RUN_WINDOW_SEC || r.end - out[i]!.start > LENGTH_STRETCH_SEC || hints.breaks(r.stream.speaker, p.end, r.start)) break;
      total += size(r);
      j++;
    }
    if (j > i && total >= SSN_LENGTH) for (let k = i; k <= j; k++) if (size(out[k]!) > 0 && !out[k]!.byLength) out[k] = { ...out[k]!, byLength: 'digits' };
    i = j + 1;
  }
  return out;
}
