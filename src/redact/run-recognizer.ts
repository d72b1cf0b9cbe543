/**
 * The digit-run recognizer: the runs of digit-runs.ts named by the per-kind rules of recognizers.ts
 * (card, ssn, expiry, cvv, pin, the personal-data numbers, digits: the first that matches and is asked
 * for names the run), each run's span widened as redaction fails closed (docs/redaction.md, "Failing
 * closed"), and its reach: how far back a digit said later can still change what it claims.
 */
import { REPEATS } from '../numbers/lexicon.js';
import type { RedactKind, Utterance } from '../types.js';
import { analyze, type Analysis } from './analysis.js';
import { ANSWER_WINDOW_SEC, type Topic } from './answer-windows.js';
import { FILLERS, groupJoins, type DigitRun, type Stream } from './digit-runs.js';
import { LENGTH_STRETCH_SEC, lengthChainFirst } from './length-runs.js';
import { runTopic } from './pii/numbers.js';
import { CONTEXT_WINDOW_SEC, isCard, MONTH_KEYS, RECOGNIZERS, type RunContext } from './recognizers.js';
import type { Finding, Recognizer } from './recognizer.js';

/** Words this close (seconds, end to start) are said together. */
const ADJACENT_SEC = 2;
/** A month this close (seconds) before an expiry's digits goes with them. */
const MONTH_GAP_SEC = 3;
/** A homophone ("for", "to") counts as a digit next to a digit said this close (digit-runs.ts). */
const HOMOPHONE_NEAR_SEC = 2;
/** Short replies that end an answer ("okay", "thanks"), never redacted as part of one. */
const REPLIES = new Set(['okay', 'ok', 'yes', 'yeah', 'thanks', 'thank', 'right', 'sure', 'no', 'great', 'good', 'please', 'alright', 'bye']);

/** A sensitive digit run of the requested kinds: the run, its kind, and the stream tokens to replace. */
export interface SensitiveRun {
  run: DigitRun;
  kind: RedactKind;
  from: number;
  to: number;
}

/** The sensitive runs of the requested kinds in `utterances` (client-text.ts reads written text this way). */
export function findSensitive(utterances: readonly Utterance[], kinds: readonly RedactKind[]): SensitiveRun[] {
  return sensitiveRuns(analyze(utterances), new Set(kinds));
}

/** The month right before the run's first digit (within MONTH_GAP_SEC), if any. */
function monthBefore(run: DigitRun): boolean {
  const before = run.stream.tokens[run.first - 1];
  return before !== undefined && MONTH_KEYS.has(before.key) && run.start - before.end <= MONTH_GAP_SEC;
}

function sensitiveRuns(a: Analysis, wanted: ReadonlySet<RedactKind>): SensitiveRun[] {
  const found: SensitiveRun[] = [];
  for (const run of a.runs) {
    const answer = a.hints.answered(run.stream.speaker, run.start);
    const ctx: RunContext = {
      tags: a.said.filter((t) => t.time < run.end && t.time >= run.start - CONTEXT_WINDOW_SEC),
      monthBefore: monthBefore(run),
      answers: answer?.window.tag,
      topic: runTopic(a.view, run),
    };
    const r = RECOGNIZERS.find((rec) => wanted.has(rec.kind) && rec.matches(run, ctx));
    if (!r) continue;
    found.push({ run, kind: r.kind, from: claimStart(a, run, r.kind === 'expiry' && ctx.monthBefore), to: trailingWords(run, answer?.end) });
  }
  return found;
}

/** The first token a run claims: an expiry's month (`month`), its answer's misheard first group, else its first digit. */
function claimStart(a: Analysis, run: DigitRun, month: boolean): number {
  const answer = a.hints.answered(run.stream.speaker, run.start);
  const lead = answer ? leadingWords(run.stream, run.first, run.start, answer.window, a.said) : run.first;
  return Math.min(month ? run.first - 1 : run.first, lead);
}

/** Words of a misheard first group ("fortified two five") this many at most. */
const LEAD_MAX_WORDS = 4;
/** A misheard first group lies at most this long (seconds) before the next word of the answer. */
const LEAD_GAP_SEC = 3;

