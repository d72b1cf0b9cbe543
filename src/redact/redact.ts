/**
 * Redaction of a transcript's utterances (scrubtext): recognizers find sensitive digit runs
 * (recognizers.ts over digit-runs.ts), the anonymizer replaces their events — `word` becomes one `#`
 * per digit (`###` for a word that stands for no digit), `redacted: kind`, times and confidence kept.
 * Works on numerals (numtrans) and on number words alike. The spans it returns carry no words.
 */
import type { Utterance, WordEvent } from '../types.js';
import { buildStreams, digitRuns, type DigitRun, type Stream } from './digit-runs.js';
import { CONTEXT_WINDOW_SEC, contextTag, MONTH_KEYS, RECOGNIZERS, REDACTION_KINDS, type ContextTag, type RedactionKind, type RunContext } from './recognizers.js';

export interface RedactionSpan {
  kind: RedactionKind;
  channel: number;
  speaker: string;
  start: number;
  end: number;
  /** How many digits were replaced. */
  digits: number;
}

export interface RedactedWordEvent extends WordEvent {
  redacted?: RedactionKind;
}

export interface RedactionResult {
  utterances: Utterance[];
  spans: RedactionSpan[];
}

export const DEFAULT_KINDS: readonly RedactionKind[] = REDACTION_KINDS;

/** Every context tag said anywhere in the call, in time order. */
function contextTags(streams: readonly Stream[]): Array<{ tag: ContextTag; time: number }> {
  const tags: Array<{ tag: ContextTag; time: number }> = [];
  for (const s of streams) {
    s.tokens.forEach((t, i) => {
      const tag = contextTag(s.tokens[i - 1]?.key, t.key);
      if (tag) tags.push({ tag, time: t.start });
    });
  }
  return tags.sort((a, b) => a.time - b.time);
}

function runContext(run: DigitRun, tags: ReadonlyArray<{ tag: ContextTag; time: number }>): RunContext {
  const before = run.stream.tokens[run.first - 1];
  return {
    tags: tags.filter((t) => t.time < run.end && t.time >= run.start - CONTEXT_WINDOW_SEC),
    monthBefore: before !== undefined && MONTH_KEYS.has(before.key) && run.start - before.end <= 3,
  };
}

/** Finds the sensitive runs of the requested kinds. */
export function findSensitive(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS): Array<{ run: DigitRun; kind: RedactionKind; from: number }> {
  const streams = buildStreams(utterances);
  const tags = contextTags(streams);
  const wanted = new Set(kinds);
  const found: Array<{ run: DigitRun; kind: RedactionKind; from: number }> = [];
  for (const run of digitRuns(streams, tags.map((t) => t.time))) {
    const ctx = runContext(run, tags);
    const r = RECOGNIZERS.find((rec) => wanted.has(rec.kind) && rec.matches(run, ctx));
    if (r) found.push({ run, kind: r.kind, from: r.kind === 'expiry' && ctx.monthBefore ? run.first - 1 : run.first });
  }
  return found;
}

/** One `#` per digit the event stands for, `###` when it stands for none. */
export function maskWord(word: string, digits: string): string {
  const n = /\d/.test(word) ? word.replace(/\D/g, '').length : digits.length;
  return n > 0 ? '#'.repeat(n) : '###';
}

/** scrubtext: the utterances with sensitive events replaced (new objects; the input is not changed). */
export function redactUtterances(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS): RedactionResult {
  const out = utterances.map((u) => ({ ...u, events: u.events.slice() }));
  const spans: RedactionSpan[] = [];
  for (const { run, kind, from } of findSensitive(utterances, kinds)) {
    let digits = 0;
    for (let i = from; i <= run.last; i++) {
      const t = run.stream.tokens[i]!;
      const ev = out[t.u]!.events[t.e]!;
      if ((ev as RedactedWordEvent).redacted) continue;
      const word = maskWord(ev.word, t.kind === 'digit' ? t.digits : '');
      digits += /\d/.test(ev.word) ? ev.word.replace(/\D/g, '').length : t.kind === 'digit' ? t.digits.length : 0;
      out[t.u]!.events[t.e] = { ...ev, word, redacted: kind } as RedactedWordEvent;
    }
    const first = run.stream.tokens[from]!;
    spans.push({ kind, channel: run.stream.channel, speaker: run.stream.speaker, start: first.start, end: run.end, digits });
  }
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
