/**
 * The parsers of the request options' values, one per kind of value (named in the option table,
 * option-table.ts): a form's, a query's or a CLI flag's string, or a sidecar's JSON value. Absent or ''
 * is undefined ("not sent"); a bad value is BAD_ARGUMENT (400) naming what is accepted.
 */
import { voxdexError } from '../errors.js';
import { invalidParameter, parseInteger } from '../is.js';
import { checkNewPhrase, phraseLength, VOCAB_MAX_CHARS } from '../tenancy/company-settings.js';

export const MAX_SPEAKERS = 10;
export const MAX_VOCAB_PHRASES = 100;

const BOOLEANS: Record<string, boolean> = { true: true, false: false, 1: true, 0: false };

export function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

/** `true|false|1|0` (or a sidecar's boolean). */
export function booleanValue(name: string, value: unknown): boolean | undefined {
  if (absent(value)) return undefined;
  if (typeof value === 'boolean') return value;
  const b = typeof value === 'string' || typeof value === 'number' ? BOOLEANS[String(value)] : undefined;
  if (b === undefined) throw invalidParameter(name, 'one of true, false, 1, 0', value);
  return b;
}

/** scrubtext: a boolean, or `tag` (mark the spans, keep the words). */
export function scrubValue(name: string, value: unknown): boolean | 'tag' | undefined {
  if (typeof value === 'string' && value.trim().toLowerCase() === 'tag') return 'tag';
  return booleanValue(name, value);
}

/** A number of speakers: an integer from 1 to MAX_SPEAKERS. */
export function countValue(name: string, value: unknown): number | undefined {
  if (absent(value)) return undefined;
  if (typeof value !== 'number') return parseInteger(name, String(value), 1, MAX_SPEAKERS);
  if (!Number.isInteger(value) || value < 1 || value > MAX_SPEAKERS) throw invalidParameter(name, `an integer between 1 and ${MAX_SPEAKERS}`, value);
  return value;
}

/** One of `choices`. */
export function choiceValue<C extends string>(choices: readonly C[]): (name: string, value: unknown) => C | undefined {
  return (name, value) => {
    if (absent(value)) return undefined;
    if (!(choices as readonly unknown[]).includes(value)) throw invalidParameter(name, choices.join(' or '), value);
    return value as C;
  };
}

/** A comma-separated list (or a sidecar's array of strings), trimmed, empty entries dropped. */
function list(name: string, value: unknown): string[] {
  if (absent(value)) return [];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || !items.every((x) => typeof x === 'string')) throw invalidParameter(name, 'a comma-separated list', value);
  return (items as string[]).map((x) => x.trim()).filter((x) => x !== '');
}

/** vocab: at most MAX_VOCAB_PHRASES phrases of at most VOCAB_MAX_CHARS characters, none with control characters or digits. */
export function vocabValue(name: string, value: unknown): string[] {
  const phrases = list(name, value);
  if (phrases.length > MAX_VOCAB_PHRASES) {
    throw voxdexError('BAD_ARGUMENT', `${name} has ${phrases.length} phrases; send at most ${MAX_VOCAB_PHRASES} (comma-separated), or add the company's list with voxdex vocab add`);
  }
  const long = phrases.find((p) => phraseLength(p) > VOCAB_MAX_CHARS);
  if (long !== undefined) throw invalidParameter(name, `phrases of at most ${VOCAB_MAX_CHARS} characters`, long);
  const bad = phrases.find((p) => /[\x00-\x1f\x7f]/.test(p));
  if (bad !== undefined) throw invalidParameter(name, 'phrases without control characters', bad);
  for (const p of phrases) checkNewPhrase(p, 'The vocab phrase');
  return phrases;
}
