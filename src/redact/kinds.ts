/**
 * The one parser of a redaction kinds list (docs/redaction.md, "Kinds"): a request's `redact=` (HTTP
 * form and query, a live call's query, a drop-folder sidecar, `voxdex transcribe|import --redact`),
 * `voxdex company set --redact` and `voxdex redact --redact` all read it here.
 *
 * Kinds fail closed: naming kinds adds them to the default kinds (the card kinds — card, cvv, expiry,
 * ssn — and digits), never replaces them; `all` is every kind; a default kind is turned off only by
 * name with a minus (`redact=name,-cvv`), and that choice is kept (`off`) so the result can show it.
 */
import { voxdexError } from '../errors.js';
import { invalidParameter } from '../is.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS, type AppliedRedaction, type RedactKind, type RequestOptions } from '../types.js';

/** `redact=all`: every kind. */
export const ALL_KINDS = 'all';
/** The kinds of a payment card (and the SSN asked beside it): on whenever text is scrubbed unless turned off by name. */
export const CARD_KINDS: readonly RedactKind[] = ['card', 'cvv', 'expiry', 'ssn'];

/** A parsed kinds list: the kinds named (all of them for `all`) and those turned off (`-cvv`). */
export interface KindsChoice {
  on: RedactKind[];
  off: RedactKind[];
}

export const NO_CHOICE: KindsChoice = { on: [], off: [] };

/** One line of help for every `--redact KINDS`. */
export const KINDS_HELP = `comma-separated kinds (${REDACT_KINDS.join(', ')}) or ${ALL_KINDS}, added to the default kinds (${DEFAULT_REDACT_KINDS.join(', ')}); -KIND turns one off (name,-cvv)`;

const ACCEPTED = `a comma-separated list of ${REDACT_KINDS.join(', ')} or ${ALL_KINDS} (each adds to the default kinds; -KIND turns one off, e.g. name,-cvv)`;

const isKind = (k: string): k is RedactKind => (REDACT_KINDS as readonly string[]).includes(k);

/**
 * Parses `value` (a comma-separated string, or a sidecar's array of strings; absent or '' is no
 * choice). Names are case-insensitive and trimmed. BAD_ARGUMENT names the bad entry and what is
 * accepted; a kind both named and turned off is refused (`all,-name` is every kind but name).
 */
export function parseKinds(name: string, value: unknown): KindsChoice {
  if (value === undefined || value === null || value === '') return NO_CHOICE;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || !items.every((x) => typeof x === 'string')) throw invalidParameter(name, ACCEPTED, value);
  const on = new Set<RedactKind>();
  const named = new Set<RedactKind>();
  const off = new Set<RedactKind>();
  for (const raw of items as string[]) {
    const item = raw.trim().toLowerCase();
    if (item === '') continue;
    const minus = item.startsWith('-');
    const kind = minus ? item.slice(1).trim() : item;
    if (kind === ALL_KINDS && !minus) REDACT_KINDS.forEach((k) => on.add(k));
    else if (isKind(kind)) (minus ? off : named).add(kind);
    else throw invalidParameter(name, ACCEPTED, raw.trim());
  }
  // `all,-name` is every kind but name; `name,-name` says two things.
  const both = [...off].find((k) => named.has(k));
  if (both !== undefined) {
    throw voxdexError('BAD_ARGUMENT', `${name} names ${both} and -${both}; name a kind to add it or -${both} to turn it off, not both`);
  }
  return { on: inOrder([...on, ...named].filter((k) => !off.has(k))), off: inOrder(off) };
}

/** `base` with the choice applied: the named kinds added, then those turned off removed. */
export function applyKinds(base: readonly RedactKind[], choice: KindsChoice): RedactKind[] {
  const off = new Set(choice.off);
  return inOrder(new Set([...base, ...choice.on].filter((k) => !off.has(k))));
}

/** The kinds a choice stands for on its own: the default kinds, plus those named, less those turned off. */
export function effectiveKinds(choice: KindsChoice): RedactKind[] {
  return applyKinds(DEFAULT_REDACT_KINDS, choice);
}

/** Of the default kinds, those the kinds leave out (what was turned off, shown beside the kinds). */
export function defaultKindsOff(kinds: readonly RedactKind[]): RedactKind[] {
  return DEFAULT_REDACT_KINDS.filter((k) => !kinds.includes(k));
}

/** The kinds in the listed order (REDACT_KINDS), each once. */
export function inOrder(kinds: Iterable<RedactKind>): RedactKind[] {
  const set = new Set(kinds);
  return REDACT_KINDS.filter((k) => set.has(k));
}

/** The kinds as a list in the parser's own syntax, what is off shown: `card,ssn,digits,name,-cvv,-expiry`. */
export function describeKinds(kinds: readonly RedactKind[]): string {
  return [...kinds, ...defaultKindsOff(kinds).map((k) => `-${k}`)].join(',');
}

/** What a result says about its redaction (`redaction` of the document); undefined when none was asked. */
export function appliedRedaction(o: Pick<RequestOptions, 'scrubtext' | 'scrubaudio' | 'tag' | 'redact'>): AppliedRedaction | undefined {
  if (!o.scrubtext && !o.scrubaudio && !o.tag) return undefined;
  const off = defaultKindsOff(o.redact);
  return {
    text: o.scrubtext ? 'redacted' : o.tag ? 'tagged' : 'kept',
    audio: o.scrubaudio ? 'silenced' : 'kept',
    kinds: [...o.redact],
    ...(off.length ? { off } : {}),
  };
}
