/**
 * Number words as telephone speech says them: the one lexicon shared by the numeral normaliser
 * (src/numbers/normalize.ts), the redaction recognizers (src/redact/) and the search expansion.
 */

export const DIGITS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9,
};
export const TEENS: Readonly<Record<string, number>> = {
  ten: 10, eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
export const TENS: Readonly<Record<string, number>> = {
  twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
export const SCALES: Readonly<Record<string, number>> = { hundred: 100, thousand: 1000, million: 1_000_000, billion: 1_000_000_000 };
export const REPEATS: Readonly<Record<string, number>> = { double: 2, triple: 3 };

const ORDINAL_UNITS: Record<string, number> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9,
  tenth: 10, eleventh: 11, twelfth: 12, thirteenth: 13, fourteenth: 14, fifteenth: 15, sixteenth: 16,
  seventeenth: 17, eighteenth: 18, nineteenth: 19, twentieth: 20, thirtieth: 30, fortieth: 40, fiftieth: 50,
  sixtieth: 60, seventieth: 70, eightieth: 80, ninetieth: 90, hundredth: 100, thousandth: 1000,
};
export const ORDINALS: Readonly<Record<string, number>> = ORDINAL_UNITS;

/**
 * Words a recogniser writes for a digit on a telephone line (CALL-INTELLIGENCE-FINDINGS.md: "seven to
 * double knives"). Only the redaction recognizers use them, and only next to real digits.
 */
export const HOMOPHONES: Readonly<Record<string, number>> = {
  oh: 0, o: 0, won: 1, to: 2, too: 2, tu: 2, for: 4, fore: 4, ate: 8, knives: 5, fives: 5, nein: 9, tree: 3, free: 3, sicks: 6,
};

/**
 * Words after a number that make it a quantity — a count, an amount, a time — not part of a digit
 * string ("forty two dollars", "two pm", "three months", "two people"). A unit claims at most the
 * short number right before it, in the same utterance (docs/redaction.md: a card number said just
 * before "three months ago" stays a card number).
 */
export const QUANTITY_UNITS: ReadonlySet<string> = new Set([
  'dollars', 'dollar', 'bucks', 'buck', 'cents', 'cent', 'pounds', 'pound', 'pence', 'quid', 'euros', 'euro', 'percent', 'am', 'pm', "o'clock", 'oclock',
  'seconds', 'second', 'minutes', 'minute', 'hours', 'hour', 'days', 'day', 'weeks', 'week', 'months', 'month', 'years', 'year',
  'times', 'items', 'item', 'people', 'persons', 'kids', 'children', 'pieces', 'boxes', 'units', 'miles', 'kilometers',
]);

export const MONTHS = [
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
] as const;

/** Lower case, apostrophes and letters/digits only: "P.M." → "pm", "O'Clock," → "o'clock". */
export function wordKey(word: string): string {
  return word.toLowerCase().replace(/[’‘]/g, "'").replace(/[^a-z0-9'$%.:]+/g, '').replace(/\.+$/g, '').replace(/^'+|'+$/g, '');
}

/** "a.m." / "p m" spellings all key to am/pm through wordKey + this. */
export function meridiem(key: string): 'am' | 'pm' | undefined {
  const k = key.replace(/\./g, '');
  return k === 'am' ? 'am' : k === 'pm' ? 'pm' : undefined;
}

export function ordinalSuffix(n: number): string {
  const h = n % 100;
  if (h >= 11 && h <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
}

/** True for a word that is any part of a spoken number (not homophones). */
export function isNumberWord(key: string): boolean {
  return key in DIGITS || key in TEENS || key in TENS || key in SCALES || key in ORDINALS || key === 'oh';
}

const TENS_UNIT = new RegExp(`^(${Object.keys(TENS).join('|')})-?(${Object.keys(DIGITS).filter((d) => d !== 'zero').join('|')}|${Object.keys(ORDINAL_UNITS).filter((o) => ORDINAL_UNITS[o]! < 10).join('|')})$`);

/**
 * A hyphenated (or run-together) number "forty-two", "twenty-first", as writers and Moonshine spell
 * them: its two words, or undefined. Numbers and redaction read it as the two words.
 */
export function tensUnitParts(word: string): [string, string] | undefined {
  const m = TENS_UNIT.exec(word.toLowerCase());
  return m ? [m[1]!, m[2]!] : undefined;
}

/** Luhn check of a digit string (payment cards). */
export function luhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
