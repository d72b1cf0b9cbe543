/**
 * The one anonymizer of transcripts (presidio's AnonymizerEngine): findings of the recognizers
 * (registry.ts) applied to the events — each event's kind is the finding of highest precedence that
 * covers it (KIND_PRECEDENCE), its word replaced (`#` per digit, `###` for a word without digits of the
 * card kinds, `[NAME]`, `[EMAIL]`… for the personal-data kinds; times and confidence kept) or, for
 * scrubtext=tag, marked (`pii: kind`). The spans it returns carry no words.
 */
import { closingPunctuation, utteranceText } from '../readable/utterance-text.js';
import type { RedactKind, Utterance, WordEvent } from '../types.js';
import { PII_KINDS } from './pii/recognize.js';
import type { Finding } from './recognizer.js';
import { KIND_PRECEDENCE } from './recognizers.js';

export interface RedactionSpan {
  kind: RedactKind;
  channel: number;
  speaker: string;
  start: number;
  end: number;
  /** How many digits were replaced. */
  digits: number;
}

export interface RedactionResult {
  utterances: Utterance[];
  spans: RedactionSpan[];
}

export interface RedactMode {
  /** scrubtext=tag: mark the events (`pii: kind`) and keep their words. */
  tag?: boolean;
}

/** One `#` per digit the event stands for, `###` when it stands for none. */
function maskWord(word: string, digits: string): string {
  const n = /\d/.test(word) ? word.replace(/\D/g, '').length : digits.length;
  return n > 0 ? '#'.repeat(n) : '###';
}

/** The replaced word: `#` per digit; a word without digits `[NAME]`, `[ADDRESS]`… for the personal-data kinds, `###` for the card kinds. */
function replacement(word: string, digits: string, kind: RedactKind): string {
  const masked = maskWord(word, digits);
  return masked === '###' && (PII_KINDS as readonly string[]).includes(kind) ? `[${kind.toUpperCase()}]` : masked;
}

/**
 * The event with its word replaced, times and confidence kept; a `pii` mark (scrubtext=tag, redacted
 * later) goes. A written form the ASR carried (WordEvent.written) becomes the replacement too, keeping
 * only its closing punctuation: no spread of the original event may keep a word of it.
 */
function replaced(ev: WordEvent, word: string, kind: RedactKind): WordEvent {
  const { pii: _mark, written, ...rest } = ev;
  const carried = written === undefined ? {} : { written: written === '' ? '' : word + closingPunctuation(written) };
  return { ...rest, word, kind: 'redacted', redacted: kind, ...carried };
}

export interface RedactMode {
  /** scrubtext=tag: mark the events (`pii: kind`) and keep their words. */
  tag?: boolean;
}

/**
 * `utterances` with the findings' events replaced (new objects; the input is not changed), or with
 * `tag`, marked; where findings overlap, KIND_PRECEDENCE names the word.
 */
export function anonymize(utterances: readonly Utterance[], findings: readonly Finding[], mode: RedactMode = {}): RedactionResult {
  // Each event's kind: the finding of highest precedence that covers it.
  const rank = (k: RedactKind) => KIND_PRECEDENCE.indexOf(k);
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