/**
 * The first token of an answer whose first digit is token `first` of the stream, said at `start`
 * (`first` may be the stream's length: a digit still to come): its leading words that may be a
 * misheard group ("my card number is" + "for tea fight" + "2334 …") go with it — back to the
 * question (and its utterance, asked on the same stream), a reply or filler ("okay", "it is"), a topic
 * word, a quantity or a pause over 3 s.
 */
function leadingWords(stream: Stream, first: number, start: number, w: Topic, said: readonly Topic[]): number {
  const t = stream.tokens;
  // A question asked on this stream (a one-channel call) is no answer: its utterance's words stay ("what phone number should we use").
  const question = !w.own && w.stream === stream.speaker ? t.find((x) => x.start === w.time)?.u : undefined;
  let from = first;
  while (from > 0 && first - from < LEAD_MAX_WORDS) {
    const p = t[from - 1]!;
    const next = from === first ? start : t[from]!.start;
    const isTopic = said.some((x) => x.stream === stream.speaker && x.time === p.start);
    if (p.start <= w.time || p.u === question || next - p.end > LEAD_GAP_SEC || p.kind !== 'word' || isTopic || REPLIES.has(p.key) || FILLERS.has(p.key)) break;
    from--;
  }
  return from;
}

/**
 * The last token of a run: an answer's trailing misheard words ("two sakes") go with it, up to a
 * reply or the window's end; then, failing closed, a count said right after it may be its last
 * digits: in the same utterance ("…zero three months ago") always, in the next one only when the
 * run is not a whole card without it ("…zero" + "three months ago").
 */
function trailingWords(run: DigitRun, windowEnd: number | undefined): number {
  const t = run.stream.tokens;
  let to = run.last;
  const uttLength = (u: number) => t.filter((x) => x.u === u).length;
  if (windowEnd !== undefined) {
    while (to + 1 < t.length) {
      const n = t[to + 1]!;
      if (n.start >= windowEnd || n.start - t[to]!.end > 3 || n.kind === 'quantity' || REPLIES.has(n.key) || uttLength(n.u) > 3) break;
      to++;
    }
  }
  const whole = isCard(run.digits);
  for (let n = t[to + 1]; n && n.kind === 'quantity' && n.digits !== '' && n.start - t[to]!.end <= ADJACENT_SEC && (n.u === t[to]!.u || !whole); n = t[to + 1]) to++;
  return to;
}

/** An utterance of at least this many words and no digit, between two groups of a number, is chatter, not a misheard group. */
const CHATTER_MIN_WORDS = 5;

/**
 * The tokens of a digit run's span that are chatter ("wait let me find my glasses they are
 * somewhere", a sentence of its own between the groups): kept, the digits around them redacted.
 */
function chatter(run: SensitiveRun): Set<number> {
  const t = run.run.stream.tokens;
  const byUtt = new Map<number, number[]>();
  for (let i = run.from; i <= run.to; i++) {
    const list = byUtt.get(t[i]!.u) ?? [];
    list.push(i);
    byUtt.set(t[i]!.u, list);
  }
  const spared = new Set<number>();
  for (const [u, inside] of byUtt) {
    const all = t.filter((x) => x.u === u);
    const sentence = all.length >= CHATTER_MIN_WORDS && all.every((x) => x.digits === '' && !/\d/.test(x.key));
    if (sentence && inside.length === all.length) for (const i of inside) spared.add(i);
  }
  return spared;
}

/** The stream's last run, if a digit said from `nextStart` on (token `nextIndex` on) can still join it. */
function joinableRun(a: Analysis, stream: Stream, nextIndex: number, nextStart: number): DigitRun | undefined {
  let run: DigitRun | undefined;
  for (const r of a.runs) if (r.stream === stream && (!run || r.first > run.first)) run = r;
  if (!run) return undefined;
  // Inside its answer window a group joins whatever the pause, while the window is open for the stream.
  const w = a.hints.answered(stream.speaker, run.start);
  const answer = w !== undefined && w.end > nextStart;
  return groupJoins(stream, run, { first: nextIndex, start: nextStart, digits: 2, wordUse: false }, a.hints, answer) ? run : undefined;
}

