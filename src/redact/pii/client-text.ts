/**
 * Personal data in what the client sends beside the audio (file and member names, `metadata` values,
 * sidecar notes; docs/redaction.md, "What the client sent": under redaction they are redacted too), in
 * the shape of issue 24's text recognizers (`find(text, kinds, context)` → spans of the text):
 * - by the field's name: a value of a field called like its kind is that kind whole
 *   (`"customer_name": "Jane Nowak"`, `"dob"`, `"street"`, `"zip"`, `"email"`, `"passport"`…);
 * - by its shape, anywhere: emails (`jane.nowak@example.com`), phone numbers written with separators
 *   (`(555) 234-9876`, `+1 555 234 9876`, `555-234-9876`), dates with a birth year in a birth field;
 * - names in free text: `compromise`'s people, and two or more capitalised words after "Mr", "Mrs",
 *   "Dr" (a file name `call-jane-nowak.wav` is text too: its words are read as written).
 * Spans are UTF-16 offsets, end exclusive; what replaces them is the caller's (`#` per digit, `[KIND]`).
 */
import { createRequire } from 'node:module';
import type { RedactKind } from '../../types.js';
import type { PiiKind } from './context.js';

export interface PiiTextSpan {
  start: number;
  end: number;
  kind: RedactKind;
}

/** Field names that say what their value is (lower case, separators removed: "customer_name" → "customername"). */
const FIELD_KINDS: ReadonlyArray<[RegExp, PiiKind]> = [
  [/(^|first|last|full|middle|sur|customer|caller|client|contact|agent|patient|member|account(holder)?)name$|^(caller|customer|patient|contact)$/, 'name'],
  [/email|^e?mail$/, 'email'],
  [/phone|mobile|cell|telephone|^tel$|callerid|^ani$|^from(number)?$/, 'phone'],
  [/address|street|^city$|^zip(code)?$|postcode|postalcode/, 'address'],
  [/dob|birth/, 'dob'],
  [/iban|routing|sortcode|accountnumber|bankaccount/, 'bank'],
  [/passport|licen[cs]e|^id(number)?$|nationalid|insurancenumber|memberid|taxid/, 'id'],
];

const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const PHONE = /(\+?1[\s.-]?)?(\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}\b/g;
const TITLED = /\b(Mr|Mrs|Ms|Miss|Dr|Mister|Doctor)\.?\s+[A-Z][\p{L}'-]+(\s+[A-Z][\p{L}'-]+)?/gu;

type People = (text: string) => { people(): { json(o: { offset: boolean }): Array<{ offset?: { start: number; length: number } }> } };
let nlp: People | undefined;

/** The personal-data kind a field's name says its value is, if any. */
export function fieldKind(field: string): PiiKind | undefined {
  const f = field.toLowerCase().replace(/[^a-z]/g, '');
  return FIELD_KINDS.find(([re]) => re.test(f))?.[1];
}

function matches(re: RegExp, text: string, kind: PiiKind): PiiTextSpan[] {
  return [...text.matchAll(re)].map((m) => ({ start: m.index!, end: m.index! + m[0].length, kind }));
}

/** `compromise`'s people in the text, read with its separators as spaces ("call-jane-nowak.wav"). */
function people(text: string): PiiTextSpan[] {
  nlp ??= createRequire(import.meta.url)('compromise/three') as People;
  const spaced = text.replace(/[_\-./\\]+/g, ' ');
  return nlp(spaced)
    .people()
    .json({ offset: true })
    .flatMap((p) => (p.offset ? [{ start: p.offset.start, end: p.offset.start + p.offset.length, kind: 'name' as const }] : []));
}

/** Spans of the personal-data kinds among `kinds` in `text`; `context` is the field's name (or '' for a file name). */
export function findPersonalText(text: string, kinds: ReadonlySet<RedactKind>, context = ''): PiiTextSpan[] {
  const whole = fieldKind(context);
  if (whole && kinds.has(whole) && text.trim() !== '') return [{ start: 0, end: text.length, kind: whole }];
  const out: PiiTextSpan[] = [];
  if (kinds.has('email')) out.push(...matches(EMAIL, text, 'email'));
  if (kinds.has('phone')) out.push(...matches(PHONE, text, 'phone'));
  if (kinds.has('name')) out.push(...matches(TITLED, text, 'name'), ...people(text));
  return out.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** `text` with the spans replaced: `#` per digit, `[KIND]` for a span without digits (as events are). */
export function maskPersonalText(text: string, spans: readonly PiiTextSpan[]): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at) continue;
    const part = text.slice(s.start, s.end);
    out += text.slice(at, s.start) + (/\d/.test(part) && !/\p{L}/u.test(part) ? part.replace(/\d/g, '#') : `[${s.kind.toUpperCase()}]`);
    at = s.end;
  }
  return out + text.slice(at);
}
