/**
 * The speakers stage of the one pipeline (diarize, speakers, gender): every channel's utterances go
 * through diarizeRecording in the speakers pool; with diarize, utterances are split where the speaker
 * changes and carry `metadata.speaker` (S1, S2… on a single channel; C<n> per channel on several,
 * C<n>S1… for a channel with more than one voice); with gender, `metadata.gender`.
 */
import type { FileWork, Stage } from '../types.js';
import { speakersPool, type SpeakersPool } from './pool.js';

export function speakersStage(pool: () => SpeakersPool = speakersPool): Stage<FileWork, FileWork> {
  return async (work, ctx) => {
    const { diarize, gender, speakers } = work.options;
    if (!diarize && !gender) return work;
    const audio = work.audio;
    const used = [...new Set(work.result.utterances.map((u) => u.metadata.channel))].sort((a, b) => a - b);
    const channels = used
      .filter((c) => audio.channels[c])
      .map((c) => ({ channel: c, sampleRate: audio.format.sampleRate, samples: audio.channels[c]!, utterances: work.result.utterances.filter((u) => u.metadata.channel === c) }));
    if (channels.length === 0) return work;
    const t0 = performance.now();
    const r = await pool().diarize(channels, { diarize, gender, ...(speakers !== undefined ? { speakers } : {}) });
    ctx.log.debug({ speakers: r.speakers, cpuMs: Math.round(r.cpuMs), ms: Math.round(performance.now() - t0) }, 'speakers');
    // on several channels each one is a speaker ("C<n>") unless it holds several voices
    return { ...work, result: { ...work.result, utterances: r.utterances } };
  };
}

export const speakers: Stage<FileWork, FileWork> = speakersStage();
