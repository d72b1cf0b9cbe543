/**
 * What the client sends beside the audio — file and archive-member names, `metadata` values,
 * sidecar fields, error messages that quote them — redacted under the policy before anything is
 * written (docs/redaction.md, "What the client sent"). Presidio's shape: TEXT_RECOGNIZERS
 * each find spans of their kinds in a string (with the field's name as context: `"cvv": "739"`), and
 * the anonymizer masks the spans of the kinds asked for. A new kind is a new recognizer.
 *
 * The digits recognizer reads the text as the transcript recognizers read a call (numerals and
 * spoken digits, Luhn, context words, answer windows), over the text's words laid out in time so
 * that numerals joined by separators are one run ("4111-1111-1111-1111", "cc-4111111111111111.wav")
 * and numerals with words between them are not ("room 12, floor 3456").
 */
import { luhn } from '../numbers/lexicon.js';
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance } from '../types.js';
import { ANSWER_CONTINUE_SEC, ANSWER_WINDOW_SEC } from './answer-windows.js';
import { RUN_WINDOW_SEC } from './digit-runs.js';
import { findPersonalText } from './pii/client-text.js';
import { findSensitive } from './run-recognizer.js';

/** A span of the text (UTF-16 offsets, end exclusive) and what it is. */
export interface TextSpan {
  start: number;
  end: number;
  kind: RedactKind;
  /** What replaces the span; default: each digit `#`, or `[KIND]` when it holds no digit. */
  replacement?: string;
}

export interface TextRecognizer {
  /** The kinds this recognizer can report. */
  kinds: readonly RedactKind[];
  /** Spans of `text` for the kinds asked for; `context` is the field's name or what the text is the value of. */
  find(text: string, kinds: ReadonlySet<RedactKind>, context: string): TextSpan[];
}

/** A word of the text: a numeral (amounts and percentages whole), a word, or an ISO date/time (never a digit run). */
interface TextToken {
  start: number;
  end: number;
  word: string;
}

