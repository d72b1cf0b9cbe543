/**
 * Under redaction, a live call's utterances are sent only once their redaction is decided: no
 * unredacted digit is ever sent (docs/live.md). Redaction looks at the call around a number — digits
 * said in groups across several utterances of a speaker join into one number as long as each group
 * follows the last within RUN_WINDOW_SEC (src/redact/digit-runs.ts), a month word before a number
 * goes with it, a word between groups or an answer's short trailing words go with the number, and a
 * homophone ("to", "for") or "double" at an utterance's end becomes a digit if digits follow — so an
 * utterance near a number can change until the number can no longer grow.
 *
 * The rule (per channel stream, as redaction builds them whatever the speaker labels): every
 * digit-bearing token (and each month word, and a homophone or "double"/"triple" ending an
 * utterance) opens or extends a "number period" of its stream that lasts until NUMBER_PERIOD_SEC
 * after its last such token (a group joins the last within RUN_WINDOW_SEC, or within
 * ANSWER_CONTINUE_SEC inside an answer window). An utterance of the stream that overlaps a period
 * still open at `now` (the time up to which every channel's speech has been decoded) is held; once
 * the period has closed nothing later can join it, and the utterance is sent as redaction of the call
 * so far leaves it. Inside an answer window ("what's the card number?", src/redact/answer-windows.ts)
 * an utterance is also held until LEAD_GAP_SEC after it: digits following that soon make its words a
 * misheard first group. Utterances that touch neither go at once. With kinds beyond the digit kinds
 * (names, emails, addresses…), an utterance whose redaction a word still to come could change is held
 * too (word-kinds-hold.ts: the call so far is probed with the words that reach furthest back). The
 * whole call is redacted again at its end for the stored document, by the same functions.
 */
import { HOMOPHONES, MONTHS, REPEATS } from '../numbers/lexicon.js';
import { ANSWER_CONTINUE_SEC, answerWindows, topics, type AnswerWindow } from '../redact/answer-windows.js';
import { buildStreams, RUN_WINDOW_SEC, type Stream, type StreamToken } from '../redact/digit-runs.js';
import { LEAD_GAP_SEC } from '../redact/redact.js';
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance } from '../types.js';
import { heldForWordKinds } from './word-kinds-hold.js';

/** How long after a stream's last number token a later one can still join it. */
export const NUMBER_PERIOD_SEC = Math.max(RUN_WINDOW_SEC, ANSWER_CONTINUE_SEC);

const MONTH_SET = new Set<string>(MONTHS);

/** Tokens that can still become part of a number, by stream. */
function numberTokens(streams: readonly Stream[]): Map<string, StreamToken[]> {
  const out = new Map<string, StreamToken[]>();
  for (const s of streams) {
    const last = new Map<number, number>();
    s.tokens.forEach((t, i) => last.set(t.u, i));
    const tokens = s.tokens.filter((t, i) => t.kind === 'digit' || MONTH_SET.has(t.key) || (last.get(t.u) === i && (t.key in HOMOPHONES || t.key in REPEATS)));
    out.set(s.speaker, tokens);
  }
  return out;
}

/** The periods [from, until] of a stream's number tokens (until = last token's end + NUMBER_PERIOD_SEC). */
function periods(tokens: readonly StreamToken[]): Array<{ from: number; until: number }> {
  const out: Array<{ from: number; until: number }> = [];
  for (const t of [...tokens].sort((a, b) => a.start - b.start)) {
    const p = out[out.length - 1];
    if (p && t.start <= p.until) p.until = Math.max(p.until, t.end + NUMBER_PERIOD_SEC);
    else out.push({ from: t.start, until: t.end + NUMBER_PERIOD_SEC });
  }
  return out;
}

/** Redaction's streams are per channel: a one-voice channel split in two diarization labels is one stream. */
const streamOf = (u: Utterance) => `C${u.metadata.channel}`;

/** The utterance lies in an answer window of its stream and digits may still follow within LEAD_GAP_SEC. */
function mayLead(u: Utterance, windows: readonly AnswerWindow[], now: number): boolean {
  return now < u.end + LEAD_GAP_SEC && windows.some((w) => w.time <= u.end && u.start < (w.ends.get(streamOf(u)) ?? w.time));
}

/**
 * Which of `call`'s utterances (the call so far, in any order) may be sent at `now`: the indexes
 * of those whose redaction can no longer change, among `pending` (the indexes not sent yet; default all).
 */
export function decidedUtterances(call: readonly Utterance[], now: number, kinds: readonly RedactKind[] = DEFAULT_REDACT_KINDS, pending?: readonly number[]): Set<number> {
  const streams = buildStreams(call);
  const windows = answerWindows(topics(streams), streams);
  const byStream = new Map<string, Array<{ from: number; until: number }>>();
  for (const [speaker, tokens] of numberTokens(streams)) byStream.set(speaker, periods(tokens));
  // The digit kinds' hold first; the word kinds' probes decide only what it lets go.
  const free = (pending ?? call.map((_, i) => i)).filter((i) => {
    const u = call[i]!;
    const open = (byStream.get(streamOf(u)) ?? []).some((p) => p.until > now && u.end >= p.from && u.start <= p.until);
    return !open && !mayLead(u, windows, now);
  });
  const held = heldForWordKinds(call, now, kinds, free);
  return new Set(free.filter((i) => !held.has(i)));
}
