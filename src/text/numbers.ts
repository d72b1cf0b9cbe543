/**
 * Numbers as spoken words: voxdex's one searchable form for numbers (docs/moonshine.md, "Numbers").
 *
 * Transcripts hold what was said, one spoken word per word event: "five five five one two three
 * four", "twenty five dollars", "nineteen ninety nine" — never numerals. Every engine's output goes
 * through the same canonical form (PocketSphinx already speaks in words; Moonshine's numerals are
 * expanded here, and forced alignment picks which reading matches the audio). On the query side a
 * numeral typed in any usual way ("5551234", "555-1234", "$25", "1,250", "3rd", "2.5") expands
 * to the readings below, so /search finds the number however it is typed.
 */

export const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'] as const;
const TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES = ['', 'thousand', 'million', 'billion', 'trillion'];
const ORDINAL_IRREGULAR: Record<string, string> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

/** Every digit as a word: "0451" → zero four five one. */
export function digitWords(digits: string): string[] {
  return [...digits].map((d) => DIGIT_WORDS[Number(d)]!);
}

function below1000(n: number): string[] {
  const out: string[] = [];
  if (n >= 100) {
    out.push(DIGIT_WORDS[Math.floor(n / 100)]!, 'hundred');
    n %= 100;
  }
  if (n >= 20) {
    out.push(TENS[Math.floor(n / 10)]!);
    if (n % 10) out.push(DIGIT_WORDS[n % 10]!);
  } else if (n >= 10) {
    out.push(TEENS[n - 10]!);
  } else if (n > 0) {
    out.push(DIGIT_WORDS[n]!);
  }
  return out;
}

/** A whole number (0 … 10^15 − 1) as a cardinal: 1250 → one thousand two hundred fifty. */
export function cardinalWords(digits: string): string[] {
  const n = BigInt(digits);
  if (n === 0n) return ['zero'];
  const groups: number[] = [];
  for (let x = n; x > 0n; x /= 1000n) groups.push(Number(x % 1000n));
  if (groups.length > SCALES.length) return digitWords(digits);
  const out: string[] = [];
  for (let i = groups.length - 1; i >= 0; i--) {
    if (groups[i] === 0) continue;
    out.push(...below1000(groups[i]!));
    if (SCALES[i]) out.push(SCALES[i]!);
  }
  return out;
}

/** Two-digit pairs as a year or a price is said: 1999 → nineteen ninety nine, 2005 → twenty oh five. */
export function pairWords(digits: string): string[] | undefined {
  if (digits.length !== 4 || digits[0] === '0') return undefined;
  const hi = Number(digits.slice(0, 2));
  const lo = Number(digits.slice(2));
  if (hi % 10 === 0 && lo === 0) return undefined; // 2000, 1000: only the cardinal
  const low = lo === 0 ? ['hundred'] : lo < 10 ? ['oh', DIGIT_WORDS[lo]!] : below1000(lo);
  return [...below1000(hi), ...low];
}

