/**
 * Diarization of a recording, as named steps with typed outputs (pyannote's shape):
 *   speechRegions (from the words) → embedWindows (GE2E, 1.5 s every 0.75 s of speech) →
 *   clusterEmbeddings (number of speakers estimated or given) → assignWords (speaker changes between
 *   words, utterances split) → name (S1, S2… or C<n>) → gender (median F0 per speaker or utterance).
 * Each step but the embeddings is a pure function of its module; this one runs them over every channel.
 * Runs in a worker thread (src/speakers/pool.ts): the embeddings and the clustering are seconds of CPU on a long call.
 */
import { resample } from '../audio/resample.js';
import type { Utterance } from '../types.js';
import { nameSpeakers, smoothRuns, speakerAt, splitUtterance, type LabelledWindow } from './assign.js';
import { clusterEmbeddings, type ClusterOptions } from './cluster.js';
import { SAMPLE_RATE, type SpeakerEncoder } from './encoder.js';
import { genderOf, median, voicedF0, type Gender } from './pitch.js';
import { regionWindows, speechRegions, speechTimeline, WINDOW_DEFAULTS, type Span, type SpeechTimeline } from './regions.js';

export interface DiarizeChannel {
  channel: number;
  sampleRate: number;
  samples: Float32Array;
  /** This channel's utterances, with word times. */
  utterances: Utterance[];
}

export interface DiarizeOptions {
  /** Find the speakers (diarize=true). */
  diarize: boolean;
  /** Tag each utterance male/female (gender=true). */
  gender: boolean;
  /** The number of speakers per channel, when known (speakers=N). */
  speakers?: number;
  cluster?: Partial<ClusterOptions>;
}

export interface SpeakerUtterance extends Utterance {
  metadata: Utterance['metadata'] & { speaker?: string; gender?: Gender };
}

export interface ChannelResult {
  channel: number;
  /** Voices found (1 when not diarized). */
  speakers: number;
  silhouette: number;
  windows: number;
}

export interface DiarizeResult {
  utterances: SpeakerUtterance[];
  channels: ChannelResult[];
  /** Milliseconds spent in each step, summed over channels. */
  timings: Record<'regions' | 'embeddings' | 'clustering' | 'assign' | 'gender', number>;
}

const TARGET_DBFS = -30;
const PITCH_RATE = 4000;
/** chooseK's bar for a second voice in one channel of several (CLUSTER_DEFAULTS.minSplitScore on a single channel). */
const MULTICHANNEL_SPLIT_SCORE = 0.45;

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

function wordsOf(utts: Utterance[]): Span[] {
  return utts.flatMap((u) => (u.events.length ? u.events.map((e) => ({ start: e.start, end: e.end })) : [{ start: u.start, end: u.end }]));
}

interface ChannelSpeakers {
  /** Per utterance piece: the utterance and its cluster. */
  pieces: { utterance: Utterance; speaker: number }[];
  result: ChannelResult;
}

async function diarizeChannel(enc: SpeakerEncoder, ch: DiarizeChannel, o: DiarizeOptions, t: DiarizeResult['timings'], multiChannel: boolean): Promise<ChannelSpeakers> {
  let t0 = performance.now();
  const duration = ch.samples.length / ch.sampleRate;
  const words = wordsOf(ch.utterances);
  const timeline = speechTimeline(speechRegions(words, duration));
  t.regions += performance.now() - t0;
  const none = (): ChannelSpeakers => ({
    pieces: ch.utterances.map((utterance) => ({ utterance, speaker: 0 })),
    result: { channel: ch.channel, speakers: 1, silhouette: 0, windows: 0 },
  });
  if (!o.diarize || timeline.length === 0) return none();

  t0 = performance.now();
  const audio = speechAudio(ch.sampleRate === SAMPLE_RATE ? ch.samples : resample(ch.samples, ch.sampleRate, SAMPLE_RATE), timeline);
  const { data: mel } = await enc.mel(audio);
  const spans = regionWindows(timeline);
  const frames = Math.round(WINDOW_DEFAULTS.windowSec * 100);
  const embeddings = await enc.embedWindows(
    mel,
    spans.map((w) => Math.round(w.start * 100)),
    frames,
    spans.map((w) => Math.max(1, Math.round((w.end - w.start) * 100))),
  );
  t.embeddings += performance.now() - t0;

  t0 = performance.now();
  // a channel of a multichannel recording is one speaker unless the evidence for more is strong
  const strict = multiChannel ? { minSplitScore: MULTICHANNEL_SPLIT_SCORE } : {};
  const clustering = clusterEmbeddings(embeddings, { ...strict, ...o.cluster, speakers: o.speakers });
  t.clustering += performance.now() - t0;

  t0 = performance.now();
  const windows: LabelledWindow[] = spans.map((w, i) => ({ ...w, label: clustering.labels[i]! }));
  const pieces: ChannelSpeakers['pieces'] = [];
  for (const u of ch.utterances) {
    const times = u.events.length ? u.events.map((e) => (e.start + e.end) / 2) : [(u.start + u.end) / 2];
    pieces.push(...splitUtterance(u, speakerAt(times, timeline, windows, clustering.k)));
  }
  // lone short words between two runs of one speaker, across utterance boundaries too
  const flat = pieces.map((p) => ({ start: p.utterance.start, end: p.utterance.end }));
  const smoothed = smoothRuns(flat, pieces.map((p) => p.speaker), { maxWords: 1, maxSec: 0.5 });
  const merged = remerge(pieces.map((p, i) => ({ ...p, speaker: smoothed[i]! })));
  t.assign += performance.now() - t0;
  return { pieces: merged, result: { channel: ch.channel, speakers: clustering.k, silhouette: clustering.silhouette, windows: spans.length } };
}

