/**
 * An utterance's readable text (`text`): its words as written — capitals, punctuation, numerals —
 * built from its events AFTER redaction, so that it holds the same words, redacted the same way.
 * Pure and per utterance: the batch pipeline (src/readable/stage.ts) and the live path call it alike.
 *
 * The events of a text-only engine (Moonshine) carry, until the readable stage removes it, the
 * written form of the written word each begins (`WordEvent.written`; '' on the later events of the
 * same written word: "$25" was said "twenty five dollars"). A written word and its events are a
 * GROUP. Rules (docs/readable.md):
 * - a group with any redacted (or `pii`-marked) event is written as its events' words ("####",
 *   "[NAME]"), never from the written form; only the written form's closing punctuation (. , ? ! ; :)
 *   is kept;
 * - numbers: with `numtrans` (the default) a numeral is written as the model wrote it ("8:45pm",
 *   "555-0142"), or as the numbers stage wrote it where the model wrote words ("forty-two" → "42");
 *   with `numtrans=false` a written word with digits is written as the spoken words of its events
 *   ("twenty five dollars"), as the events say it;
 * - events without a written form (PocketSphinx, a stored transcript) are written as their words;
 * - the first letter of every sentence is a capital (the model's words too, where it wrote none), unless
 *   the utterance goes on with a sentence the speaker's previous one left open with a comma, colon or
 *   dash (`continuesFrom`) and its first word is a common word; then the text is tidied (tidy.ts:
 *   "to-day", a lower-case "i", doubled commas, unpaired quotes);
 *   an utterance that ends with no mark at all ends with a full stop
 *   (PocketSphinx always; Moonshine where it wrote none; one that ends with a comma, colon or dash
 *   goes on in the next utterance and keeps it).
 */
import type { Utterance, WordEvent } from '../types.js';
import { tidyText } from './tidy.js';

export interface TextOptions {
  /** The request's numtrans: numerals (true) or spoken number words (false). */
  numtrans: boolean;
  /**
   * The utterance goes on with the sentence the speaker's previous one left open (`continuesFrom`):
   * its first word keeps no capital when it is a common word ("unless", "and", "to").
   */
  continues?: boolean;
}

/** The punctuation a redacted written word keeps: what closes it (". , ? ! ; :"), nothing of the word. */
export function closingPunctuation(written: string | undefined): string {
  return /[.,?!;:]*$/.exec(written ?? '')![0];
}

/** An event that must be written as its (replaced) word. */
function hidden(e: WordEvent): boolean {
  return e.redacted !== undefined || e.pii !== undefined;
}

/** Events grouped by written word: a head (written form, or none) and the events that continue it (written === ''). */
export function writtenGroups(events: readonly WordEvent[]): WordEvent[][] {
  const groups: WordEvent[][] = [];
  let open = false;
  for (const e of events) {
    if (e.word === '' && e.written === undefined) continue;
    if (e.written === '' && open) groups[groups.length - 1]!.push(e);
    else {
      groups.push([e]);
      open = e.written !== undefined;
    }
  }
  return groups;
}

const hasDigit = (s: string) => /\d/.test(s);

/** One group as written, and whether it came from the events' words rather than the model's written form. */
function groupText(group: readonly WordEvent[], o: TextOptions): { text: string; spoken: boolean } {
  const written = group[0]!.written;
  const words = group.map((e) => e.word).filter((w) => w !== '').join(' ');
  if (written === undefined || written === '') return { text: words, spoken: true };
  if (group.some(hidden)) return { text: words + closingPunctuation(written), spoken: true };
  const numeral = group.some((e) => hasDigit(e.word));
  if (!o.numtrans && hasDigit(written)) return { text: words + closingPunctuation(written), spoken: true };
  if (o.numtrans && numeral && !hasDigit(written)) return { text: words + closingPunctuation(written), spoken: true };
  return { text: written, spoken: false };
}

