/**
 * Recognizers, one per kind (presidio's shape): each looks at a digit run and the words said around
 * it (on every channel: the agent asks "what's the security code?", the caller answers) and says
 * whether the run is of its kind. Context is evidence; the digit count and Luhn are the rest.
 */
import { luhn, MONTHS } from '../numbers/lexicon.js';
import type { DigitRun } from './digit-runs.js';
import type { PiiKind } from './pii/context.js';
import { PII_RUN_RECOGNIZERS } from './pii/numbers.js';

import { REDACT_KINDS, type RedactKind } from '../types.js';

export const REDACTION_KINDS: readonly RedactKind[] = REDACT_KINDS;
export type RedactionKind = RedactKind;

/** `other`: a topic word that only separates numbers ("phone", "account", "zip"). */
export type ContextTag = 'card' | 'cvv' | 'expiry' | 'ssn' | 'pin' | 'other';

/** Context said before a run (or inside it), the latest last. */
export interface RunContext {
  tags: ReadonlyArray<{ tag: ContextTag; time: number }>;
  /** The run's stream token just before it is a month name ("expires april twenty seven"). */
  monthBefore: boolean;
  /** The run answers a question on this topic (it starts in the topic's answer window). */
  answers?: ContextTag;
  /** The personal-data topic (pii/context.ts) whose window the run starts in: phone, bank, id, dob… */
  topic?: PiiKind;
}

export interface Recognizer {
  kind: RedactionKind;
  matches(run: DigitRun, ctx: RunContext): boolean;
}

/** Seconds before a run in which context words count. */
export const CONTEXT_WINDOW_SEC = 30;

const CARD_WORDS = new Set(['card', 'visa', 'mastercard', 'amex', 'credit', 'debit']);
const CVV_WORDS = new Set(['cvv', 'cvc', 'cvv2', 'csc', 'cid']);
const EXPIRY_WORDS = new Set(['expires', 'expiry', 'expiration', 'expire', 'expiring', 'exp', 'expired']);
const PIN_WORDS = new Set(['pin', 'passcode', 'passcodes', 'pins']);
const OTHER_TOPICS = new Set([
  'phone', 'telephone', 'mobile', 'cell', 'account', 'reference', 'zip', 'postcode', 'order', 'policy', 'member', 'date', 'birth',
  'routing', 'iban', 'sort', 'confirmation', 'tracking', 'invoice', 'customer', 'id', 'license', 'licence', 'passport',
]);
/** "the three digits on the back": counts that name a card's code (3, 4) or its number (15, 16). */
const CODE_COUNTS = new Set(['three', 'four', '3', '4']);
const CARD_COUNTS = new Set(['fifteen', 'sixteen', '15', '16']);

/**
 * The context tag of word `i` given its neighbours — the usual names ("card", "security code",
 * "expiry", "social", "pin") and the questions asked in other words: "the three digits on the
 * back" (cvv), "the long number on the front" / "the sixteen digits" (card), "what's your pin" and
 * "the passcode" (pin), "the last four of your social" (ssn, by "social").
 */
export function contextTag(keys: readonly string[], i: number): ContextTag | undefined {
  const key = keys[i]!;
  const prev = keys[i - 1];
  if (CARD_WORDS.has(key)) return 'card';
  if (CVV_WORDS.has(key)) return 'cvv';
  if (PIN_WORDS.has(key)) return 'pin';
  if (key === 'code') return codeTag(prev);
  if ((key === 'digits' || key === 'digit') && prev !== undefined) return CODE_COUNTS.has(prev) ? 'cvv' : CARD_COUNTS.has(prev) ? 'card' : undefined;
  if (key === 'back' && (prev === 'the' || prev === 'its') && keys[i - 2] === 'on') return 'cvv';
  if (key === 'front' && (prev === 'the' || prev === 'its') && (keys[i - 2] === 'on' || keys[i - 2] === 'across')) return 'card';
  if (EXPIRY_WORDS.has(key)) return 'expiry';
  if ((key === 'through' || key === 'thru') && prev === 'valid') return 'expiry';
  if (key === 'ssn' || key === 'social') return 'ssn';
  if (OTHER_TOPICS.has(key)) return 'other';
  if (key === 'number' && prev !== 'card' && prev !== 'security' && prev !== 'pin') return 'other';
  return undefined;
}