/** Adjacent pieces of one split utterance that ended up with the same speaker are one utterance again. */
function remerge(pieces: { utterance: Utterance; speaker: number }[]): { utterance: Utterance; speaker: number }[] {
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

export async function diarizeRecording(enc: SpeakerEncoder, channels: DiarizeChannel[], o: DiarizeOptions): Promise<DiarizeResult> {
  const timings = { regions: 0, embeddings: 0, clustering: 0, assign: 0, gender: 0 };
  const results: ChannelSpeakers[] = [];
  for (const ch of channels) results.push(await diarizeChannel(enc, ch, o, timings, channels.length > 1));
  const multi = channels.length > 1;
  const out: SpeakerUtterance[] = [];
  for (const [i, r] of results.entries()) {
    const ch = channels[i]!;
    const names = o.diarize
      ? multi && r.result.speakers === 1
        ? new Map([[0, `C${ch.channel}`]])
        : nameSpeakers(r.pieces.map((p) => ({ start: p.utterance.start, speaker: p.speaker })), multi ? `C${ch.channel}S` : 'S')
      : undefined;
    const t0 = performance.now();
    const genders = o.gender ? genderOfPieces(ch, r.pieces, o.diarize) : undefined;
    timings.gender += performance.now() - t0;
    r.pieces.forEach((p, n) => {
      const metadata: SpeakerUtterance['metadata'] = { ...p.utterance.metadata };
      if (names) metadata.speaker = names.get(p.speaker);
      const g = genders?.[n];
      if (g) metadata.gender = g;
      out.push({ ...p.utterance, metadata });
    });
  }
  out.sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel);
  out.forEach((u, uttid) => (u.metadata.uttid = uttid));
  return { utterances: out, channels: results.map((r) => r.result), timings };
}

/**
 * Every `factor` samples averaged into one: a crude low-pass, enough for pitch (which needs the
 * periodicity, not a clean spectrum) and far cheaper than the band-limited resampler.
 */
export function decimate(samples: Float32Array, factor: number): Float32Array {
  if (factor <= 1) return samples;
  const out = new Float32Array(Math.floor(samples.length / factor));
  for (let i = 0; i < out.length; i++) {
    let s = 0;
    for (let k = 0; k < factor; k++) s += samples[i * factor + k]!;
    out[i] = s / factor;
  }
  return out;
}

/** Gender per piece: from its speaker's pooled F0 when diarized, else its own (the channel's when it has no voiced frame). */
function genderOfPieces(ch: DiarizeChannel, pieces: { utterance: Utterance; speaker: number }[], bySpeaker: boolean): (Gender | undefined)[] {
  // pitch at 4 kHz: F0 is at most 400 Hz, and the autocorrelation costs a sixteenth of what it does at 16 kHz
  const factor = ch.sampleRate % PITCH_RATE === 0 ? ch.sampleRate / PITCH_RATE : 1;
  const rate = ch.sampleRate / factor;
  const pcm = decimate(ch.samples, factor);
  const f0s = pieces.map((p) => voicedF0(pcm, rate, wordsOf([p.utterance])));
  const channelF0 = median(f0s.flat());
  if (bySpeaker) {
    const pooled = new Map<number, number[]>();
    pieces.forEach((p, i) => pooled.set(p.speaker, [...(pooled.get(p.speaker) ?? []), ...f0s[i]!]));
    return pieces.map((p) => genderOf(median(pooled.get(p.speaker)!) ?? channelF0));
  }
  return f0s.map((f) => genderOf(f.length >= 5 ? median(f) : channelF0));
}