/** ISO 8601 dates and times and clock times are dates, not digit runs ("2026-11-22T14:05:00Z", "14:05:00"). */
const DATE_OR_TIME = /\d{8}T\d{6}(?:\.\d+)?Z?|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?|\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/y;
const AMOUNT = /[$£€]\d[\d,]*(?:\.\d+)?|\d+(?:\.\d+)?%/y;
const NUMERAL = /\d+/y;
const WORD = /\p{L}+(?:'\p{L}+)*/uy;

function tokens(text: string): TextToken[] {
  const out: TextToken[] = [];
  for (let i = 0; i < text.length; ) {
    let m: RegExpExecArray | null = null;
    for (const re of [DATE_OR_TIME, AMOUNT, NUMERAL, WORD]) {
      re.lastIndex = i;
      if ((m = re.exec(text))) {
        out.push({ start: i, end: i + m[0].length, word: re === DATE_OR_TIME ? 'datetime' : m[0] });
        break;
      }
    }
    i = m ? i + m[0].length : i + 1;
  }
  return out;
}

/** Seconds between words laid out as speech: close enough to join numerals into one run and to see context before them. */
const WORD_SEC = 0.5;
/**
 * After a word that follows a numeral: further than digit-runs.ts joins two groups (RUN_WINDOW_SEC)
 * and than an answer window stays open after a group (ANSWER_CONTINUE_SEC): written words between
 * numerals are words, not a misheard group ("policy 71 NKGP cc-4111…": two numbers).
 */
const AFTER_WORDS_SEC = Math.max(RUN_WINDOW_SEC, ANSWER_WINDOW_SEC, ANSWER_CONTINUE_SEC) + 5;

/** The text's words as one utterance, numerals with words between them too far apart to join. */
function asUtterance(words: readonly TextToken[]): Utterance {
  let t = 0;
  const events = words.map((w, i) => {
    const prevNumeral = i > 0 && /\d/.test(words[i - 1]!.word);
    t += i === 0 ? 0 : !/\d/.test(w.word) && prevNumeral ? AFTER_WORDS_SEC : WORD_SEC;
    return { word: w.word, start: t, end: t + WORD_SEC * 0.8, confidence: 1 };
  });
  return { start: 0, end: t + 1, confidence: 1, metadata: { channel: 0, uttid: 0 }, events };
}

/** Card numbers, CVVs, expiry dates, SSNs, PINs and other digit runs: the transcript's recognizers over the text's words. */
export const digitTextRecognizer: TextRecognizer = {
  kinds: DEFAULT_REDACT_KINDS,
  find(text, kinds, context) {
    const ctx = tokens(context);
    const words = [...ctx, ...tokens(text).map((w) => ({ ...w, start: w.start + context.length + 1, end: w.end + context.length + 1 }))];
    const spans: TextSpan[] = [];
    for (const s of findSensitive([asUtterance(words)], [...kinds])) {
      for (let i = s.from; i <= s.to; i++) {
        const t = s.run.stream.tokens[i]!;
        if (t.e < ctx.length || (t.digits === '' && !/\d/.test(t.key))) continue; // the context, or a word inside the run
        const w = words[t.e]!;
        const span = { start: w.start - context.length - 1, end: w.end - context.length - 1, kind: s.kind };
        spans.push(/\d/.test(w.word) ? span : { ...span, replacement: '#'.repeat(Math.max(1, t.digits.length)) });
      }
    }
    // Failing closed: any numeral of 12–19 digits passing Luhn is a card, even written as an amount.
    if (kinds.has('card') || kinds.has('digits')) {
      for (const w of tokens(text)) {
        const d = w.word.replace(/\D/g, '');
        if (d.length >= 12 && d.length <= 19 && luhn(d)) spans.push({ start: w.start, end: w.end, kind: kinds.has('card') ? 'card' : 'digits' });
      }
    }
    return spans;
  },
};

/**
 * Names, emails, phone numbers, addresses, dates of birth, bank and ID numbers (pii/client-text.ts):
 * a span holding only digits and separators becomes `#` per digit, any other `[KIND]` (a name with a
 * number in it must not keep its letters).
 */
export const personalTextRecognizer: TextRecognizer = {
  kinds: ['name', 'email', 'phone', 'address', 'dob', 'bank', 'id'],
  find: (text, kinds, context) =>
    findPersonalText(text, kinds, context).map((s) => {
      const part = text.slice(s.start, s.end);
      return /\d/.test(part) && !/\p{L}/u.test(part) ? s : { ...s, replacement: `[${s.kind.toUpperCase()}]` };
    }),
};

/** The recognizers for free client text, in order. */
export const TEXT_RECOGNIZERS: TextRecognizer[] = [digitTextRecognizer, personalTextRecognizer];

/** The text with the spans replaced; of overlapping spans the longest wins. */
function applySpans(text: string, spans: readonly TextSpan[]): string {
  const chosen: TextSpan[] = [];
  for (const s of [...spans].sort((x, y) => y.end - y.start - (x.end - x.start) || x.start - y.start)) {
    if (!chosen.some((c) => s.start < c.end && c.start < s.end)) chosen.push(s);
  }
  let out = '';
  let at = 0;
  for (const s of chosen.sort((x, y) => x.start - y.start)) {
    const piece = text.slice(s.start, s.end);
    out += text.slice(at, s.start) + (s.replacement ?? (/\d/.test(piece) ? piece.replace(/\d/g, '#') : `[${s.kind.toUpperCase()}]`));
    at = s.end;
  }
  return out + text.slice(at);
}

/** `text` with what the recognizers find of `kinds` masked; `context` (a field's name) is read, never written. */
export function redactText(text: string, kinds: readonly RedactKind[], context = ''): string {
  if (text === '' || kinds.length === 0) return text;
  const wanted = new Set(kinds);
  const spans = TEXT_RECOGNIZERS.flatMap((r) => (r.kinds.some((k) => wanted.has(k)) ? r.find(text, wanted, context) : []));
  return spans.length === 0 ? text : applySpans(text, spans);
}

/**
 * A metadata value with every string (and number) redacted, each read with its field's name as
 * context (`{"cvv": "739"}`, `{"pin": 1234}`); the names themselves are redacted too. A number that
 * loses digits becomes a string (`"################"`).
 */
export function redactJson(value: unknown, kinds: readonly RedactKind[], context = ''): unknown {
  if (typeof value === 'string') return redactText(value, kinds, context);
  if (typeof value === 'number' && Number.isFinite(value)) {
    const s = String(value);
    const r = redactText(s, kinds, context);
    return r === s ? value : r;
  }
  if (Array.isArray(value)) return value.map((v) => redactJson(v, kinds, context));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactText(k, kinds), redactJson(v, kinds, `${context} ${k}`.trim())]));
  }
  return value;
}
