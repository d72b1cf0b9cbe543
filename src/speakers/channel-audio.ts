/**
 * What the diarization steps share about a channel's audio: its words as spans, its speech laid end to end
 * at 16 kHz and level-normalised for the encoder, the embeddings of windows on that timeline, and the
 * re-joining of utterance pieces.
 */
import { resample } from '../audio/resample.js';
import type { Utterance } from '../types.js';
import type { DiarizeChannel } from './diarize.js';
import { SAMPLE_RATE, type SpeakerEncoder } from './encoder.js';
import type { Span, SpeechTimeline } from './regions.js';

const TARGET_DBFS = -30;

/** The regions' audio end to end at 16 kHz, each region at -30 dBFS (Resemblyzer's input level). */
export function speechAudio(samples16k: Float32Array, timeline: SpeechTimeline): Float32Array {
  const out = new Float32Array(Math.round(timeline.length * SAMPLE_RATE) + 1);
  let at = 0;
  for (const r of timeline.regions) {
    const seg = samples16k.subarray(Math.round(r.start * SAMPLE_RATE), Math.round(r.end * SAMPLE_RATE));
    let sq = 0;
    for (const x of seg) sq += x * x;
    const rms = Math.sqrt(sq / Math.max(1, seg.length));
    const gain = rms > 1e-5 ? 10 ** (TARGET_DBFS / 20) / rms : 1;
    for (let i = 0; i < seg.length && at + i < out.length; i++) out[at + i] = seg[i]! * gain;
    at += seg.length;
  }
  return out.subarray(0, Math.min(out.length, at));
}

export function wordsOf(utts: Utterance[]): Span[] {
  return utts.flatMap((u) => (u.events.length ? u.events.map((e) => ({ start: e.start, end: e.end })) : [{ start: u.start, end: u.end }]));
}

export const to16k = (ch: DiarizeChannel) => (ch.sampleRate === SAMPLE_RATE ? ch.samples : resample(ch.samples, ch.sampleRate, SAMPLE_RATE));

/** Embeddings of `spans` (speech-timeline windows of at most `windowSec`) of the channel's speech. */
export async function embedTimeline(enc: SpeakerEncoder, ch: DiarizeChannel, timeline: SpeechTimeline, spans: Span[], windowSec: number, samples16k = to16k(ch)): Promise<Float32Array[]> {
  const { data: mel } = await enc.mel(speechAudio(samples16k, timeline));
  return enc.embedWindows(
    mel,
    spans.map((w) => Math.round(w.start * 100)),
    Math.round(windowSec * 100),
    spans.map((w) => Math.max(1, Math.round((w.end - w.start) * 100))),
  );
}

/** Adjacent pieces of one split utterance that ended up with the same speaker are one utterance again. */
export function remerge(pieces: { utterance: Utterance; speaker: number }[]): { utterance: Utterance; speaker: number }[] {
  const out: { utterance: Utterance; speaker: number }[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last.speaker === p.speaker && last.utterance.metadata.uttid === p.utterance.metadata.uttid) {
      const events = [...last.utterance.events, ...p.utterance.events];
      last.utterance = { ...last.utterance, end: p.utterance.end, events, confidence: Math.round((events.reduce((s, e) => s + e.confidence, 0) / events.length) * 1000) / 1000 };
    } else out.push({ ...p });
  }
  return out;
}
