/**
 * Diarization of a recording, as named steps with typed outputs (pyannote's shape):
 *   speech (Silero VAD + words, speech.ts) → embeddings (GE2E, 1.5 s windows every 0.5 s inside each
 *   region) → clustering (average linkage, threshold calibrated on the recording's own reference
 *   similarity, ahc.ts) → resegmentation (Viterbi over the windows, resegment.ts) → assignment (each word
 *   the speaker of the windows over its middle; utterances split between words, assign.ts) → naming
 *   (S1, S2… or C<n>) → gender (pitch.ts).
 * Each step but the embeddings and the VAD is a pure function of its module; this one runs them over every
 * channel. Runs in a worker thread (src/speakers/pool.ts). `method: 'words'` runs the first pipeline
 * (legacy-channel.ts), kept as the bench's peer.
 */
import { voxdexError } from '../errors.js';
import type { Utterance } from '../types.js';
import { speechRegions as vadRegions } from '../vad/regions.js';
import type { SileroVad } from '../vad/silero.js';
import { nameSpeakers, smoothRuns, speakerAt, splitUtterance, type LabelledWindow } from './assign.js';
import { clusterWindows, compactLabels, referenceSimilarity, type AhcOptions } from './ahc.js';
import { centroids, dot } from './cluster.js';
import { embedTimeline, remerge, to16k, wordsOf } from './channel-audio.js';
import { SAMPLE_RATE, type SpeakerEncoder } from './encoder.js';
import { diarizeChannelByWords } from './legacy-channel.js';
import { gendersOf } from './gender.js';
import { voicedF0, type Gender } from './pitch.js';
import { regionWindows, speechTimeline, type Span, type SpeechTimeline } from './regions.js';
import { resegment, type ResegmentOptions } from './resegment.js';
import { SPEECH_DEFAULTS, speechFromVad, type SpeechOptions } from './speech.js';

export interface DiarizeChannel {
  channel: number;
  sampleRate: number;
  samples: Float32Array;
  /** This channel's utterances, with word times. */
  utterances: Utterance[];
  /** Where this channel carries another channel's crosstalk (seconds): left out of its speech. */
  exclude?: Span[];
}

export interface DiarizeModels {
  encoder: SpeakerEncoder;
  vad: SileroVad;
}

export interface DiarizeOptions {
  /** Find the speakers (diarize=true). */
  diarize: boolean;
  /** Tag each utterance male/female (gender=true). */
  gender: boolean;
  /** The number of speakers per channel, when known (speakers=N). */
  speakers?: number;
  /** Bounds on the number estimated (minspeakers / maxspeakers). */
  minSpeakers?: number;
  maxSpeakers?: number;
  /** 'vad' (default) or 'words': the first pipeline, for comparison. */
  method?: 'vad' | 'words';
  /** Step parameters (the bench's tuning). */
  speech?: Partial<SpeechOptions>;
  ahc?: Partial<AhcOptions>;
  resegment?: Partial<ResegmentOptions>;
}

export interface SpeakerUtterance extends Utterance {
  metadata: Utterance['metadata'] & { speaker?: string; gender?: Gender };
}

export interface ChannelResult {
  channel: number;
  /** Voices found (1 when not diarized). */
  speakers: number;
  windows: number;
  /** The clustering's reference similarity and threshold (method 'vad'). */
  reference?: number;
  threshold?: number;
  /** The cosine of the two closest speakers' centroids (method 'vad', more than one speaker). */
  closest?: number;
}

/** A stretch of one speaker's speech (seconds), from the speech regions: the diarization's own output (DER is scored on it). */
export interface SpeakerTurn {
  channel: number;
  start: number;
  end: number;
  speaker: string;
}

export interface DiarizeResult {
  utterances: SpeakerUtterance[];
  channels: ChannelResult[];
  turns: SpeakerTurn[];
  /** Milliseconds spent in each step, summed over channels. */
  timings: StepTimings;
}

