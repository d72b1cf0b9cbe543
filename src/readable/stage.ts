/**
 * The readable-text stage (after redaction, before anything is persisted): every utterance gets its
 * `text` (utterance-text.ts) from its events as redaction left them, and the events lose the written
 * forms the ASR carried to here, so that no written form reaches the document, the checkpoint, the
 * index, a callback or a log.
 */
import type { FileWork, Stage, Utterance, UtterancePart } from '../types.js';
import { continuesFrom, utteranceText, withoutWritten, type TextOptions } from './utterance-text.js';

/**
 * One utterance with its `text` set and its events without written forms. `previous`: the same
 * speaker's utterance before it, with its text (a sentence it left open goes on here).
 */
export function readableUtterance(u: Utterance, o: Pick<TextOptions, 'numtrans'>, previous?: Utterance): Utterance {
  return { ...u, text: utteranceText(u.events, { ...o, continues: continuesFrom(previous, u) }), events: withoutWritten(u.events) };
}

/** A voice: a channel, and its speaker when diarized (a sentence goes on within one voice). */
export const voiceOf = (u: Utterance): string => `${u.metadata.channel}/${u.metadata.speaker ?? ''}`;

/** The stage table's readable part (src/pipeline/stage-table.ts): after the same voice's last utterance given out. */
export const readablePart: UtterancePart = (u, _i, call) => readableUtterance(u, call.options, call.previous(u));

/** Every utterance in time order, each after the one its speaker said before it (on its channel). */
export function readableUtterances(utterances: readonly Utterance[], o: Pick<TextOptions, 'numtrans'>): Utterance[] {
  const order = utterances.map((u, i) => ({ u, i })).sort((a, b) => a.u.start - b.u.start || a.i - b.i);
  const last = new Map<string, Utterance>();
  const out = utterances.slice();
  for (const { u, i } of order) {
    const voice = voiceOf(u);
    const done = readableUtterance(u, o, last.get(voice));
    last.set(voice, done);
    out[i] = done;
  }
  return out;
}

export const readableStage: Stage<FileWork, FileWork> = async (work) => ({
  ...work,
  result: { ...work.result, utterances: readableUtterances(work.result.utterances, { numtrans: work.options.numtrans }) },
});
