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
import { buildStreams, digitRuns, type DigitRun, type RunHints, type Stream } from './digit-runs.js';
import { CONTEXT_WINDOW_SEC, contextTag, KIND_PRECEDENCE, MONTH_KEYS, RECOGNIZERS, REDACTION_KINDS, type ContextTag, type RedactionKind, type RunContext } from './recognizers.js';
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

interface Tag {
  tag: ContextTag;
  time: number;
  speaker: string;
  key: string;
}
interface AnswerWindow extends Tag {
  end: number;
}

/** Seconds after a question ("what's the security code?") in which another speaker's digits answer it. */
export const ANSWER_WINDOW_SEC = 20;
/** Short replies that end an answer ("okay", "thanks"), never redacted as part of one. */
const REPLIES = new Set(['okay', 'ok', 'yes', 'yeah', 'thanks', 'thank', 'right', 'sure', 'no', 'great', 'good', 'please', 'alright', 'bye']);

/** Every context tag said anywhere in the call, in time order. */
function contextTags(streams: readonly Stream[]): Tag[] {
  const tags: Tag[] = [];
  for (const s of streams) {
    s.tokens.forEach((t, i) => {
      const tag = contextTag(s.tokens[i - 1]?.key, t.key);
      if (tag) tags.push({ tag, time: t.start, speaker: s.speaker, key: t.key });
    });
  }
  return tags.sort((a, b) => a.time - b.time);
}

/** Each topic's answer window: from the topic word until ANSWER_WINDOW_SEC later or the next other topic. */
function answerWindows(tags: readonly Tag[]): AnswerWindow[] {
  return tags.map((t, i) => {
    const next = tags.slice(i + 1).find((o) => o.tag !== t.tag && o.time > t.time + 3);
    return { ...t, end: Math.min(t.time + ANSWER_WINDOW_SEC, next?.time ?? Infinity) };
  });
}

function hintsFor(tags: readonly Tag[], windows: readonly AnswerWindow[], oneStream: boolean): RunHints & { answered(speaker: string, time: number): AnswerWindow | undefined } {
  const answered = (speaker: string, time: number) => {
    let best: AnswerWindow | undefined;
    for (const w of windows) {
      if (time < w.time || time >= w.end || (w.speaker === speaker && !oneStream)) continue;
      if (!best || (best.tag === 'other' && w.tag !== 'other') || (w.time >= best.time && (w.tag !== 'other' || best.tag === 'other'))) best = w;
    }
    return best;
  };
  return {
    answered,
    window: (speaker, time) => {
      const w = answered(speaker, time);
      return w ? windows.indexOf(w) : undefined;
    },
    // The caller's own "…the rest of the number is…" does not split their number.
    breaks: (speaker, from, to) => tags.some((t) => t.time > from && t.time < to && (t.speaker !== speaker || t.key !== 'number')),
  };
}

/** A sensitive digit run of the requested kinds: the run, its kind, and the stream tokens to replace. */
export interface SensitiveRun {
  run: DigitRun;
  kind: RedactionKind;
  from: number;
  to: number;
}

/** Finds the sensitive runs of the requested kinds. */
export function findSensitive(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS): SensitiveRun[] {
  const streams = buildStreams(utterances);
  return sensitiveRuns(streams, piiView(utterances, streams), kinds);
}

function sensitiveRuns(streams: readonly Stream[], view: PiiView, kinds: readonly RedactionKind[]): SensitiveRun[] {
  const tags = contextTags(streams);
  const windows = answerWindows(tags);
  const hints = hintsFor(tags, windows, streams.length === 1);
  const wanted = new Set(kinds);
  const found: SensitiveRun[] = [];
  for (const run of digitRuns(streams, hints)) {
    const before = run.stream.tokens[run.first - 1];
    const answer = hints.answered(run.stream.speaker, run.start);
    const ctx: RunContext = {
      tags: tags.filter((t) => t.time < run.end && t.time >= run.start - CONTEXT_WINDOW_SEC),
      monthBefore: before !== undefined && MONTH_KEYS.has(before.key) && run.start - before.end <= 3,
      answers: answer?.tag,
      topic: runTopic(view, run),
    };
    const r = RECOGNIZERS.find((rec) => wanted.has(rec.kind) && rec.matches(run, ctx));
    if (!r) continue;
    // An answer's trailing misheard words ("two sakes") go with it, up to a reply or the window's end.
    let to = run.last;
    const t = run.stream.tokens;
    const uttLength = (u: number) => t.filter((x) => x.u === u).length;
    if (answer) {
      while (to + 1 < t.length) {
        const n = t[to + 1]!;
        if (n.start >= answer.end || n.start - t[to]!.end > 3 || n.kind === 'quantity' || REPLIES.has(n.key) || uttLength(n.u) > 3) break;
        to++;
      }
    }
    found.push({ run, kind: r.kind, from: r.kind === 'expiry' && ctx.monthBefore ? run.first - 1 : run.first, to });
  }
  return found;
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
    ...sensitiveRuns(streams, view, kinds).map(({ run, kind, from, to }) => ({ kind, stream: run.stream, from, to })),
    ...findPersonalData(view, kinds),
  ];
  // Each event's kind: the finding of highest precedence that covers it.
  const rank = (k: RedactionKind) => KIND_PRECEDENCE.indexOf(k);
  const claims = new Map<string, Finding>();
  for (const f of findings) {
    for (let i = f.from; i <= f.to; i++) {
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
      const d = t.kind === 'digit' ? t.digits : '';
      digits += /\d/.test(ev.word) ? ev.word.replace(/\D/g, '').length : d.length;
      out[t.u]!.events[t.e] = mode.tag ? { ...ev, pii: f.kind } : replaced(ev, replacement(ev.word, d, f.kind), f.kind);
      if (!mode.tag) changed.add(t.u);
    }
    if (!any) continue;
    spans.push({ kind: f.kind, channel: f.stream.channel, speaker: f.stream.speaker, start: f.stream.tokens[f.from]!.start, end: f.stream.tokens[f.to]!.end, digits });
  }
  // A stored transcript's text (voxdex redact) is written again from its redacted events.
  for (const u of changed) if (out[u]!.text !== undefined) out[u]!.text = utteranceText(out[u]!.events, { numtrans: true });
  return { utterances: out, spans: spans.sort((a, b) => a.start - b.start) };
}

/** Parses a kinds list ("card,cvv"); undefined names the bad entry. */
export function parseKinds(value: string): { kinds: RedactionKind[] } | { bad: string } {
  const kinds: RedactionKind[] = [];
  for (const k of value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (!(REDACTION_KINDS as readonly string[]).includes(k)) return { bad: k };
    if (!kinds.includes(k as RedactionKind)) kinds.push(k as RedactionKind);
  }
  return { kinds };
}