/** "security code" is a card's code; "pin code", "access code" a PIN; "zip code", "area code" only a topic. */
function codeTag(prev: string | undefined): ContextTag {
  if (prev === 'pin' || prev === 'access' || prev === 'pass' || prev === 'secret' || prev === 'login') return 'pin';
  if (prev === 'zip' || prev === 'post' || prev === 'postal' || prev === 'area' || prev === 'country' || prev === 'promo' || prev === 'discount') return 'other';
  return 'cvv';
}

const latest = (ctx: RunContext) => ctx.tags.filter((t) => t.tag !== 'other').pop()?.tag;
const has = (ctx: RunContext, tag: ContextTag) => ctx.tags.some((t) => t.tag === tag);

/** A whole card number: 12–19 digits passing Luhn. */
export function isCard(d: string): boolean {
  return d.length >= 12 && d.length <= 19 && luhn(d);
}

/** 12–19 digits passing Luhn, or a stray homophone's digit at either end dropped (not looser: any 16 digits hold some Luhn stretch). */
function luhnInside(d: string): boolean {
  const tries = [d, d.slice(1), d.slice(0, -1)];
  return tries.some((x) => x.length >= 12 && x.length <= 19 && luhn(x));
}

export const cardRecognizer: Recognizer = {
  kind: 'card',
  matches: (run, ctx) => run.byLength === 'card' || (run.digits.length >= 12 && (luhnInside(run.digits) || has(ctx, 'card'))) || (ctx.answers === 'card' && run.digits.length >= 2),
};
export const ssnRecognizer: Recognizer = {
  kind: 'ssn',
  matches: (run, ctx) => run.byLength === 'ssn' || (run.digits.length >= 8 && run.digits.length <= 10 && has(ctx, 'ssn')) || (ctx.answers === 'ssn' && run.digits.length >= 2),
};
export const expiryRecognizer: Recognizer = {
  kind: 'expiry',
  matches: (run, ctx) => ctx.answers === 'expiry' || (latest(ctx) === 'expiry' && run.digits.length <= 6 && (run.digits.length >= 3 || ctx.monthBefore)),
};
export const cvvRecognizer: Recognizer = {
  kind: 'cvv',
  matches: (run, ctx) => ctx.answers === 'cvv' || (latest(ctx) === 'cvv' && run.digits.length >= 3 && run.digits.length <= 4),
};
/** A PIN: the latest topic is a PIN ("what is your pin", "the passcode") and 4–8 digits; or 3+ digits answering it. */
export const pinRecognizer: Recognizer = {
  kind: 'pin',
  matches: (run, ctx) => (ctx.answers === 'pin' && run.digits.length >= 3) || (latest(ctx) === 'pin' && run.digits.length >= 4 && run.digits.length <= 8),
};
/** A code read in pieces: this many digits at least, said in two or more utterances ("zero o nine" + "five"). */
export const PIECES_MIN_DIGITS = 4;

/**
 * Any other run of 6 or more digits (account, phone, reference numbers; a card misheard past Luhn),
 * a part of a card, an SSN, a phone number or a long number by length (length-runs.ts) when its kind is not asked for,
 * 3+ digits answering any question, or 4+ digits read in pieces — codes are read in chunks, counts,
 * years and prices are said in one breath (a PIN after a question the ASR misheard: "and what has
 * yorubin" + "one" + "47" + "three").
 */
export const digitsRecognizer: Recognizer = {
  kind: 'digits',
  matches: (run, ctx) => run.byLength !== undefined || run.digits.length >= 6 || (ctx.answers !== undefined && run.digits.length >= 3) || (run.pieces >= 2 && run.digits.length >= PIECES_MIN_DIGITS),
};

/** In order of precedence: the first one that matches and is asked for names the run (bank, id, phone, dob: pii/numbers.ts). */
export const RECOGNIZERS: readonly Recognizer[] = [cardRecognizer, ssnRecognizer, expiryRecognizer, cvvRecognizer, pinRecognizer, ...PII_RUN_RECOGNIZERS, digitsRecognizer];

/**
 * When spans of several kinds cover one word, the kind listed first names it: the card kinds, then
 * the personal data from the most specific to the least, `digits` last.
 */
export const KIND_PRECEDENCE: readonly RedactionKind[] = ['card', 'ssn', 'bank', 'id', 'phone', 'email', 'dob', 'expiry', 'cvv', 'pin', 'address', 'name', 'digits'];

export const MONTH_KEYS: ReadonlySet<string> = new Set(MONTHS);