/**
 * What a word said from `now` on can still change, as token indexes of the stream: a trailing
 * homophone ("… calling for") becomes a digit only with a digit said within HOMOPHONE_NEAR_SEC
 * (a "double" before any digit); the last run, while a digit can join it (groupJoins); a month
 * just said, before an expiry's digits; in an open answer window, the words a first digit within
 * LEAD_GAP_SEC would take as a misheard group; a year said after a date, before a digit.
 */
function runReach(a: Analysis, stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  const last = t[t.length - 1]!;
  let open = t.length;
  let chain = t.length;
  while (chain > 0 && (t[chain - 1]!.kind === 'homophone' || t[chain - 1]!.key in REPEATS)) chain--;
  const chainOpen = chain < t.length && (now - last.end <= HOMOPHONE_NEAR_SEC || last.key in REPEATS);
  if (chainOpen) open = chain;
  const next = chainOpen ? { index: chain, start: t[chain]!.start } : { index: t.length, start: now };
  const run = joinableRun(a, stream, next.index, next.start);
  if (run) open = Math.min(open, claimStart(a, run, monthBefore(run)));
  // Digits said next may still complete a card's or an SSN's length with the runs before (joinByLength).
  const byLength = lengthChainFirst(a.runs.filter((r) => r.stream === stream), next.start, a.hints);
  if (byLength) open = Math.min(open, claimStart(a, byLength, monthBefore(byLength)));
  if (MONTH_KEYS.has(last.key) && now - last.end <= MONTH_GAP_SEC) open = Math.min(open, t.length - 1);
  for (const w of a.windows) {
    if (w.time > now || (w.ends.get(stream.speaker) ?? w.time) <= now) continue;
    open = Math.min(open, leadingWords(stream, t.length, now, w, a.said));
  }
  // "march third twenty twenty five": a year only while no digit follows it (digit-runs.ts).
  let year = t.length;
  while (year > 0 && t[year - 1]!.kind === 'quantity' && t[year - 1]!.digits !== '') year--;
  if (year < t.length) open = Math.min(open, Math.max(0, year - 1));
  return open;
}

/** The earliest time whose words a run that may still grow needs: its context words and its question. */
function runContext(a: Analysis, stream: Stream, now: number): number {
  const chain = lengthChainFirst(a.runs.filter((r) => r.stream === stream), now, a.hints);
  const run = joinableRun(a, stream, stream.tokens.length, now);
  if (!run) return chain ? chain.start - CONTEXT_WINDOW_SEC : Infinity;
  const w = a.hints.answered(stream.speaker, run.start);
  return Math.min(run.start - CONTEXT_WINDOW_SEC, w?.window.time ?? Infinity, chain ? chain.start - CONTEXT_WINDOW_SEC : Infinity);
}

export const runRecognizer: Recognizer = {
  name: 'digit runs',
  kinds: RECOGNIZERS.map((r) => r.kind),
  analyze: (a, wanted) => sensitiveRuns(a, wanted).map((s): Finding => ({ kind: s.kind, stream: s.run.stream, from: s.from, to: s.to, spared: chatter(s) })),
  reach: runReach,
  // A run that may still grow, and the runs digits said next may still make a card or an SSN with by
  // length: from its claim's first word on (the words after it become the run's if a group joins it).
  renames: (a, stream, now) => {
    const runs = a.runs.filter((r) => r.stream === stream);
    const open = [joinableRun(a, stream, stream.tokens.length, now), lengthChainFirst(runs, now, a.hints)].filter((r) => r !== undefined);
    if (open.length === 0) return undefined;
    return [Math.min(...open.map((r) => claimStart(a, r, monthBefore(r)))), stream.tokens.length - 1];
  },
  contextSec: Math.max(CONTEXT_WINDOW_SEC + ANSWER_WINDOW_SEC, LENGTH_STRETCH_SEC + CONTEXT_WINDOW_SEC),
  context: runContext,
};