export type StepTimings = Record<'regions' | 'embeddings' | 'clustering' | 'assign' | 'gender', number>;

/** One channel's outcome before naming: utterance pieces and turns with cluster numbers. */
export interface ChannelSpeakers {
  pieces: { utterance: Utterance; speaker: number }[];
  result: ChannelResult;
  turns: { start: number; end: number; speaker: number }[];
}

const PITCH_RATE = 4000;
const WINDOW = { windowSec: 1.5, stepSec: 0.5 };
/** A channel of a multichannel recording is one speaker unless a second voice stands out this much more. */
const MULTICHANNEL_DELTA = 0.2;
/** On a channel of several, a second voice must say at least this many of the channel's recognised words. */
const MULTICHANNEL_MIN_WORDS = 10;
/** Turns are labelled every TURN_STEP seconds. */
const TURN_STEP = 0.05;

/** Windows inside each region of the timeline, with the region each belongs to. */
function windowsByRegion(timeline: SpeechTimeline): { spans: Span[]; regionOf: number[] } {
  const spans: Span[] = [];
  const regionOf: number[] = [];
  timeline.regions.forEach((r, i) => {
    const one = speechTimeline([r]);
    for (const w of regionWindows(one, WINDOW)) {
      spans.push({ start: w.start + timeline.offsets[i]!, end: w.end + timeline.offsets[i]! });
      regionOf.push(i);
    }
  });
  return { spans, regionOf };
}

/** Speaker turns: each region labelled every TURN_STEP by the windows' vote, runs merged. */
function turnsOf(timeline: SpeechTimeline, windows: LabelledWindow[], k: number): ChannelSpeakers['turns'] {
  const turns: ChannelSpeakers['turns'] = [];
  for (const r of timeline.regions) {
    const times: number[] = [];
    for (let t = r.start; t < r.end - 1e-9; t += TURN_STEP) times.push(Math.min(r.end, t + TURN_STEP / 2));
    speakerAt(times, timeline, windows, k).forEach((speaker, i) => {
      const start = r.start + i * TURN_STEP;
      const end = Math.min(r.end, start + TURN_STEP);
      const last = turns[turns.length - 1];
      if (last && last.speaker === speaker && Math.abs(last.end - start) < 1e-6) last.end = end;
      else turns.push({ start, end, speaker });
    });
  }
  return turns.map((t) => ({ ...t, start: Math.round(t.start * 1000) / 1000, end: Math.round(t.end * 1000) / 1000 }));
}

/**
 * A run of at most one word under 0.5 s between two runs of one other speaker follows them, unless it
 * stands alone between pauses (its own speech region): that is a back-channel ("yeah", "mm-hmm"), and
 * the windows of its own region decided its voice.
 */
function smoothWords(pieces: { utterance: Utterance; speaker: number }[], regions: Span[]): number[] {
  const spans = pieces.map((p) => ({ start: p.utterance.start, end: p.utterance.end }));
  const smoothed = smoothRuns(spans, pieces.map((p) => p.speaker), { maxWords: 1, maxSec: 0.5 });
  const regionAt = (t: number) => regions.findIndex((r) => t >= r.start - 1e-6 && t <= r.end + 1e-6);
  return smoothed.map((s, i) => {
    if (s === pieces[i]!.speaker) return s;
    const own = regionAt((spans[i]!.start + spans[i]!.end) / 2);
    const alone = own >= 0 && [spans[i - 1], spans[i + 1]].every((n) => !n || regionAt((n.start + n.end) / 2) !== own);
    return alone ? pieces[i]!.speaker : s;
  });
}

/**
 * A channel of several is one person's microphone or line: a cluster that says fewer than
 * MULTICHANNEL_MIN_WORDS of its recognised words (what is left of another channel's bleed, noise, a
 * cough) is not a second person there and joins the nearest voice.
 */
