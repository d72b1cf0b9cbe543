/**
 * What every recognizer of a transcript reads (presidio's NLP artifacts): each channel's stream of
 * words with the digits each stands for (digit-runs.ts), the topic words and the answer windows they
 * open (answer-windows.ts), the digit runs, and the personal-data view — cues, windows, person tags
 * (pii/recognize.ts). Computed once per redaction and shared by the registry's recognizers
 * (registry.ts), for their findings and for their reach (docs/redaction.md, "The engine").
 */
import type { Utterance } from '../types.js';
import { answerWindows, topics, windowHints, type AnswerWindow, type Topic, type WindowHints } from './answer-windows.js';
import { buildStreams, type DigitRun, type Stream } from './digit-runs.js';
import { digitRuns } from './length-runs.js';
import { piiView } from './pii/recognize.js';
import type { PiiView } from './pii/spans.js';

export interface Analysis {
  utterances: readonly Utterance[];
  streams: readonly Stream[];
  /** Topic words of the card kinds and their answer windows. */
  said: readonly Topic[];
  windows: readonly AnswerWindow[];
  hints: WindowHints;
  runs: readonly DigitRun[];
  /** Cues, windows and person tags of the personal-data kinds. */
  view: PiiView;
}

/**
 * The analysis of `utterances` (a whole call, or a call so far). `channels`: how many channels the
 * call has spoken on, when `utterances` is only part of it (the engine's context, engine.ts): the
 * one-channel rules (a question's window on its own channel) must read the call's count, not the part's.
 */
export function analyze(utterances: readonly Utterance[], channels?: number): Analysis {
  const streams = buildStreams(utterances);
  const n = channels ?? streams.length;
  const said = topics(streams);
  const windows = answerWindows(said, streams, n);
  const hints = windowHints(said, windows);
  return { utterances, streams, said, windows, hints, runs: digitRuns(streams, hints), view: piiView(utterances, streams, n) };
}
