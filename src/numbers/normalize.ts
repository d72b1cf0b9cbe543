/**
 * Spoken number words → numerals, for telephone speech (numtrans; rules and limits in docs/numbers.md).
 *
 * Works on one utterance's word events. A numeral made of several words becomes ONE event spanning
 * their times with the lowest of their confidences. Words that are not numbers, and lone digit words
 * that are more likely words ("one of them", "no one", "three items"), are kept as they are.
 */
import type { WordEvent } from '../types.js';
import { DIGITS, meridiem, MONTHS, ORDINALS, ordinalSuffix, QUANTITY_UNITS, REPEATS, SCALES, TEENS, TENS, tensUnitParts, wordKey } from './lexicon.js';

const CURRENCY: Record<string, string> = { dollars: '$', dollar: '$', bucks: '$', buck: '$', pounds: '£', pound: '£', quid: '£', euros: '€', euro: '€' };
const MINOR = new Set(['cents', 'cent', 'pence', 'penny', 'p']);
/** Words before a number that make "eight forty five" a time. */
const TIME_BEFORE = new Set(['at', 'by', 'around', 'until', 'till', 'til', 'before', 'after', 'from', 'about', 'since', 'between']);
const TIME_AFTER = new Set(["o'clock", 'oclock', 'tonight', 'tomorrow', 'today', 'sharp']);
const DAYPARTS = new Set(['morning', 'afternoon', 'evening', 'night']);
const MONTH_SET = new Set<string>(MONTHS);

/** Everything that can be inside a run, for the scanner. */
const isDigit = (k: string | undefined) => k !== undefined && k in DIGITS;
const isSmall = (k: string | undefined) => k !== undefined && (k in DIGITS || k in TEENS || k in TENS);
const hourOf = (k: string | undefined): number | undefined => {
  if (k === undefined) return undefined;
  const v = DIGITS[k] ?? TEENS[k];
  return v !== undefined && v >= 1 && v <= 12 ? v : undefined;
};

type Atom =
  | { t: 'digit'; v: number; oh: boolean }
  | { t: 'teen' | 'tens'; v: number }
  | { t: 'scale'; v: number }
  | { t: 'rep'; n: number }
  | { t: 'point' }
  | { t: 'and' }
  | { t: 'ord'; v: number };

function atomOf(k: string): Atom {
  if (k === 'oh') return { t: 'digit', v: 0, oh: true };
  if (k === 'a') return { t: 'digit', v: 1, oh: false };
  if (k in DIGITS) return { t: 'digit', v: DIGITS[k]!, oh: k === 'zero' };
  if (k in TEENS) return { t: 'teen', v: TEENS[k]! };
  if (k in TENS) return { t: 'tens', v: TENS[k]! };
  if (k in SCALES) return { t: 'scale', v: SCALES[k]! };
  if (k in REPEATS) return { t: 'rep', n: REPEATS[k]! };
  if (k === 'point') return { t: 'point' };
  if (k === 'and') return { t: 'and' };
  return { t: 'ord', v: ORDINALS[k]! };
}

export interface NumberOptions {
  /** Keep lone digit words 0–9 as words (default true: "three items", "one of them"). */
  keepLoneDigits?: boolean;
}

/** "forty-two" as two events ("forty", "two") sharing its time by length, so that it reads as a number. */
export function splitTensUnits(events: readonly WordEvent[]): WordEvent[] {
  return events.flatMap((e) => {
    const parts = tensUnitParts(wordKey(e.word));
    if (!parts) return [e];
    const mid = Math.round((e.start + ((e.end - e.start) * parts[0].length) / (parts[0].length + parts[1].length)) * 1000) / 1000;
    return [
      { ...e, word: parts[0], end: mid },
      { ...e, word: parts[1], start: mid, ...(e.written !== undefined ? { written: '' } : {}) },
    ];
  });
}

/**
 * The written form of events a..b-1 merged into one (WordEvent.written): their written words side by
 * side; '' when they all continue an earlier written word; absent when none has one.
 */
function mergedWritten(events: readonly WordEvent[]): { written?: string } {
  const shares = events.map((e) => e.written).filter((w): w is string => w !== undefined);
  if (shares.length === 0) return {};
  return { written: shares.filter((w) => w !== '').join(' ') };
}