function keepSpokenVoices(points: Float32Array[], c: { labels: number[]; k: number }, spans: Span[], timeline: SpeechTimeline, utterances: Utterance[]): { labels: number[]; k: number } {
  const windows: LabelledWindow[] = spans.map((w, i) => ({ ...w, label: c.labels[i]! }));
  const words = new Array<number>(c.k).fill(0);
  for (const l of speakerAt(wordsOf(utterances).map((w) => (w.start + w.end) / 2), timeline, windows, c.k)) words[l]!++;
  const spoken = words.map((n, j) => j).filter((j) => words[j]! >= MULTICHANNEL_MIN_WORDS);
  if (spoken.length === c.k) return c;
  if (spoken.length <= 1) return { labels: c.labels.map(() => 0), k: 1 };
  const cents = centroids(points, c.labels, c.k);
  const nearestSpoken = (p: Float32Array) => spoken.reduce((best, j) => (dot(p, cents[j]!) > dot(p, cents[best]!) ? j : best), spoken[0]!);
  return compactLabels(c.labels.map((l, i) => (spoken.includes(l) ? l : nearestSpoken(points[i]!))));
}

function closestCentroids(points: Float32Array[], labels: number[], k: number): number | undefined {
  if (k < 2) return undefined;
  const cents = centroids(points, labels, k);
  let best = -1;
  for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) best = Math.max(best, dot(cents[a]!, cents[b]!));
  return best;
}

async function diarizeChannel(m: DiarizeModels, ch: DiarizeChannel, o: DiarizeOptions, t: StepTimings, multiChannel: boolean): Promise<ChannelSpeakers> {
  let t0 = performance.now();
  const duration = ch.samples.length / ch.sampleRate;
  const samples16k = to16k(ch);
  const vad = ch.sampleRate === 8000 ? await vadRegions(ch.samples, 8000, {}, m.vad) : await vadRegions(samples16k, SAMPLE_RATE, {}, m.vad);
  const regions = speechFromVad(vad.probabilities, vad.windowSeconds, wordsOf(ch.utterances), duration, { ...SPEECH_DEFAULTS, ...o.speech }, ch.exclude);
  const timeline = speechTimeline(regions);
  t.regions += performance.now() - t0;
  if (timeline.length === 0) return { pieces: ch.utterances.map((utterance) => ({ utterance, speaker: 0 })), result: { channel: ch.channel, speakers: 1, windows: 0 }, turns: [] };

  t0 = performance.now();
  const { spans, regionOf } = windowsByRegion(timeline);
  const embeddings = await embedTimeline(m.encoder, ch, timeline, spans, WINDOW.windowSec, samples16k);
  t.embeddings += performance.now() - t0;

  t0 = performance.now();
  const reference = referenceSimilarity(embeddings, spans, regionOf, WINDOW.windowSec);
  const bounds = { ...(o.speakers !== undefined ? { speakers: o.speakers } : {}), ...(o.minSpeakers !== undefined ? { minSpeakers: o.minSpeakers } : {}), ...(o.maxSpeakers !== undefined ? { maxSpeakers: o.maxSpeakers } : {}) };
  const clustering = clusterWindows(embeddings, reference, { ...(multiChannel ? { delta: MULTICHANNEL_DELTA } : {}), regionOf, ...o.ahc, ...bounds });
  const newRegion = regionOf.map((r, i) => i === 0 || r !== regionOf[i - 1]);
  let final = resegment(embeddings, clustering.labels, clustering.k, newRegion, o.resegment);
  if (multiChannel && final.k > 1 && o.speakers === undefined && o.minSpeakers === undefined) final = keepSpokenVoices(embeddings, final, spans, timeline, ch.utterances);
  const closest = closestCentroids(embeddings, final.labels, final.k);
  t.clustering += performance.now() - t0;

  t0 = performance.now();
  const windows: LabelledWindow[] = spans.map((w, i) => ({ ...w, label: final.labels[i]! }));
  const pieces: ChannelSpeakers['pieces'] = [];
  for (const u of ch.utterances) {
    const times = u.events.length ? u.events.map((e) => (e.start + e.end) / 2) : [(u.start + u.end) / 2];
    pieces.push(...splitUtterance(u, speakerAt(times, timeline, windows, final.k)));
  }
  const smoothed = smoothWords(pieces, regions);
  const merged = remerge(pieces.map((p, i) => ({ ...p, speaker: smoothed[i]! })));
  const turns = turnsOf(timeline, windows, final.k);
  t.assign += performance.now() - t0;
  return { pieces: merged, turns, result: { channel: ch.channel, speakers: final.k, windows: spans.length, reference, threshold: clustering.threshold, ...(closest !== undefined ? { closest } : {}) } };
}

