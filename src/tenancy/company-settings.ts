/**
 * A company's settings (docs/service.md, "Request options"): its redaction policy and its defaults
 * for the request options, and its vocabulary. Stored by tenancy as one JSON value per company;
 * this module validates a change and merges it, the same for both adapters.
 */
import { voxdexError } from '../errors.js';
import { normalizeNumbers } from '../numbers/normalize.js';
import { REDACT_KINDS, type CompanySettings, type RedactKind } from '../types.js';

export { REDACT_KINDS };
export const SCRUB_TARGETS: readonly ('text' | 'audio')[] = ['text', 'audio'];
export const VOCAB_MAX_PHRASES = 1000;
export const VOCAB_MAX_CHARS = 50;
/** Channels are numbered from 0; a recording has at most this many (docs/audio.md). */
export const MAX_AGENT_CHANNEL = 31;
export const AGENT_PHRASES_MAX = 200;

const FLAGS = ['diarize', 'gender', 'sentiment', 'numtrans'] as const;
type Flag = (typeof FLAGS)[number];

/** Throws BAD_ARGUMENT naming the accepted values unless every item is one of them. */
function checkList<T extends string>(name: string, values: unknown, accepted: readonly T[]): T[] {
  if (!Array.isArray(values)) throw voxdexError('BAD_ARGUMENT', `${name} must be a list of: ${accepted.join(', ')}`);
  for (const v of values) {
    if (!accepted.includes(v as T)) throw voxdexError('BAD_ARGUMENT', `Unknown ${name} ${JSON.stringify(v)}; accepted: ${accepted.join(', ')}`);
  }
  return [...new Set(values as T[])].sort((a, b) => accepted.indexOf(a) - accepted.indexOf(b));
}

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** A phrase's length as a reader counts it: characters (grapheme clusters), not UTF-16 units ("日本語", "👍🏽" is one). */
export function phraseLength(phrase: string): number {
  let n = 0;
  for (const _ of GRAPHEMES.segment(phrase)) n++;
  return n;
}

/** A vocabulary phrase as stored: trimmed, inner whitespace single spaces, 1-50 characters. */
export function normalizePhrase(phrase: string): string {
  const p = phrase.trim().replace(/\s+/g, ' ');
  const n = phraseLength(p);
  if (n === 0 || n > VOCAB_MAX_CHARS) {
    throw voxdexError('BAD_ARGUMENT', `A vocabulary phrase has 1 to ${VOCAB_MAX_CHARS} characters; ${JSON.stringify(maskDigits(phrase))} has ${n}`);
  }
  return p;
}

/** An agent channel: 0 to MAX_AGENT_CHANNEL, or null to remove the setting. */
function checkAgentChannel(n: unknown): number | undefined {
  if (n === null) return undefined;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_AGENT_CHANNEL) {
    throw voxdexError('BAD_ARGUMENT', `--agent-channel takes a channel number from 0 to ${MAX_AGENT_CHANNEL}, or none; not ${JSON.stringify(n)}`);
  }
  return n;
}

function checkAgentPhrases(phrases: unknown): string[] {
  if (!Array.isArray(phrases) || phrases.some((v) => typeof v !== 'string')) throw voxdexError('BAD_ARGUMENT', 'agentPhrases must be a list of phrases');
  const out = [...new Set((phrases as string[]).map(normalizePhrase))];
  if (out.length > AGENT_PHRASES_MAX) throw voxdexError('BAD_ARGUMENT', `A company has at most ${AGENT_PHRASES_MAX} agent phrases; this change would make it ${out.length}`);
  return out;
}

/** Longest spoken number a vocabulary phrase may hold ("Office three sixty five": 3 digits). */
export const VOCAB_MAX_SPOKEN_DIGITS = 3;

/**
 * Why a phrase may not be in a vocabulary, or undefined: the vocabulary never writes digits (issue 24:
 * `vocab=4539148803436467` put a card number into a call that never spoke it). A phrase with a digit
 * is refused, and one whose number words make a number of 4 or more digits ("four five three nine").
 */
export function vocabDigitsProblem(phrase: string): string | undefined {
  if (/\p{Nd}/u.test(phrase)) return 'holds digits';
  const words = phrase.trim().split(/\s+/).map((word, i) => ({ word, start: i, end: i + 0.5, confidence: 1 }));
  const longest = Math.max(0, ...normalizeNumbers(words, { keepLoneDigits: false }).map((e) => (/^\d+$/.test(e.word) ? e.word.length : 0)));
  return longest > VOCAB_MAX_SPOKEN_DIGITS ? `spells a number of ${longest} digits` : undefined;
}

/** A new phrase: normalized, refused when it would write digits (BAD_ARGUMENT naming the rule, the digits masked). */
export function checkNewPhrase(phrase: string, field = 'A vocabulary phrase'): string {
  const p = normalizePhrase(phrase);
  const problem = vocabDigitsProblem(p);
  if (problem) {
    throw voxdexError('BAD_ARGUMENT', `${field} ${JSON.stringify(maskDigits(p))} ${problem}; the vocabulary never writes numbers (it could put a number nobody said into a transcript): spell names without digits, numbers are recognised without it`);
  }
  return p;
}

const maskDigits = (s: string) => s.replace(/\p{Nd}/gu, '#');

