/**
 * A finished call replayed as a live call would see it (src/pipeline/live-call.ts): its utterances
 * arrive in the order they end (each one decoded the moment it ends), and at each arrival the rule
 * says which of those not sent yet may go and how they read, `now` being the time up to which every
 * channel has been decoded (the start of an utterance still being spoken on another channel, else the
 * arrival); at the end everything left goes. Then what was sent is held against the redaction of the
 * whole call (the stored document's): a word the document redacts that was sent unredacted is a LEAK;
 * a word sent otherwise than the document reads it (a kind renamed, a redaction the whole call does not
 * make) is a DIFFERENCE. Also how long each utterance waited past its end.
 */
import { LiveRedaction, settledUtterances } from '../../src/redact/engine.js';
import { redactUtterances } from '../../src/redact/redact.js';
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance } from '../../src/types.js';

/** One call's rule: of `pending` (indexes into the call so far), those that may go at `now`, as they read. */
export type Release = (call: readonly Utterance[], pending: readonly number[], now: number) => Map<number, Utterance>;
export type HoldRule = (kinds: readonly RedactKind[]) => Release;

/** The rule live calls use: the engine (src/redact/engine.ts), incremental, one per call. */
export const HOLD_RULE: HoldRule = (kinds) => {
  const engine = new LiveRedaction(kinds);
  return (call, pending, now) => engine.settle(call, pending, now);
};

/** The rule before the word kinds' hold: the digit kinds' hold, and every utterance 5 s past its end, redacted as the call so far reads. */
export const BLANKET_RULE: HoldRule = (kinds) => (call, pending, now) => {
  const digits = settledUtterances(call, now, DEFAULT_REDACT_KINDS, pending);
  const redacted = redactUtterances(call, kinds).utterances;
  return new Map([...digits].filter((i) => now >= call[i]!.end + 5).map((i) => [i, redacted[i]!]));
};

export interface Leak {
  /** Index of the utterance in the call (by end time) and of the word. */
  utterance: number;
  event: number;
  /** The kind the whole call's redaction gives the word. */
  kind: RedactKind;
}

export interface Replay {
  leaks: Leak[];
  /** Words sent otherwise than the stored document reads them (leaks included). */
  differences: number;
  /** Seconds each utterance waited past its end before it was sent. */
  waits: number[];
}

/** Replays `utterances` (any order) live under `rule`. */
export function replayLive(utterances: readonly Utterance[], kinds: readonly RedactKind[], rule: HoldRule): Replay {
  const call = [...utterances].sort((a, b) => a.end - b.end);
  const final = redactUtterances(call, kinds).utterances;
  const release = rule(kinds);
  const sent = new Map<number, Utterance>();
  const waits: number[] = new Array(call.length).fill(0);
  const step = (n: number, now: number) => {
    const so = call.slice(0, n);
    const pending = so.map((_, i) => i).filter((i) => !sent.has(i));
    if (pending.length === 0) return;
    for (const [i, u] of release(so, pending, now)) {
      sent.set(i, u);
      waits[i] = now === Infinity ? Math.max(0, call.at(-1)!.end - call[i]!.end) : now - call[i]!.end;
    }
  };
  for (let n = 1; n <= call.length; n++) {
    const at = call[n - 1]!.end;
    const speaking = call.slice(n).filter((u) => u.start < at).map((u) => u.start);
    step(n, Math.min(at, ...speaking));
  }
  step(call.length, Infinity);
  const leaks: Leak[] = [];
  let differences = 0;
  final.forEach((u, i) =>
    u.events.forEach((e, k) => {
      const s = sent.get(i)!.events[k]!;
      if (e.redacted && !s.redacted) leaks.push({ utterance: i, event: k, kind: e.redacted });
      if (s.word !== e.word || s.redacted !== e.redacted) differences++;
    }),
  );
  return { leaks, differences, waits };
}
