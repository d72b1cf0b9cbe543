/**
 * Redaction of a transcript's utterances (scrubtext): recognizers find sensitive digit runs
 * (recognizers.ts over digit-runs.ts) and personal data (pii/, docs/pii.md); the anonymizer replaces
 * their events — `word` becomes one `#` per digit (`###` for a word that stands for no digit, `[NAME]`,
 * `[EMAIL]`… for the personal-data kinds), `redacted: kind`, times and confidence kept — or, for
 * scrubtext=tag, marks them (`pii: kind`). Works on numerals (numtrans) and on number words alike.
 * The spans it returns carry no words.
 */
import { closingPunctuation, utteranceText } from '../readable/utterance-text.js';
import { DEFAULT_REDACT_KINDS, type Utterance, type WordEvent } from '../types.js';
import { answerWindows, topics, windowHints, type Topic } from './answer-windows.js';
import { buildStreams, digitRuns, FILLERS, type DigitRun, type Stream } from './digit-runs.js';
import { CONTEXT_WINDOW_SEC, isCard, KIND_PRECEDENCE, MONTH_KEYS, RECOGNIZERS, type RedactionKind, type RunContext } from './recognizers.js';
import { runTopic } from './pii/numbers.js';
import { findPersonalData, PII_KINDS, piiView } from './pii/recognize.js';
import type { PiiView } from './pii/spans.js';

export interface RedactionSpan {
  kind: RedactionKind;
  channel: number;
  speaker: string;
  start: number;
  end: number;
  /** How many digits were replaced. */
  digits: number;
}

export type RedactedWordEvent = WordEvent;

export interface RedactionResult {
  utterances: Utterance[];
  spans: RedactionSpan[];
}

export const DEFAULT_KINDS: readonly RedactionKind[] = DEFAULT_REDACT_KINDS;

/** Words this close (seconds, end to start) are said together. */
const ADJACENT_SEC = 2;
/** Short replies that end an answer ("okay", "thanks"), never redacted as part of one. */
const REPLIES = new Set(['okay', 'ok', 'yes', 'yeah', 'thanks', 'thank', 'right', 'sure', 'no', 'great', 'good', 'please', 'alright', 'bye']);

/** A sensitive digit run of the requested kinds: the run, its kind, and the stream tokens to replace. */
export interface SensitiveRun {
  run: DigitRun;
  kind: RedactionKind;
  from: number;
  to: number;
}

/**
 * Finds the sensitive runs of the requested kinds. Pure: callable on a call so far (live); a run's
 * extent can still change while its answer window is open (answer-windows.ts) or its stream's last
 * digit is within RUN_WINDOW_SEC (docs/redaction.md, "Calling it on a call so far").
 */
export function findSensitive(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS): SensitiveRun[] {
  const streams = buildStreams(utterances);
  return sensitiveRuns(streams, piiView(utterances, streams), kinds);
}

function sensitiveRuns(streams: readonly Stream[], view: PiiView, kinds: readonly RedactionKind[]): SensitiveRun[] {
  const said = topics(streams);
  const hints = windowHints(said, answerWindows(said, streams));
  const wanted = new Set(kinds);
  const found: SensitiveRun[] = [];
  for (const run of digitRuns(streams, hints)) {
    const before = run.stream.tokens[run.first - 1];
    const answer = hints.answered(run.stream.speaker, run.start);
    const ctx: RunContext = {
      tags: said.filter((t) => t.time < run.end && t.time >= run.start - CONTEXT_WINDOW_SEC),
      monthBefore: before !== undefined && MONTH_KEYS.has(before.key) && run.start - before.end <= 3,
      answers: answer?.window.tag,
      topic: runTopic(view, run),
    };
    const r = RECOGNIZERS.find((rec) => wanted.has(rec.kind) && rec.matches(run, ctx));
    if (!r) continue;
    const month = r.kind === 'expiry' && ctx.monthBefore ? run.first - 1 : run.first;
    const from = Math.min(month, answer ? leadingWords(run, answer.window, said) : run.first);
    found.push({ run, kind: r.kind, from, to: trailingWords(run, answer?.end) });
  }
  return found;
}

/** Words of a misheard first group ("fortified two five") this many at most. */
const LEAD_MAX_WORDS = 4;
/** A misheard first group lies at most this long (seconds) before the next word of the answer. */
export const LEAD_GAP_SEC = 3;

/**
 * The first token of an answer: its leading words that may be a misheard group ("my card number
 * is" + "for tea fight" + "2334 …") go with it — back to the question, a reply or filler ("okay",
 * "it is"), a topic word, a quantity or a pause over 3 s.
 */