/** The phrases of a vocabulary change: each normalized; those not in `current` also checked as new. */
function checkVocab(vocab: unknown, current: readonly string[]): string[] {
  if (!Array.isArray(vocab) || vocab.some((v) => typeof v !== 'string')) throw voxdexError('BAD_ARGUMENT', 'vocab must be a list of phrases');
  const phrases = [...new Set((vocab as string[]).map((v) => (current.includes(normalizePhrase(v)) ? normalizePhrase(v) : checkNewPhrase(v))))];
  if (phrases.length > VOCAB_MAX_PHRASES) {
    throw voxdexError('BAD_ARGUMENT', `A company's vocabulary holds at most ${VOCAB_MAX_PHRASES} phrases; this change would make it ${phrases.length}. Remove some with voxdex vocab remove.`);
  }
  return phrases;
}

/**
 * `current` with `patch` applied: each field the patch names replaces the stored one; an empty list
 * goes back to the default (scrub: no policy; redact: the default kinds; vocab: none); fields the patch
 * leaves undefined stay. Throws BAD_ARGUMENT on any invalid value.
 */
export function mergeCompanySettings(current: CompanySettings, patch: CompanySettings): CompanySettings {
  const out: CompanySettings = { ...current };
  if (patch.scrub !== undefined) out.scrub = checkList('scrub target', patch.scrub, SCRUB_TARGETS);
  if (patch.redact !== undefined) out.redact = checkList('redaction kind', patch.redact, REDACT_KINDS);
  if (patch.redactOff !== undefined) out.redactOff = checkList('redaction kind', patch.redactOff, REDACT_KINDS);
  for (const f of FLAGS) {
    const v = patch[f];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw voxdexError('BAD_ARGUMENT', `${f} must be on or off`);
    out[f] = v;
  }
  if (patch.vocab !== undefined) out.vocab = checkVocab(patch.vocab, current.vocab ?? []);
  if (patch.agentChannel !== undefined) out.agentChannel = checkAgentChannel(patch.agentChannel) ?? null;
  if (patch.agentPhrases !== undefined) out.agentPhrases = checkAgentPhrases(patch.agentPhrases);
  for (const k of Object.keys(out) as (keyof CompanySettings)[]) {
    const v = out[k];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) delete out[k];
  }
  return out;
}

/** The stored JSON back as settings (unknown fields, from a newer version, are kept out). */
export function parseCompanySettings(json: string | undefined): CompanySettings {
  if (json === undefined) return {};
  const raw = JSON.parse(json) as Record<string, unknown>;
  const out: CompanySettings = {};
  if (Array.isArray(raw.scrub)) out.scrub = raw.scrub as CompanySettings['scrub'];
  if (Array.isArray(raw.redact)) out.redact = raw.redact as RedactKind[];
  if (Array.isArray(raw.redactOff)) out.redactOff = raw.redactOff as RedactKind[];
  for (const f of FLAGS) if (typeof raw[f] === 'boolean') out[f as Flag] = raw[f] as boolean;
  if (Array.isArray(raw.vocab)) out.vocab = raw.vocab as string[];
  if (typeof raw.agentChannel === 'number') out.agentChannel = raw.agentChannel;
  if (Array.isArray(raw.agentPhrases)) out.agentPhrases = raw.agentPhrases as string[];
  return out;
}

// ------------------------------------------------------------ the command line's values

/** `on`/`off` (also true/false, 1/0, yes/no) → boolean; anything else names what is accepted. */
export function parseOnOff(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw voxdexError('BAD_ARGUMENT', `--${name} takes on or off, not ${JSON.stringify(value)}`);
}

/** A comma-separated list (`none` or empty = the empty list, `all` = every accepted item), each item checked against `accepted`. */
export function parseKindList<T extends string>(name: string, value: string, accepted: readonly T[]): T[] {
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'none') return [];
  if (v.toLowerCase() === 'all') return [...accepted];
  return checkList(name, v.split(',').map((s) => s.trim().toLowerCase()), accepted);
}

/** `--agent-channel`: a channel number, or none (the setting removed). */
export function parseAgentChannel(value: string): number | null {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === '') return null;
  if (!/^\d+$/.test(v)) throw voxdexError('BAD_ARGUMENT', `--agent-channel takes a channel number from 0 to ${MAX_AGENT_CHANNEL}, or none; not ${JSON.stringify(value)}`);
  return Number(v);
}

/** `--agent-phrases`: comma-separated phrases (`none` or empty: the list removed). */
export function parsePhraseList(value: string): string[] {
  const v = value.trim();
  if (v === '' || v.toLowerCase() === 'none') return [];
  return v.split(',').map((p) => p.trim()).filter((p) => p !== '');
}

/**
 * One line saying what the settings are, e.g. `scrub=text,audio redact=card,ssn,digits,name,-cvv,-expiry
 * diarize=on vocab=12 phrases`; `kinds` is the company's effective kinds as the caller writes them
 * (the kinds parser sits in redact/, beside this layer).
 */
export function describeCompanySettings(s: CompanySettings, kinds: string): string {
  const parts: string[] = [];
  if (s.scrub !== undefined) parts.push(`scrub=${s.scrub.join(',') || 'none'}`);
  parts.push(`redact=${kinds}`);
  for (const f of FLAGS) if (s[f] !== undefined) parts.push(`${f}=${s[f] ? 'on' : 'off'}`);
  if (s.vocab?.length) parts.push(`vocab=${s.vocab.length} phrase${s.vocab.length === 1 ? '' : 's'}`);
  if (typeof s.agentChannel === 'number') parts.push(`agent-channel=${s.agentChannel}`);
  if (s.agentPhrases?.length) parts.push(`agent-phrases=${s.agentPhrases.length}`);
  return parts.join(' ') || 'defaults';
}
