/**
 * A finished call replayed as a live call would see it (src/pipeline/live-call.ts): its utterances
 * arrive in the order they end (each one decoded the moment it ends), and at each arrival the
 * hold-back rule says which of those not sent yet may go, redacted as the call so far leaves them,
 * `now` being the time up to which every channel has been decoded (the start of an utterance still
 * being spoken on another channel, else the arrival); at the end everything left goes. Then what was sent is held against the redaction of
 * the whole call (the stored document's): a word the document redacts that was sent unredacted is a
 * LEAK. Also how long each utterance waited past its end.
 */
import { decidedUtterances } from '../../src/live/redaction-hold.js';
import { redactUtterances } from '../../src/redact/redact.js';
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance } from '../../src/types.js';

/** Which of `call` may be sent at `now`, of those `pending`. */
export type HoldRule = (call: readonly Utterance[], now: number, kinds: readonly RedactKind[], pending: readonly number[]) => Set<number>;

/** The rule live calls use (src/live/redaction-hold.ts). */
export const HOLD_RULE: HoldRule = (call, now, kinds, pending) => decidedUtterances(call, now, kinds, pending);

/** The rule before the word kinds' probes: the digit kinds' hold, and every utterance 5 s past its end. */
export const BLANKET_RULE: HoldRule = (call, now, _kinds, pending) => {
  const digits = decidedUtterances(call, now, DEFAULT_REDACT_KINDS, pending);
  return new Set([...digits].filter((i) => now >= call[i]!.end + 5));
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
  /** Seconds each utterance waited past its end before it was sent. */
  waits: number[];
}

/** Replays `utterances` (any order) live under `rule`. */
export function replayLive(utterances: readonly Utterance[], kinds: readonly RedactKind[], rule: HoldRule): Replay {
  const call = [...utterances].sort((a, b) => a.end - b.end);
  const final = redactUtterances(call, kinds).utterances;
  const sent = new Map<number, Utterance>();
  const waits: number[] = new Array(call.length).fill(0);
  const release = (n: number, now: number) => {
    const so = call.slice(0, n);
    const pending = so.map((_, i) => i).filter((i) => !sent.has(i));
    if (pending.length === 0) return;
    const decided = rule(so, now, kinds, pending);
    const ready = pending.filter((i) => decided.has(i));
    if (ready.length === 0) return;
    const redacted = redactUtterances(so, kinds).utterances;
    for (const i of ready) {
      sent.set(i, redacted[i]!);
      waits[i] = now === Infinity ? Math.max(0, call.at(-1)!.end - call[i]!.end) : now - call[i]!.end;
    }
  };
  for (let n = 1; n <= call.length; n++) {
    const at = call[n - 1]!.end;
    const speaking = call.slice(n).filter((u) => u.start < at).map((u) => u.start);
    release(n, Math.min(at, ...speaking));
  }
  release(call.length, Infinity);
  const leaks: Leak[] = [];
  final.forEach((u, i) =>
    u.events.forEach((e, k) => {
      if (e.redacted && !sent.get(i)!.events[k]!.redacted) leaks.push({ utterance: i, event: k, kind: e.redacted });
    }),
  );
  return { leaks, waits };
}
