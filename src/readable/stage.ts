/**
 * The readable-text stage (after redaction, before anything is persisted): every utterance gets its
 * `text` (utterance-text.ts) from its events as redaction left them, and the events lose the written
 * forms the ASR carried to here, so that no written form reaches the document, the checkpoint, the
 * index, a callback or a log.
 */
import type { FileWork, Stage, Utterance } from '../types.js';
import { utteranceText, withoutWritten, type TextOptions } from './utterance-text.js';

/** One utterance with its `text` set and its events without written forms. */
export function readableUtterance(u: Utterance, o: TextOptions): Utterance {
  return { ...u, text: utteranceText(u.events, o), events: withoutWritten(u.events) };
}

export const readableStage: Stage<FileWork, FileWork> = async (work) => ({
  ...work,
  result: { ...work.result, utterances: work.result.utterances.map((u) => readableUtterance(u, { numtrans: work.options.numtrans })) },
});
