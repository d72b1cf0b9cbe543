/**
 * The first diarization of voxdex (before real conversations were measured), kept callable as the bench's
 * peer "today's pipeline" (`method: 'words'`): speech regions from the ASR's words alone, windows of 1.5 s
 * every 0.75 s, the silhouette-based number of speakers of cluster.ts, no resegmentation.
 */
import type { Utterance } from '../types.js';
import { smoothRuns, speakerAt, splitUtterance, type LabelledWindow } from './assign.js';
import { clusterEmbeddings } from './cluster.js';
import type { ChannelSpeakers, DiarizeChannel, DiarizeOptions, StepTimings } from './diarize.js';
import { embedTimeline, remerge, wordsOf } from './channel-audio.js';
import type { SpeakerEncoder } from './encoder.js';
import { regionWindows, speechRegions, speechTimeline, WINDOW_DEFAULTS } from './regions.js';

/** chooseK's bar for a second voice in one channel of several (CLUSTER_DEFAULTS.minSplitScore on a single channel). */
const MULTICHANNEL_SPLIT_SCORE = 0.45;

export async function diarizeChannelByWords(enc: SpeakerEncoder, ch: DiarizeChannel, o: DiarizeOptions, t: StepTimings, multiChannel: boolean): Promise<ChannelSpeakers> {
  let t0 = performance.now();
  const duration = ch.samples.length / ch.sampleRate;
  const timeline = speechTimeline(speechRegions(wordsOf(ch.utterances), duration));
  t.regions += performance.now() - t0;
  if (timeline.length === 0) return { pieces: ch.utterances.map((utterance) => ({ utterance, speaker: 0 })), result: { channel: ch.channel, speakers: 1, windows: 0 }, turns: [] };

  t0 = performance.now();
  const spans = regionWindows(timeline);
  const embeddings = await embedTimeline(enc, ch, timeline, spans, WINDOW_DEFAULTS.windowSec);
  t.embeddings += performance.now() - t0;

  t0 = performance.now();
  const strict = multiChannel ? { minSplitScore: MULTICHANNEL_SPLIT_SCORE } : {};
  const clustering = clusterEmbeddings(embeddings, { ...strict, ...(o.speakers !== undefined ? { speakers: o.speakers } : {}) });
  t.clustering += performance.now() - t0;

  t0 = performance.now();
  const windows: LabelledWindow[] = spans.map((w, i) => ({ ...w, label: clustering.labels[i]! }));
  const pieces: { utterance: Utterance; speaker: number }[] = [];
  for (const u of ch.utterances) {
    const times = u.events.length ? u.events.map((e) => (e.start + e.end) / 2) : [(u.start + u.end) / 2];
    pieces.push(...splitUtterance(u, speakerAt(times, timeline, windows, clustering.k)));
  }
  const flat = pieces.map((p) => ({ start: p.utterance.start, end: p.utterance.end }));
  const smoothed = smoothRuns(flat, pieces.map((p) => p.speaker), { maxWords: 1, maxSec: 0.5 });
  const merged = remerge(pieces.map((p, i) => ({ ...p, speaker: smoothed[i]! })));
  t.assign += performance.now() - t0;
  const turns = merged.map((p) => ({ start: p.utterance.start, end: p.utterance.end, speaker: p.speaker }));
  return { pieces: merged, result: { channel: ch.channel, speakers: clustering.k, windows: spans.length }, turns };
}
