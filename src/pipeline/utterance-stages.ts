/**
 * The post-ASR stages of one utterance, for a live call (src/live/live-call.ts): the same functions
 * the whole-file stages (post-asr-stages.ts) map over a recording's utterances, in the same order —
 * numbers as the utterance is decoded; redaction of the call's open tail, each word released once no
 * recognizer can still claim it (src/redact/engine.ts); then the readable text (src/readable/, from the
 * redacted events) and sentiment, on what is sent and kept.
 * Speakers, metrics and the final categories need the whole call: they run once at its end, as for
 * an upload.
 */
import { scoreUtterance } from '../analytics/sentiment.js';
import { numbersUtterance } from '../numbers/stage.js';
import { readableUtterance } from '../readable/stage.js';
import type { RequestOptions, Utterance } from '../types.js';

/** What runs on an utterance as soon as it is decoded (before redaction). */
export function decodedUtterance(u: Utterance, options: Pick<RequestOptions, 'numtrans'>): Utterance {
  return options.numtrans ? numbersUtterance(u) : u;
}

/**
 * What runs on an utterance once its redaction is decided, before it is sent: its text (and no written
 * form; `previous`, the same speaker's last utterance sent, may have left a sentence open), its sentiment.
 */
export function releasedUtterance(u: Utterance, options: Pick<RequestOptions, 'sentiment' | 'numtrans'>, previous?: Utterance): Utterance {
  const out = readableUtterance({ ...u, metadata: { ...u.metadata } }, options, previous);
  if (options.sentiment) scoreUtterance(out);
  return out;
}
