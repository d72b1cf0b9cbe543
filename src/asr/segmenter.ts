/**
 * The segmentation seam: where a channel is cut into utterances for the ASR, in a file (the
 * transcriber) and as a live call's audio arrives (the endpointer), by one of two segmenters:
 *
 * - `energy` (the default): the energy segmenter (src/audio/segment.ts) on the engine's 16-bit PCM; live,
 *   the endpointer that re-runs it over the audio not yet cut (src/asr/endpointer.ts).
 * - `silero` (VOXDEX_SEGMENTER=silero): the Silero VAD's speech probabilities (src/vad/) through the endpointing
 *   rules with the ASR's parameters (src/vad/utterances.ts), scored at 8 or 16 kHz on the channel as
 *   decoded. Live and batch run the same stream over the same samples: the same utterances.
 *
 * The default chosen by measurement (bench/segmentation.ts; docs/vad.md, "Utterances for the ASR").
 */
import { resample } from '../audio/resample.js';
import { SEGMENTER_NAMES, type SegmenterName } from '../config.js';
import { segmentSamples, type Segment } from '../audio/segment.js';
import { voxdexError } from '../errors.js';
import { energyEndpointer, type Endpointer } from './endpointer.js';
import { sileroEndpointer } from './vad-endpointer.js';
import { sileroVad, type SileroVad } from '../vad/silero.js';
import { createVadStream } from '../vad/stream.js';
import { eventSegment, utteranceEndpointParams, vadRate, type UtteranceVadParams } from '../vad/utterances.js';

export { SEGMENTER_NAMES, type SegmenterName };

/** One channel of a recording, as decoded and at the engine's rate. */
export interface ChannelAudio {
  /** Float samples in [-1, 1] at the recording's rate. */
  source: Float32Array;
  sourceRate: number;
  /** The same channel as the engine takes it (what utterances are cut from). */
  pcm: Int16Array;
  rate: number;
}

export interface SegmentRequest {
  /** Longest utterance, seconds, padding included. */
  maxUtteranceSec: number;
  signal?: AbortSignal;
}

export interface Segmenter {
  readonly name: SegmenterName;
  /** Loads what it needs (the VAD model, once per thread); MODEL_LOAD_FAILED when it cannot. */
  ready(): Promise<void>;
  /** The channel's utterances, in samples of `c.rate`, in time order, not overlapping. */
  segment(c: ChannelAudio, o: SegmentRequest): Promise<Segment[]>;
  /** A live channel's endpointer (samples at the call's own rate). */
  endpointer(o: { sampleRate: number; maxUtteranceSec: number }): Endpointer;
}

export const energySegmenter: Segmenter = {
  name: 'energy',
  ready: () => Promise.resolve(),
  segment: async (c, o) => segmentSamples(c.pcm, c.rate, { maxUtteranceSec: o.maxUtteranceSec }),
  endpointer: (o) => energyEndpointer(o),
};

/** Seconds of audio scored between two looks at the abort signal. */
const VAD_CHUNK_SEC = 10;

/**
 * The Silero segmenter; `params` override the tuned endpointing parameters (benchmarks), `model` the
 * thread's shared VAD (tests).
 */
export function sileroSegmenter(params: Partial<UtteranceVadParams> = {}, model?: () => Promise<SileroVad>): Segmenter {
  const load = model ?? sileroVad;
  return {
    name: 'silero',
    ready: async () => void (await load()),
    async segment(c, o) {
      const rate = vadRate(c.sourceRate);
      const x = rate === c.sourceRate ? c.source : resample(c.source, c.sourceRate, rate);
      const stream = createVadStream(await load(), { sampleRate: rate, ...utteranceEndpointParams(o.maxUtteranceSec, params) });
      const events = [];
      const chunk = VAD_CHUNK_SEC * rate;
      for (let i = 0; i < x.length; i += chunk) {
        if (o.signal?.aborted) throw voxdexError('CANCELLED', 'transcription cancelled');
        events.push(...(await stream.push(x.subarray(i, i + chunk))).events);
      }
      events.push(...(await stream.end()).events);
      const scale = c.rate / c.sourceRate;
      const at = (n: number) => Math.min(c.pcm.length, Math.round(n * scale));
      return events.flatMap((e) => {
        if (e.type !== 'end') return [];
        const s = eventSegment(e, c.sourceRate, c.source);
        return [{ start: at(s.start), end: at(s.end), speechStart: at(s.speechStart), speechEnd: at(s.speechEnd) }];
      });
    },
    endpointer: (o) => sileroEndpointer(load(), { ...o, params }),
  };
}

export function createSegmenter(name: SegmenterName): Segmenter {
  return name === 'energy' ? energySegmenter : sileroSegmenter();
}
