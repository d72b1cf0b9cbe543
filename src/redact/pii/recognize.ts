/**
 * Personal data beyond digit runs (docs/pii.md): the word-level recognizers of the kinds asked for,
 * run over the call's streams (digit-runs.ts `buildStreams`) with the cues and windows of context.ts.
 * Pure and synchronous; a partial call gives the spans found so far.
 */
import type { RedactKind, Utterance } from '../../types.js';
import type { Stream } from '../digit-runs.js';
import { findCues, findWindows, type PiiKind } from './context.js';
import { recognizeAddresses } from './address.js';
import { recognizeDatesOfBirth } from './dates.js';
import { recognizeEmails } from './email.js';
import { recognizeNames } from './names.js';
import { recognizeAlphanumerics } from './numbers.js';
import { personTags, type PersonTags } from './person-tags.js';
import type { PiiSpan, PiiView, Recognize } from './spans.js';

export const PII_KINDS: readonly PiiKind[] = ['bank', 'phone', 'email', 'name', 'address', 'dob', 'id'];

/** The word-level recognizers and the kinds they may return. */
const WORD_RECOGNIZERS: ReadonlyArray<[readonly PiiKind[], Recognize]> = [
  [['email'], recognizeEmails],
  [['address'], recognizeAddresses],
  [['dob'], recognizeDatesOfBirth],
  [['id', 'bank', 'phone'], recognizeAlphanumerics],
  [['name'], recognizeNames],
];

/** Spans scoring below this are hints that were not confirmed: dropped. */
export const MIN_SCORE = 0.5;

/** The view the recognizers share: cues, windows, and the person tags computed per stream on first use. */
export function piiView(utterances: readonly Utterance[], streams: readonly Stream[]): PiiView {
  const cues = findCues(streams);
  const tags = new Map<Stream, PersonTags>();
  const tagsOf = (s: Stream) => {
    let x = tags.get(s);
    if (!x) tags.set(s, (x = personTags(s)));
    return x;
  };
  return { utterances, streams, cues, windows: findWindows(streams, cues), persons: (s) => tagsOf(s).persons, unknown: (s) => tagsOf(s).unknown };
}

/** Spans of the personal-data kinds among `kinds`. */
export function findPersonalData(view: PiiView, kinds: readonly RedactKind[]): PiiSpan[] {
  const wanted = new Set<string>(kinds);
  const out: PiiSpan[] = [];
  for (const [may, recognize] of WORD_RECOGNIZERS) {
    if (!may.some((k) => wanted.has(k))) continue;
    for (const s of recognize(view)) if (wanted.has(s.kind) && s.score >= MIN_SCORE) out.push(s);
  }
  return out;
}