function leadingWords(run: DigitRun, w: Topic, said: readonly Topic[]): number {
  const t = run.stream.tokens;
  let from = run.first;
  while (from > 0 && run.first - from < LEAD_MAX_WORDS) {
    const p = t[from - 1]!;
    const isTopic = said.some((x) => x.stream === run.stream.speaker && x.time === p.start);
    if (p.start <= w.time || t[from]!.start - p.end > LEAD_GAP_SEC || p.kind !== 'word' || isTopic || REPLIES.has(p.key) || FILLERS.has(p.key)) break;
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

/** One `#` per digit the event stands for, `###` when it stands for none. */
export function maskWord(word: string, digits: string): string {
  const n = /\d/.test(word) ? word.replace(/\D/g, '').length : digits.length;
  return n > 0 ? '#'.repeat(n) : '###';
}

/** The replaced word: `#` per digit; a word without digits `[NAME]`, `[ADDRESS]`… for the personal-data kinds, `###` for the card kinds. */
export function replacement(word: string, digits: string, kind: RedactionKind): string {
  const masked = maskWord(word, digits);
  return masked === '###' && (PII_KINDS as readonly string[]).includes(kind) ? `[${kind.toUpperCase()}]` : masked;
}

/**
 * The event with its word replaced, times and confidence kept; a `pii` mark (scrubtext=tag, redacted
 * later) goes. A written form the ASR carried (WordEvent.written) becomes the replacement too, keeping
 * only its closing punctuation: no spread of the original event may keep a word of it.
 */
export function replaced(ev: WordEvent, word: string, kind: RedactionKind): WordEvent {
  const { pii: _mark, written, ...rest } = ev;
  const carried = written === undefined ? {} : { written: written === '' ? '' : word + closingPunctuation(written) };
  return { ...rest, word, redacted: kind, ...carried };
}

export interface RedactMode {
  /** scrubtext=tag: mark the events (`pii: kind`) and keep their words. */
  tag?: boolean;
}

/** A finding's stream tokens [from, to] and its kind, whichever recognizer family found it. */
interface Finding {
  kind: RedactionKind;
  stream: Stream;
  from: number;
  to: number;
  /** Tokens inside [from, to] that keep their word (a sentence of chatter between a number's groups). */
  spared?: ReadonlySet<number>;
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

/**
 * scrubtext: the utterances with sensitive events replaced (new objects; the input is not changed),
 * or with `tag`, marked. Digit runs and personal-data spans are found on the same streams; where they
 * overlap, KIND_PRECEDENCE names the word.
 */
export function redactUtterances(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS, mode: RedactMode = {}): RedactionResult {
  const streams = buildStreams(utterances);
  const view = piiView(utterances, streams);
  const findings: Finding[] = [
    ...sensitiveRuns(streams, view, kinds).map((s) => ({ kind: s.kind, stream: s.run.stream, from: s.from, to: s.to, spared: chatter(s) })),
    ...findPersonalData(view, kinds),
  ];
  // Each event's kind: the finding of highest precedence that covers it.
  const rank = (k: RedactionKind) => KIND_PRECEDENCE.indexOf(k);
  const claims = new Map<string, Finding>();
  for (const f of findings) {
    for (let i = f.from; i <= f.to; i++) {
      if (f.spared?.has(i)) continue;
      const t = f.stream.tokens[i]!;
      const key = `${t.u}:${t.e}`;
      const had = claims.get(key);
      if (!had || rank(f.kind) < rank(had.kind)) claims.set(key, f);
    }
  }
  const out = utterances.map((u) => ({ ...u, events: u.events.slice() }));
  const spans: RedactionSpan[] = [];
  const changed = new Set<number>();
  for (const f of findings) {
    let digits = 0;
    let any = false;
    for (let i = f.from; i <= f.to; i++) {
      const t = f.stream.tokens[i]!;
      if (claims.get(`${t.u}:${t.e}`) !== f) continue;
      const ev = out[t.u]!.events[t.e]!;
      if (ev.redacted) continue;
      any = true;
      const d = t.digits;
      digits += /\d/.test(ev.word) ? ev.word.replace(/\D/g, '').length : d.length;
      out[t.u]!.events[t.e] = mode.tag ? { ...ev, pii: f.kind } : replaced(ev, replacement(ev.word, d, f.kind), f.kind);
      if (!mode.tag) changed.add(t.u);
    }
    if (!any) continue;
    spans.push({ kind: f.kind, channel: f.stream.channel, speaker: f.stream.tokens[f.from]!.speaker, start: f.stream.tokens[f.from]!.start, end: f.stream.tokens[f.to]!.end, digits });
  }
  // A stored transcript's text (voxdex redact) is written again from its redacted events.
  for (const u of changed) if (out[u]!.text !== undefined) out[u]!.text = utteranceText(out[u]!.events, { numtrans: true });
  return { utterances: out, spans: spans.sort((a, b) => a.start - b.start) };
}
