/**
 * Gender per utterance, decided per speaker from all their speech (pitch.ts gives each utterance's voiced
 * F0 frames). Pure.
 *
 * A speaker's gender is that of the median F0 of all their voiced frames: one utterance alone is often
 * short, shouted, laughing or misheard in pitch; a voice's whole speech is steadier. But a "speaker" can be
 * two people the diarization merged (a man and a woman in one cluster): when a speaker's utterances split
 * clearly both ways — at least 2 utterances and a quarter of them with a median under LOW_HZ, and as many
 * over HIGH_HZ — each utterance is decided on its own (an utterance with under MIN_FRAMES voiced frames
 * takes the speaker's). A recording that is not diarized and has one channel has no speakers: each
 * utterance on its own, the channel's pooled F0 when it has too few frames.
 */
import { genderOf, median, type Gender } from './pitch.js';

export const MIN_FRAMES = 5;
const LOW_HZ = 150;
const HIGH_HZ = 185;

function mixed(medians: (number | undefined)[]): boolean {
  const known = medians.filter((m): m is number => m !== undefined);
  const low = known.filter((m) => m < LOW_HZ).length;
  const high = known.filter((m) => m > HIGH_HZ).length;
  return low >= 2 && high >= 2 && low >= known.length / 4 && high >= known.length / 4;
}

/** `f0s[i]`: utterance i's voiced F0 frames; `speakers[i]`: its speaker (undefined: speakers unknown). */
export function gendersOf(f0s: number[][], speakers: (number | undefined)[]): (Gender | undefined)[] {
  const own = f0s.map((f) => (f.length >= MIN_FRAMES ? median(f) : undefined));
  const all = median(f0s.flat());
  const bySpeaker = new Map<number, number[]>();
  speakers.forEach((s, i) => s !== undefined && bySpeaker.set(s, [...(bySpeaker.get(s) ?? []), i]));
  const decided = new Map<number, { pooled: number | undefined; mixed: boolean }>();
  for (const [s, idx] of bySpeaker) decided.set(s, { pooled: median(idx.flatMap((i) => f0s[i]!)), mixed: mixed(idx.map((i) => own[i])) });
  return f0s.map((_, i) => {
    const s = speakers[i];
    if (s === undefined) return genderOf(own[i] ?? all);
    const d = decided.get(s)!;
    return genderOf(d.mixed ? (own[i] ?? d.pooled) : (d.pooled ?? all));
  });
}
