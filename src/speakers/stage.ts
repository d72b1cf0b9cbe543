/**
 * The speakers stage of the one pipeline: on several channels, crosstalk (each channel's bleed words
 * dropped, or kept marked with crosstalk=keep) whatever the options; with diarize, utterances split where
 * the speaker changes and `metadata.speaker` (S1, S2… on a single channel; C<n> per channel on several,
 * C<n>S1… for a channel with more than one voice); with gender, `metadata.gender`. Runs in the speakers
 * pool (src/speakers/pool.ts), every channel of the recording copied there.
 */
import type { FileWork, Stage } from '../types.js';
import { speakersPool, type SpeakersPool } from './pool.js';

export function speakersStage(pool: () => SpeakersPool = speakersPool): Stage<FileWork, FileWork> {
  return async (work, ctx) => {
    const { diarize, gender, speakers, minspeakers, maxspeakers, crosstalk } = work.options;
    const audio = work.audio;
    const several = audio.channels.length > 1;
    if (!diarize && !gender && !several) return work;
    if (work.result.utterances.length === 0) return work;
    const channels = audio.channels.map((samples, c) => ({ channel: c, sampleRate: audio.format.sampleRate, samples, utterances: work.result.utterances.filter((u) => u.metadata.channel === c) }));
    const t0 = performance.now();
    const options = {
      diarize,
      gender,
      ...(speakers !== undefined ? { speakers } : {}),
      ...(minspeakers !== undefined ? { minSpeakers: minspeakers } : {}),
      ...(maxspeakers !== undefined ? { maxSpeakers: maxspeakers } : {}),
      ...(crosstalk !== undefined ? { crosstalk } : {}),
    };
    const r = await pool().diarize(channels, options);
    ctx.log.debug({ speakers: r.speakers, crosstalkWords: r.crosstalkWords, cpuMs: Math.round(r.cpuMs), ms: Math.round(performance.now() - t0) }, 'speakers');
    return { ...work, result: { ...work.result, utterances: r.utterances } };
  };
}

export const speakers: Stage<FileWork, FileWork> = speakersStage();