/** Words that are never capitalised inside a sentence: what a sentence left open goes on with. */
const COMMON = new Set(
  ('a an the and but or nor so yet for because unless until while when whenever where whereas if then than though although as ' +
    'that which who whom whose what to of in on at by from with without into onto about above below over under after before ' +
    'between through during since against among is was are were be been being am has have had do does did will would shall ' +
    'should can could may might must not no it its he him his she her hers we us our they them their you your my me this ' +
    'these those there here just also even only still please').split(' '),
);

/** "Unless" → "unless" when it is a common word; "John", "I", "IVR" stay. */
function uncapitalise(s: string): string {
  const m = /^([A-Z][a-z']*)(.*)$/s.exec(s);
  return m && COMMON.has(m[1]!.toLowerCase()) ? m[1]!.toLowerCase() + m[2]! : s;
}

/** Seconds between a speaker's utterances under which an open sentence (",", ":", "—") goes on in the next. */
export const CONTINUE_GAP_SEC = 2;

/**
 * Does `u` go on with the sentence `previous` left open: the same channel and speaker, `previous`'s
 * text ends with a comma, colon or dash, and `u` starts at most CONTINUE_GAP_SEC after it ends.
 */
export function continuesFrom(previous: Pick<Utterance, 'text' | 'end' | 'metadata'> | undefined, u: Pick<Utterance, 'start' | 'metadata'>): boolean {
  return (
    previous !== undefined &&
    previous.metadata.channel === u.metadata.channel &&
    previous.metadata.speaker === u.metadata.speaker &&
    u.start - previous.end <= CONTINUE_GAP_SEC &&
    CONTINUES.test(previous.text ?? '')
  );
}

/** "hello" → "Hello", '"we' → '"We'; leaves "iPhone", "eBay" and what starts with no letter as they are. */
function capitalise(s: string): string {
  const m = /^(["'“‘(]*)([a-z])(?![a-z]*[A-Z])/.exec(s);
  return m ? m[1]! + m[2]!.toUpperCase() + s.slice(m[0].length) : s;
}

/** Abbreviations whose full stop ends no sentence. */
const ABBREVIATION = /(^|\s)(e\.g|i\.e|vs|approx)\.$/i;

const SENTENCE_END = /[.?!…]["'”’)\]]*$/;
const CONTINUES = /[,;:\-–—]["'”’)\]]*$/;

/** The utterance's readable text ('' for an utterance without words). */
export function utteranceText(events: readonly WordEvent[], o: TextOptions): string {
  const parts = writtenGroups(events).map((g) => groupText(g, o)).filter((p) => p.text !== '');
  if (parts.length === 0) return '';
  // Every part that starts a sentence gets its capital: a spoken one (redacted, numbers as words), and
  // the model's own where it wrote none ("Diverd. we're" → "Diverd. We're"); not after "e.g." or "i.e.".
  parts.forEach((p, i) => {
    if (i === 0 || (SENTENCE_END.test(parts[i - 1]!.text) && !ABBREVIATION.test(parts[i - 1]!.text))) p.text = capitalise(p.text);
  });
  if (o.continues) parts[0]!.text = uncapitalise(parts[0]!.text);
  const text = tidyText(parts.map((p) => p.text).join(' '));
  if (text === '') return '';
  // No mark at all at the end: a full stop (PocketSphinx always; Moonshine when it wrote none). A comma,
  // colon or dash is the model saying the sentence goes on in the next utterance: kept.
  return SENTENCE_END.test(text) || CONTINUES.test(text) ? text : `${text}.`;
}

/** The events as a document keeps them: without the written forms (the readable stage's other half). */
export function withoutWritten(events: readonly WordEvent[]): WordEvent[] {
  return events.map((e) => {
    if (e.written === undefined) return e;
    const { written: _drop, ...rest } = e;
    return rest;
  });
}

/** An utterance's text as the outputs show it: `text`, or for a transcript stored before `text` existed, its words in sentence case. */
export function displayText(u: Pick<Utterance, 'text' | 'events'>): string {
  return u.text ?? utteranceText(u.events, { numtrans: true });
}