export function normalizeNumbers(input: readonly WordEvent[], options: NumberOptions = {}): WordEvent[] {
  const keepLone = options.keepLoneDigits ?? true;
  const events = splitTensUnits(input);
  const keys = events.map((e) => wordKey(e.word));
  const out: WordEvent[] = [];
  const merge = (a: number, b: number, word: string): WordEvent => {
    let confidence = events[a]!.confidence;
    for (let j = a + 1; j < b; j++) confidence = Math.min(confidence, events[j]!.confidence);
    const { written: _first, ...first } = events[a]!;
    return { ...first, word, start: events[a]!.start, end: events[b - 1]!.end, confidence, ...mergedWritten(events.slice(a, b)) };
  };
  /** am/pm after index j: [word count consumed, 'am'|'pm'] ("p m", "p.m.", "pm"). */
  const meridiemAt = (j: number): [number, 'am' | 'pm'] | undefined => {
    const m = keys[j] !== undefined ? meridiem(keys[j]!) : undefined;
    if (m) return [1, m];
    if ((keys[j] === 'a' || keys[j] === 'p') && keys[j + 1] === 'm') return [2, keys[j] === 'a' ? 'am' : 'pm'];
    return undefined;
  };
  const timeAfter = (j: number): boolean =>
    meridiemAt(j) !== undefined || TIME_AFTER.has(keys[j] ?? '') || (keys[j] === 'in' && keys[j + 1] === 'the' && DAYPARTS.has(keys[j + 2] ?? ''));

  /** End (exclusive) of the run of number words starting at i; i when none starts there. */
  const scan = (i: number): number => {
    const k = keys[i]!;
    const startOk =
      isSmall(k) || k in ORDINALS ||
      (k === 'oh' && (isDigit(keys[i + 1]) || keys[i + 1] === 'oh') && (isSmall(keys[i + 2]) || keys[i + 2] === 'oh')) ||
      (k in REPEATS && (isDigit(keys[i + 1]) || keys[i + 1] === 'oh')) ||
      (k === 'a' && (keys[i + 1] === 'hundred' || keys[i + 1] === 'thousand'));
    if (!startOk) return i;
    if (k in ORDINALS) return i + 1;
    let j = i + 1;
    for (; j < keys.length; j++) {
      const p = keys[j - 1]!;
      const c = keys[j]!;
      const n = keys[j + 1];
      if (isSmall(c) || c in SCALES) continue;
      if (c === 'oh' && (isSmall(p) || p === 'oh' || p in REPEATS)) continue;
      if (c in REPEATS && (isDigit(n) || n === 'oh')) continue;
      if (c === 'point' && (isSmall(p) || p === 'oh') && (isDigit(n) || n === 'oh')) continue;
      if (c === 'and' && p in SCALES && isSmall(n)) continue;
      if (c in ORDINALS && ((p in TENS) || (p in SCALES))) return j + 1;
      break;
    }
    return j;
  };

  for (let i = 0; i < events.length; ) {
    const time = clockPhrase(keys, i);
    if (time) {
      out.push(merge(i, time.end, time.text));
      i = time.end;
      continue;
    }
    const end = scan(i);
    if (end === i) {
      out.push(events[i]!);
      i++;
      continue;
    }
    const atoms = keys.slice(i, end).map(atomOf);
    const prev = keys[i - 1];
    const last = atoms[atoms.length - 1]!;

    // Ordinals: "third" → 3rd, "twenty first" → 21st; "first"/"second" only beside a month.
    if (last.t === 'ord') {
      const value = (atoms.length > 1 ? cardinal(atoms.slice(0, -1)) ?? 0 : 0) + last.v;
      const byMonth = MONTH_SET.has(prev ?? '') || (keys[end] === 'of' && MONTH_SET.has(keys[end + 1] ?? '')) ||
        (prev === 'the' && MONTH_SET.has(keys[i - 2] ?? ''));
      if (atoms.length === 1 && last.v <= 2 && !byMonth) {
        out.push(events[i]!);
        i++;
        continue;
      }
      out.push(merge(i, end, `${value}${ordinalSuffix(value)}`));
      i = end;
      continue;
    }

    const text = numeral(atoms);
    if (text === undefined) {
      out.push(events[i]!);
      i++;
      continue;
    }
    const next = keys[end];

    // A unit claims only the short number right before it: "five three seven two one eight eight
    // four six two people" is the digit string 537218846, then "two people".
    const unitAt = unitClaimStart(atoms, next);
    if (unitAt !== undefined) {
      out.push(merge(i, i + unitAt, numeral(atoms.slice(0, unitAt))!));
      i += unitAt;
      continue;
    }

    // Amounts: "forty two dollars and fifty cents" → $42.50.
    const symbol = next !== undefined ? CURRENCY[next] : undefined;
    if (symbol && !text.includes('.')) {
      let stop = end + 1;
      let cents: string | undefined;
      const centsAt = keys[stop] === 'and' ? stop + 1 : stop;
      const cEnd = centsAt < keys.length ? scan(centsAt) : centsAt;
      if (cEnd > centsAt) {
        const c = cardinal(keys.slice(centsAt, cEnd).map(atomOf));
        const hasUnit = MINOR.has(keys[cEnd] ?? '');
        if (c !== undefined && c < 100 && (hasUnit || centsAt === stop)) {
          cents = String(c).padStart(2, '0');
          stop = hasUnit ? cEnd + 1 : cEnd;
        }
      }
      out.push(merge(i, stop, `${symbol}${groupThousands(text)}${cents !== undefined ? `.${cents}` : ''}`));
      i = stop;
      continue;
    }
    if (next === 'percent' || (next === 'per' && keys[end + 1] === 'cent')) {
      const stop = next === 'percent' ? end + 1 : end + 2;
      out.push(merge(i, stop, `${text}%`));
      i = stop;
      continue;
    }

    // Times: "eight forty five" after "at" or before "pm"; "eight o'clock"; "two pm".
    const hm = clockDigits(atoms);
    if (hm && (TIME_BEFORE.has(prev ?? '') || timeAfter(end))) {
      let stop = end;
      let word = hm[1] === undefined ? String(hm[0]) : `${hm[0]}:${String(hm[1]).padStart(2, '0')}`;
      if (keys[end] === "o'clock" || keys[end] === 'oclock') {
        word = `${hm[0]}:${String(hm[1] ?? 0).padStart(2, '0')}`;
        stop = end + 1;
      }
      out.push(merge(i, stop, word));
      const m = meridiemAt(stop);
      if (m) out.push(merge(stop, stop + m[0], m[1]));
      i = stop + (m ? m[0] : 0);
      continue;
    }

    if (keepLone && end - i === 1 && last.t === 'digit' && !MONTH_SET.has(prev ?? '')) {
      out.push(events[i]!);
      i++;
      continue;
    }
    out.push(merge(i, end, text));
    i = end;
  }
  return out;
}

