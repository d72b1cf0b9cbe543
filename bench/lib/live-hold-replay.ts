/**
 * A finished call replayed as a live call would see it (src/pipeline/live-call.ts): its utterances
 * arrive in the order they end (each one decoded the moment it ends), and at each arrival the rule
 * says which of those not sent yet may go and how they read, `now` being the time up to which every
 * channel has been decoded (the start of an utterance still being spoken on another channel, else the
 * arrival), and again every TICK_SEC between arrivals as the live driver asks at each endpointer answer;
 * at the end everything left goes. Then what was sent is held against the redaction of the
 * whole call (the stored document's): a word the document redacts that was sent unredacted is a LEAK;
 * a word sent otherwise than the document reads it (a kind renamed, a redaction the whole call does not
 * make) is a DIFFERENCE. Also how long each utterance waited past its end.
 */
import { LiveRedaction, settledUtterances } from '../../src/redact/engine.js';
import type { Recognizer } from '../../src/redact/recognizer.js';
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

/**
 * `f` run with recognizer `r`'s reach and renames switched off (it still redacts): what the hold owes to
 * that recognizer, and what it would leak without it.
 */
export function withoutReach<T>(r: Recognizer, f: () => T): T {
  const { reach, renames } = r;
  r.reach = (_a, stream) => stream.tokens.length;
  r.renames = () => undefined;
  try {
    return f();
  } finally {
    r.reach = reach;
    r.renames = renames;
  }
}

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

/** How often the replay asks again between two arrivals (the live driver: at each endpointer answer, about every 0.1 s). */
const TICK_SEC = 0.25;
/** Seconds of silence after the last utterance before the call ends. */
const TAIL_SEC = 5;

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
  // The time decoded on every channel at `at`, `n` utterances having arrived: no later than the start of one still being spoken.
  const decoded = (n: number, at: number) => Math.min(at, ...call.slice(n).filter((u) => u.start < at).map((u) => u.start));
  for (let n = 1; n <= call.length; n++) {
    const at = call[n - 1]!.end;
    step(n, decoded(n, at));
    // Between arrivals the live driver asks again as audio is endpointed (every push): here every TICK_SEC.
    const next = call[n]?.end ?? at + TAIL_SEC;
    for (let t = at + TICK_SEC; t < next; t += TICK_SEC) step(n, decoded(n, t));
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
