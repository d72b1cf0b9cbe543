/**
 * Redaction of a call as it is spoken (docs/redaction.md, "The engine"): which words of the call so far
 * are SETTLED at a time `now` — no recognizer asked for can still redact them, whatever is said from
 * `now` on — read from the reaches the recognizers declare (recognizer.ts, registry.ts); and the
 * redaction of the open tail only, over a context bounded by what the recognizers still need, so
 * that a release costs the same at the thousandth utterance as at the tenth. A word already redacted
 * is settled (a redaction is never undone) unless its recognizer may still rename it (a number that
 * may still grow, whose kind may change). The same recognizers and anonymizer redact a whole call
 * (redact.ts): the stored document is batch redaction's.
 */
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance, type WordEvent } from '../types.js';
import { analyze } from './analysis.js';
import { anonymize, type RedactMode } from './anonymizer.js';
import { findingsOf } from './redact.js';
import { recognizersFor } from './registry.js';

/** A call asked again within this many seconds of the last answer, with no new utterance, is not redacted again. */
const RECHECK_SEC = 0.25;

/** Seconds of context kept before the earliest word still needed: the longest a recognizer declares. */
function contextSec(recognizers: ReturnType<typeof recognizersFor>): number {
  return Math.max(0, ...recognizers.map((r) => r.contextSec));
}

interface Tail {
  /** Indexes into the call of the context's utterances, in the context's order. */
  index: number[];
  utterances: Utterance[];
  /** Per context utterance: the events that may still be redacted. */
  open: Array<Set<number>>;
  /** The earliest time the next redaction's context needs. */
  need: number;
}

/**
 * One call's redaction as it goes (a live call holds one): `settle` answers which utterances may be
 * sent and how they read; the context it redacts starts where the previous answer said words are
 * still needed (an open run's question, its first digit), never at the call's start.
 */
export class LiveRedaction {
  readonly kinds: readonly RedactKind[];
  readonly #mode: RedactMode;
  readonly #wanted: ReadonlySet<RedactKind>;
  readonly #contextSec: number;
  /** The earliest time whose words the next context needs (Infinity: only those of the pending utterances). */
  #need = Infinity;
  /** The call's length and the time at the last answer. */
  #asked = { length: -1, now: -Infinity };
  /** How many utterances the last `settle` redacted (its context): what a release costs. */
  contextSize = 0;

  constructor(kinds: readonly RedactKind[], mode: RedactMode = {}) {
    this.kinds = kinds;
    this.#mode = mode;
    this.#wanted = new Set(kinds);
    this.#contextSec = contextSec(recognizersFor(this.#wanted));
  }

  /**
   * Of `pending` (indexes into `call`, the call so far in any order), those whose every word is settled
   * at `now` — the time up to which every channel has been decoded; Infinity: the call is over —
   * with their redaction.
   */
  settle(call: readonly Utterance[], pending: readonly number[], now: number): Map<number, Utterance> {
    const out = new Map<number, Utterance>();
    if (pending.length === 0) return out;
    // Asked again with no new utterance and less than RECHECK_SEC later: nothing can have left a reach yet worth a redaction.
    if (call.length === this.#asked.length && now !== Infinity && now - this.#asked.now < RECHECK_SEC) return out;
    this.#asked = { length: call.length, now };
    const from = Math.min(this.#need, ...pending.map((i) => call[i]!.start)) - this.#contextSec;
    const tail = this.#tail(call, from, now);
    this.contextSize = tail.index.length;
    const isPending = new Set(pending);
    let need = tail.need;
    tail.index.forEach((i, k) => {
      if (!isPending.has(i)) return;
      if (tail.open[k]!.size > 0) need = Math.min(need, call[i]!.start);
      else out.set(i, tail.utterances[k]!);
    });
    this.#need = need;
    return out;
  }

  /** The context from `from` on, redacted, with what may still change at `now`. */
  #tail(call: readonly Utterance[], from: number, now: number): Tail {
    const index: number[] = [];
    const channels = new Set<number>();
    call.forEach((u, i) => {
      channels.add(u.metadata.channel);
      if (u.end >= from) index.push(i);
    });
    const context = index.map((i) => call[i]!);
    const a = analyze(context, channels.size);
    const utterances = anonymize(context, findingsOf(context, this.kinds, a), this.#mode).utterances;
    const open = context.map(() => new Set<number>());
    let need = Infinity;
    if (now !== Infinity) {
      const recognizers = recognizersFor(this.#wanted);
      const changed = (ev: WordEvent) => (this.#mode.tag ? ev.pii : ev.redacted) !== undefined;
      for (const stream of a.streams) {
        for (const r of recognizers) {
          const reach = r.reach(a, stream, now);
          need = Math.min(need, r.context(a, stream, now), stream.tokens[reach]?.start ?? Infinity);
          for (const t of stream.tokens.slice(reach)) if (!changed(utterances[t.u]!.events[t.e]!)) open[t.u]!.add(t.e);
          const renamed = r.renames(a, stream, now);
          if (renamed) for (const t of stream.tokens.slice(renamed[0], renamed[1] + 1)) open[t.u]!.add(t.e);
        }
      }
    }
    return { index, utterances, open, need };
  }

  /**
   * What a partial (the open utterance of `channel`, decoded so far) shows instead of its words under
   * the personal-data kinds, by index into `partial`: each word the call so far with the partial
   * redacts as it reads (`[NAME]`), and `###` for each word a word still to come could redact (numbers
   * are masked whatever they turn out to be: src/live/partials.ts).
   */
  maskPartial(call: readonly Utterance[], partial: readonly WordEvent[], channel: number): Map<number, string> {
    const out = new Map<number, string>();
    const words = this.kinds.filter((k) => !DEFAULT_REDACT_KINDS.includes(k));
    if (words.length === 0 || partial.length === 0) return out;
    const last = partial[partial.length - 1]!;
    const openUtt: Utterance = { start: partial[0]!.start, end: last.end, confidence: 1, metadata: { channel, uttid: -1 }, events: [...partial] };
    const tail = new LiveRedaction(words, this.#mode).#tail([...call, openUtt], Math.min(this.#need, openUtt.start) - this.#contextSec, last.end);
    const k = tail.index.length - 1;
    tail.utterances[k]!.events.forEach((e, i) => {
      if (e.redacted) out.set(i, e.word);
      else if (tail.open[k]!.has(i)) out.set(i, '###');
    });
    return out;
  }
}

/** Of `pending` (default: all), the indexes of `call`'s utterances settled at `now` under `kinds` (a fresh engine: the whole call is context). */
export function settledUtterances(call: readonly Utterance[], now: number, kinds: readonly RedactKind[] = DEFAULT_REDACT_KINDS, pending?: readonly number[]): Set<number> {
  return new Set(new LiveRedaction(kinds).settle(call, pending ?? call.map((_, i) => i), now).keys());
}
