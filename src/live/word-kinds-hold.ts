/**
 * The live hold-back for the personal-data kinds (name, email, address…, src/redact/pii/): an
 * utterance is sent only when no word still to come can change its redaction. Their recognizers
 * reach back: an email's "at gmail dot com" makes the "john dot smith" said before it (maybe in the
 * utterance before) its local part; letters spelled on ("s m" + "i t h") make a run; a street type
 * makes the number and words before it a street; an answer to "what's your email?" is redacted
 * whole once an address is read in it.
 *
 * Rather than restate each recognizer's reach here (and miss the next rule someone adds), the call so
 * far is PROBED: every channel gets, right after its last word (or at `now`, if later), the words that
 * reach furthest back — an email's end, spelled letters, the word of "p as in …" — and the redaction
 * of the call so far is compared with the probed one (all channels probed in one run: a probe holds
 * no cue, so one channel's probe changes nothing on another). An utterance
 * with a word the probe redacts that is not redacted without it is held; once the channel has paused
 * long enough and its windows have closed, no probe changes it, and it goes. A probe only adds
 * holds: what is sent is always the redaction of the real call so far.
 */
import { redactUtterances } from '../redact/redact.js';
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance, type WordEvent } from '../types.js';

/**
 * Words said next that would reach furthest back into the call so far, one probe each: an email's
 * end (its local part said before), spelled letters (a run started before), the example word of
 * "p as in …" and letters after it. What reaches back from a number (a street type after "forty two
 * maple", a year after "march third") needs no probe: a digit or month word holds its utterance and
 * those after it NUMBER_PERIOD_SEC (redaction-hold.ts), longer than any such reach.
 */
export const PROBES: ReadonlyArray<readonly string[]> = [
  ['at', 'gmail', 'dot', 'com'],
  ['s', 'm', 'i', 't', 'h'],
  ['peter', 's', 'm', 'i'],
];
/** Seconds between a probe's words, and after the channel's last word. */
const PROBE_STEP_SEC = 0.3;
/**
 * Utterances that ended this long (seconds) before the earliest one to decide are context enough for
 * a probe: the longest reach back is an answer window (20 s after its cue) or an email walked back
 * over 30 tokens.
 */
export const PROBE_CONTEXT_SEC = 90;

/** The kinds asked for beyond the default digit kinds (whose hold is the number periods of redaction-hold.ts). */
export function wordKinds(kinds: readonly RedactKind[]): RedactKind[] {
  return kinds.filter((k) => !DEFAULT_REDACT_KINDS.includes(k));
}

/** The probe's words as one utterance of `channel` from `at`. */
function probeUtterance(channel: number, at: number, words: readonly string[]): Utterance {
  const events: WordEvent[] = words.map((word, i) => ({ word, start: at + i * PROBE_STEP_SEC, end: at + i * PROBE_STEP_SEC + 0.25, confidence: 1, written: word }));
  return { start: at, end: events.at(-1)!.end, confidence: 1, metadata: { channel, uttid: -1 }, events };
}

/** `u:e` of every redacted event of the first `n` utterances. */
function redactedEvents(utts: readonly Utterance[], n: number): Set<string> {
  const out = new Set<string>();
  for (let u = 0; u < n; u++) utts[u]!.events.forEach((e, i) => e.redacted && out.add(`${u}:${i}`));
  return out;
}

/** The channels of `call` and when each one's last word ends. */
function channelEnds(call: readonly Utterance[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const u of call) out.set(u.metadata.channel, Math.max(out.get(u.metadata.channel) ?? -Infinity, u.end));
  return out;
}

/**
 * Indexes into `call` of the utterances whose word-kind redaction may still change when more words
 * come (with `kinds` holding none of the personal-data kinds: none). `now`: the time up to which every
 * channel has been decoded (Infinity: the call is over, nothing is held). `pending`: the indexes still
 * to decide (default all); utterances ending PROBE_CONTEXT_SEC before the earliest of them are left
 * out of the probes' context.
 */
export function heldForWordKinds(call: readonly Utterance[], now: number, kinds: readonly RedactKind[], pending?: readonly number[]): Set<number> {
  const words = wordKinds(kinds);
  const held = new Set<number>();
  const todo = pending ?? call.map((_, i) => i);
  if (words.length === 0 || now === Infinity || todo.length === 0) return held;
  const from = Math.min(...todo.map((i) => call[i]!.start)) - PROBE_CONTEXT_SEC;
  const index = call.map((u, i) => (u.end >= from ? i : -1)).filter((i) => i >= 0);
  const context = index.map((i) => call[i]!);
  const base = redactedEvents(redactUtterances(context, words).utterances, context.length);
  const ends = channelEnds(context);
  for (const probe of PROBES) {
    const probes = [...ends].map(([channel, end]) => probeUtterance(channel, Math.max(now, end) + PROBE_STEP_SEC, probe));
    const probed = redactUtterances([...context, ...probes], words).utterances;
    for (const key of redactedEvents(probed, context.length)) if (!base.has(key)) held.add(index[Number(key.split(':')[0])]!);
  }
  return held;
}

/**
 * What a partial (the open utterance of `channel`, decoded so far) must show instead of its words under
 * word-kind redaction, by index into `partial`: the replacement of each word the call so far with the
 * partial redacts (`[NAME]`), and `###` for each word a probe after it redacts (the utterance is still
 * open: anything may follow).
 */
export function maskedPartialWords(call: readonly Utterance[], partial: readonly WordEvent[], channel: number, kinds: readonly RedactKind[]): Map<number, string> {
  const words = wordKinds(kinds);
  const out = new Map<number, string>();
  if (words.length === 0 || partial.length === 0) return out;
  const last = partial.at(-1)!;
  const open: Utterance = { start: partial[0]!.start, end: last.end, confidence: 1, metadata: { channel, uttid: -1 }, events: [...partial] };
  const from = open.start - PROBE_CONTEXT_SEC;
  const context = [...call.filter((u) => u.end >= from), open];
  const k = context.length - 1;
  redactUtterances(context, words).utterances[k]!.events.forEach((e, i) => e.redacted && out.set(i, e.word));
  for (const probe of PROBES) {
    const probed = redactUtterances([...context, probeUtterance(channel, last.end + PROBE_STEP_SEC, probe)], words).utterances[k]!;
    probed.events.forEach((e, i) => e.redacted && !out.has(i) && out.set(i, '###'));
  }
  return out;
}