export function ordinalWords(digits: string): string[] {
  const words = cardinalWords(digits);
  const last = words[words.length - 1]!;
  const ord = ORDINAL_IRREGULAR[last] ?? (last.endsWith('y') ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return [...words.slice(0, -1), ord];
}

const CURRENCY: Record<string, [string, string, string]> = {
  // symbol → [unit, plural unit, plural minor unit]
  $: ['dollar', 'dollars', 'cents'],
  '£': ['pound', 'pounds', 'pence'],
  '€': ['euro', 'euros', 'cents'],
};

/** True when a written token contains a digit (then numberReadings applies). */
export function hasDigit(token: string): boolean {
  return /\d/.test(token);
}

/**
 * The ways a written number may have been said, most likely first, each a list of spoken words.
 * Handles digit strings with separators (phone/account numbers: "555-1234", "(555) 123", "4111 1111"),
 * grouped thousands ("1,250"), decimals ("2.5"), currency ("$25", "$4.50"), percent ("15%"),
 * ordinals ("3rd"), and words glued to digits ("10am", "mp3"). Returns [] for a token without digits.
 */
export function numberReadings(token: string): string[][] {
  let t = token.trim().toLowerCase();
  if (!hasDigit(t)) return [];
  let currency: [string, string, string] | undefined;
  const sym = /^[-+]?([$£€])/.exec(t);
  if (sym) {
    currency = CURRENCY[sym[1]!];
    t = t.replace(/^[-+]?[$£€]/, '');
  }
  const pct = t.endsWith('%');
  if (pct) t = t.slice(0, -1);
  t = t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}%]+$/gu, '');

  const ord = /^(\d+)(st|nd|rd|th)$/.exec(t);
  if (ord) return [ordinalWords(ord[1]!)];

  const grouped = /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(t) ? t.replace(/,/g, '') : t;
  const dec = /^(\d+)\.(\d+)$/.exec(grouped);
  let readings: string[][];
  if (dec && !currency && dec[1]!.length >= 3 && dec[2]!.length >= 3) {
    // "555.0142": a dotted phone number, or a decimal.
    readings = [digitWords(dec[1]! + dec[2]!), [...cardinalWords(dec[1]!), 'point', ...digitWords(dec[2]!)]];
  } else if (dec) {
    const [, whole, frac] = dec as unknown as [string, string, string];
    if (currency && frac.length === 2) {
      const cents = Number(frac);
      const w = cardinalWords(whole);
      const main = [...w, whole === '1' ? currency[0] : currency[1]];
      readings = cents === 0 ? [main] : [[...main, ...cardinalWords(String(cents)), currency[2]], [...w, ...cardinalWords(frac.replace(/^0/, ''))]];
      currency = undefined;
    } else {
      readings = [[...cardinalWords(whole), 'point', ...digitWords(frac)]];
    }
  } else if (/^\d+$/.test(grouped)) {
    // An amount is not read digit by digit; grouped thousands ("1,250") are read as a number.
    readings = currency || grouped !== t ? amountReadings(grouped) : integerReadings(grouped);
  } else {
    // Digits with separators or letters: each run of digits read digit by digit, letters kept.
    const parts = t.split(/([0-9]+)/).filter((p) => p !== '');
    const words = parts.flatMap((p) => (/^\d+$/.test(p) ? (p.length <= 2 && parts.length > 1 && /[a-z]/.test(t) ? cardinalWords(p) : digitWords(p)) : p.split(/[^\p{L}']+/u).filter(Boolean)));
    readings = [words];
    const digitsOnly = t.replace(/[^0-9]/g, '');
    if (/^[\d\s().\-/+]+$/.test(t) && digitsOnly.length > 0) readings = [digitWords(digitsOnly)];
  }
  if (currency) readings = readings.map((r) => [...r, currency![r.length === 1 && r[0] === 'one' ? 0 : 1]]);
  if (pct) readings = readings.map((r) => [...r, 'percent']);
  return dedupe(readings);
}

/** A plain run of digits: cardinal, pairs (years, "twelve fifty") and digit by digit, likeliest first. */
function integerReadings(d: string): string[][] {
  const out: string[][] = [];
  const leadingZero = d.length > 1 && d[0] === '0';
  if (leadingZero || d.length > 6) {
    out.push(digitWords(d));
    return out;
  }
  const pairs = pairWords(d);
  if (pairs && Number(d) >= 1100 && Number(d) < 2100) out.push(pairs);
  out.push(cardinalWords(d));
  if (pairs && !out.includes(pairs)) out.push(pairs);
  if (d.length > 1) out.push(digitWords(d));
  return out;
}

/** A number that is a quantity: cardinal (and "twelve fifty" pairs), never digit by digit. */
function amountReadings(d: string): string[][] {
  const pairs = pairWords(d);
  return pairs ? [cardinalWords(d), pairs] : [cardinalWords(d)];
}

function dedupe(readings: string[][]): string[][] {
  const seen = new Set<string>();
  return readings.filter((r) => r.length > 0 && !seen.has(r.join(' ')) && (seen.add(r.join(' ')), true));
}

/** At most this many spoken forms are searched for one typed number (or one phrase with numbers). */
const MAX_QUERY_FORMS = 8;

/**
 * The spoken forms a number typed in a query may have in a transcript: "555-1234" → [five five five
 * one two three four]; "25" → [twenty five], [two five]. For a phrase, every combination of its
 * words' forms (up to MAX_QUERY_FORMS). Words without digits stay as they are. Returns [] when no
 * word has a digit.
 */
export function spokenForms(words: readonly string[]): string[][] {
  if (!words.some(hasDigit)) return [];
  let forms: string[][] = [[]];
  for (const w of words) {
    // A typed amount ("$25") also matches the bare number: the unit may be said another way ("bucks").
    const amount = /^[$£€](\d+)$/.exec(w);
    const readings = hasDigit(w) ? dedupe([...numberReadings(w), ...(amount ? amountReadings(amount[1]!) : [])]) : [[w]];
    const next: string[][] = [];
    for (const f of forms) for (const r of readings.length ? readings : [[w]]) if (next.length < MAX_QUERY_FORMS) next.push([...f, ...r]);
    forms = next;
  }
  return forms;
}