/**
 * Where the last chunk of a digit string starts when a unit follows it (`next`) and the chunks
 * before hold 3+ digits: that chunk is the quantity, the rest a digit string. Shorter runs stay one
 * amount ("nineteen ninety five dollars" → $1,995, "twelve fifty dollars" → $1,250).
 */
function unitClaimStart(atoms: readonly Atom[], next: string | undefined): number | undefined {
  if (next === undefined || !(QUANTITY_UNITS.has(next) || next in CURRENCY || next === 'per')) return undefined;
  const c = chunks(atoms);
  if (!c || c.frac !== undefined || c.chunks.length < 2) return undefined;
  const last = c.chunks[c.chunks.length - 1]!;
  const lead = c.chunks.slice(0, -1).reduce((n, x) => n + x.digits.length, 0);
  return lead >= 3 && last.at > 0 ? last.at : undefined;
}

/** "1250000" → "1,250,000" (amounts only; digit strings are never grouped). */
function groupThousands(text: string): string {
  const [whole, frac] = text.split('.');
  const g = whole!.length > 3 ? whole!.replace(/\B(?=(\d{3})+$)/g, ',') : whole!;
  return frac !== undefined ? `${g}.${frac}` : g;
}

interface Chunk {
  digits: string;
  value: number;
  /** Index of the chunk's first atom. */
  at: number;
}

/**
 * Chunks of a run: each a cardinal ("forty five", "two thousand and five", "nineteen hundred") or a
 * repeated digit ("double five"); the run is their digits side by side when there are several.
 */
function chunks(atoms: readonly Atom[]): { chunks: Chunk[]; frac?: string } | undefined {
  const out: Chunk[] = [];
  let total = 0;
  let part = 0;
  let last: 'none' | 'digit' | 'zero' | 'teen' | 'tens' | 'tensunit' | 'hundred' | 'scale' | 'rep' = 'none';
  let rep = '';
  let frac: string | undefined;
  let a = 0;
  let begin = 0;
  const close = () => {
    if (last !== 'none') {
      if (last === 'rep') out.push({ digits: rep, value: Number(rep), at: begin });
      else if (last === 'zero') out.push({ digits: '0', value: 0, at: begin });
      else out.push({ digits: String(total + part), value: total + part, at: begin });
    }
    total = 0;
    part = 0;
    last = 'none';
    begin = a;
  };
  for (; a < atoms.length; a++) {
    const atom = atoms[a]!;
    if (frac !== undefined) {
      if (atom.t !== 'digit') return undefined;
      frac += String(atom.v);
      continue;
    }
    switch (atom.t) {
      case 'digit':
        if (atom.v > 0 && !atom.oh && (last === 'tens' || last === 'hundred' || last === 'scale')) {
          part += atom.v;
          last = last === 'tens' ? 'tensunit' : 'digit';
        } else {
          close();
          part = atom.v;
          last = atom.v === 0 ? 'zero' : 'digit';
        }
        break;
      case 'teen':
      case 'tens':
        if (last === 'hundred' || last === 'scale') part += atom.v;
        else {
          close();
          part = atom.v;
        }
        last = atom.t;
        break;
      case 'scale':
        if (atom.v === 100) {
          if (last === 'none' || last === 'zero' || last === 'rep' || last === 'hundred' || last === 'scale') {
            close();
            part = 100;
          } else part *= 100;
          last = 'hundred';
        } else {
          if (last === 'none' || last === 'zero' || last === 'rep' || last === 'scale') {
            close();
            part = 1;
          }
          total += part * atom.v;
          part = 0;
          last = 'scale';
        }
        break;
      case 'rep': {
        const d = atoms[a + 1];
        if (!d || d.t !== 'digit') return undefined;
        close();
        rep = String(d.v).repeat(atom.n);
        last = 'rep';
        a++;
        break;
      }
      case 'point':
        close();
        frac = '';
        break;
      case 'and':
        break;
      case 'ord':
        return undefined;
    }
  }
  close();
  return { chunks: out, frac };
}