function requireModels(m: DiarizeModels | undefined): DiarizeModels {
  if (!m) throw voxdexError('INTERNAL', 'diarization needs the speaker encoder and the VAD');
  return m;
}

/** `m` may be undefined when only gender is asked for. */
export async function diarizeRecording(m: DiarizeModels | undefined, channels: DiarizeChannel[], o: DiarizeOptions): Promise<DiarizeResult> {
  const timings: StepTimings = { regions: 0, embeddings: 0, clustering: 0, assign: 0, gender: 0 };
  const multi = channels.length > 1;
  const results: ChannelSpeakers[] = [];
  for (const ch of channels) {
    if (!o.diarize || ch.utterances.length === 0) results.push({ pieces: ch.utterances.map((utterance) => ({ utterance, speaker: 0 })), result: { channel: ch.channel, speakers: 1, windows: 0 }, turns: [] });
    else if (o.method === 'words') results.push(await diarizeChannelByWords(requireModels(m).encoder, ch, o, timings, multi));
    else results.push(await diarizeChannel(requireModels(m), ch, o, timings, multi));
  }
  const out: SpeakerUtterance[] = [];
  const turns: SpeakerTurn[] = [];
  for (const [i, r] of results.entries()) {
    const ch = channels[i]!;
    const names = o.diarize
      ? multi && r.result.speakers === 1
        ? new Map([[0, `C${ch.channel}`]])
        : nameSpeakers([...r.pieces.map((p) => ({ start: p.utterance.start, speaker: p.speaker })), ...r.turns], multi ? `C${ch.channel}S` : 'S')
      : undefined;
    const t0 = performance.now();
    const genders = o.gender ? genderOfPieces(ch, r.pieces, o.diarize || multi) : undefined;
    timings.gender += performance.now() - t0;
    r.pieces.forEach((p, n) => {
      const metadata: SpeakerUtterance['metadata'] = { ...p.utterance.metadata };
      if (names) metadata.speaker = names.get(p.speaker);
      const g = genders?.[n];
      if (g) metadata.gender = g;
      out.push({ ...p.utterance, metadata });
    });
    if (names) for (const tn of r.turns) turns.push({ channel: ch.channel, start: tn.start, end: tn.end, speaker: names.get(tn.speaker)! });
  }
  out.sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel);
  out.forEach((u, uttid) => (u.metadata.uttid = uttid));
  turns.sort((a, b) => a.start - b.start || a.channel - b.channel);
  return { utterances: out, channels: results.map((r) => r.result), turns, timings };
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

/** Gender per piece (gender.ts): per speaker when the channel's speakers are known (diarized, or one channel of several). */
function genderOfPieces(ch: DiarizeChannel, pieces: { utterance: Utterance; speaker: number }[], bySpeaker: boolean): (Gender | undefined)[] {
  // pitch at 4 kHz: F0 is at most 400 Hz, and the autocorrelation costs a sixteenth of what it does at 16 kHz
  const factor = ch.sampleRate % PITCH_RATE === 0 ? ch.sampleRate / PITCH_RATE : 1;
  const rate = ch.sampleRate / factor;
  const pcm = decimate(ch.samples, factor);
  const f0s = pieces.map((p) => voicedF0(pcm, rate, wordsOf([p.utterance])));
  return gendersOf(f0s, pieces.map((p) => (bySpeaker ? p.speaker : undefined)));
}
