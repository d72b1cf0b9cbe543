/**
 * Who said what in one recording, as the speakers worker runs it: on several channels, crosstalk first
 * (each channel's bleed words separated, crosstalk.ts: dropped, or kept marked with crosstalk=keep); then
 * diarization and gender when asked (diarize.ts), with each channel's bleed left out of its speech. Every
 * utterance comes back in time order, renumbered when utterances were split or added (else its uttid kept).
 */
import type { Utterance } from '../types.js';
import { separateCrosstalk } from './crosstalk.js';
import { diarizeRecording, type DiarizeChannel, type DiarizeModels, type DiarizeOptions, type SpeakerTurn, type SpeakerUtterance } from './diarize.js';

export interface RecordingOptions extends DiarizeOptions {
  /** Bleed words: 'drop' (default) or 'keep' (their own utterances, `metadata.crosstalk: true`). */
  crosstalk?: 'drop' | 'keep';
}

export interface RecordingSpeakers {
  utterances: SpeakerUtterance[];
  /** Voices found per channel (1 when not diarized). */
  speakers: number[];
  turns: SpeakerTurn[];
  /** Words found to be another channel's crosstalk. */
  crosstalkWords: number;
}

function inTimeOrder<T extends Utterance>(utts: T[]): T[] {
  return utts.sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel);
}

function renumber<T extends Utterance>(utts: T[]): T[] {
  inTimeOrder(utts).forEach((u, uttid) => (u.metadata.uttid = uttid));
  return utts;
}

/** `models` is called only when diarizing (gender and crosstalk need none). */
export async function speakersOfRecording(models: () => Promise<DiarizeModels>, input: DiarizeChannel[], o: RecordingOptions): Promise<RecordingSpeakers> {
  const x = separateCrosstalk(input);
  const channels = input.map((c, i) => ({ ...c, utterances: x.utterances[i]!, exclude: x.spans[i]! }));
  const kept = o.crosstalk === 'keep' ? x.bleed : [];
  if (!o.diarize && !o.gender) {
    // Nothing split off: each utterance keeps its uttid (a live call's are the ones it sent, docs/live.md).
    const utterances = [...channels.flatMap((c) => c.utterances), ...kept];
    return { utterances: x.words === 0 ? inTimeOrder(utterances) : renumber(utterances), speakers: channels.map(() => 1), turns: [], crosstalkWords: x.words };
  }
  const m = o.diarize ? await models() : undefined;
  const r = await diarizeRecording(m, channels, o);
  return { utterances: renumber([...r.utterances, ...kept]), speakers: r.channels.map((c) => c.speakers), turns: r.turns, crosstalkWords: x.words };
}