/** The numeral of a run: one cardinal as its value, several chunks as a digit string. */
function numeral(atoms: readonly Atom[]): string | undefined {
  const c = chunks(atoms);
  if (!c || c.chunks.length === 0) return undefined;
  const whole = c.chunks.length === 1 ? c.chunks[0]!.digits : c.chunks.map((x) => x.digits).join('');
  return c.frac !== undefined ? (c.frac === '' ? undefined : `${whole}.${c.frac}`) : whole;
}

/** A run's value when it is a single cardinal (for cents and ordinals). */
function cardinal(atoms: readonly Atom[]): number | undefined {
  const c = chunks(atoms);
  return c && c.chunks.length === 1 && c.frac === undefined ? c.chunks[0]!.value : undefined;
}

/** [hour, minutes?] when a run can be a clock time: "eight", "eight forty five", "eight oh five". */
function clockDigits(atoms: readonly Atom[]): [number, number | undefined] | undefined {
  const h = atoms[0]!;
  const hour = h.t === 'digit' && !h.oh && h.v >= 1 ? h.v : h.t === 'teen' && h.v <= 12 ? h.v : undefined;
  if (hour === undefined) return undefined;
  const rest = atoms.slice(1);
  if (rest.length === 0) return [hour, undefined];
  if (rest.length === 2 && rest[0]!.t === 'digit' && rest[0]!.v === 0 && rest[1]!.t === 'digit') return [hour, rest[1]!.v];
  if (rest.length === 1 && (rest[0]!.t === 'teen' || rest[0]!.t === 'tens') && rest[0]!.v <= 50) return [hour, rest[0]!.v];
  if (rest.length === 2 && rest[0]!.t === 'tens' && rest[0]!.v <= 50 && rest[1]!.t === 'digit' && rest[1]!.v > 0) return [hour, rest[0]!.v + rest[1]!.v];
  return undefined;
}

/** "quarter past eight" → 8:15, "half past two" → 2:30, "quarter to nine" → 8:45, "ten past six" → 6:10. */
function clockPhrase(keys: readonly string[], i: number): { end: number; text: string } | undefined {
  let j = i;
  if (keys[j] === 'a' && keys[j + 1] === 'quarter') j++;
  let minutes: number | undefined;
  const k = keys[j];
  if (k === 'quarter') minutes = 15;
  else if (k === 'half') minutes = 30;
  else if (k !== undefined && (k in TENS || k in TEENS || k in DIGITS)) {
    minutes = TENS[k] ?? TEENS[k] ?? DIGITS[k];
    if (k in TENS && isDigit(keys[j + 1]) && DIGITS[keys[j + 1]!]! > 0) minutes! += DIGITS[keys[++j]!]!;
  }
  if (minutes === undefined || minutes === 0 || minutes > 30) return undefined;
  j++;
  if (keys[j] === 'minutes' || keys[j] === 'minute') j++;
  const rel = keys[j];
  if (rel !== 'past' && rel !== 'to' && rel !== 'after') return undefined;
  if (k !== 'quarter' && k !== 'half' && rel !== 'past') return undefined; // "twenty to nine" may be a count
  if (k === 'half' && rel !== 'past') return undefined;
  const hour = hourOf(keys[j + 1]);
  if (hour === undefined || isSmall(keys[j + 2])) return undefined;
  const [h, m] = rel === 'to' ? [hour === 1 ? 12 : hour - 1, 60 - minutes] : [hour, minutes];
  return { end: j + 2, text: `${h}:${String(m).padStart(2, '0')}` };
}

/**
 * The numeral form of typed words, for search: "forty two fifty" → ["4250"], "twenty five dollars"
 * → ["$25"]; undefined when the words hold no number the normaliser would write as a numeral.
 */
export function numeralWords(words: readonly string[]): string[] | undefined {
  const events = words.map((word, i) => ({ word, start: i, end: i + 1, confidence: 1 }));
  const out = normalizeNumbers(events).map((e) => e.word);
  return out.length === words.length && out.every((w, i) => w === words[i]) ? undefined : out;
}
