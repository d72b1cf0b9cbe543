/** Types shared across stages, the ASR core, the service and search. */
import type { Config } from './config.js';
import type { Logger } from './log.js';

/** What every pipeline stage receives besides its input. A stage knows nothing about HTTP. */
export interface StageContext {
  jobId: string;
  signal: AbortSignal;
  log: Logger;
  config: Readonly<Config>;
}

export type Stage<I, O> = (input: I, ctx: StageContext) => Promise<O>;

// ---------------------------------------------------------------- audio

export type SampleEncoding = 'pcm_u8' | 'pcm_s16' | 'pcm_s24' | 'pcm_s32' | 'pcm_f32' | 'mulaw' | 'alaw';

export interface AudioFormat {
  encoding: SampleEncoding;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
}

/** Decoded audio: one Float32Array per channel, samples in [-1, 1). */
export interface DecodedAudio {
  format: AudioFormat;
  channels: Float32Array[];
  /** Frames per channel / sampleRate. */
  durationSec: number;
  /** Problems the decoder tolerated (e.g. "data chunk size 0; read to end of file"). */
  warnings: string[];
}

/** One channel at the ASR model's rate, ready for the engine. */
export interface ChannelPcm {
  channel: number;
  sampleRate: number;
  samples: Int16Array;
}

// ---------------------------------------------------------------- transcript document (API.md §4)

export interface WordEvent {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

export interface Utterance {
  start: number;
  end: number;
  confidence: number;
  metadata: { channel: number; uttid: number; source?: string; model?: string };
  events: WordEvent[];
}

export interface ChannelInfo {
  channel: number;
  audiosecs: number;
  speechsecs: number;
}

export interface TranscriptDocument {
  asr: string;
  model: string;
  confidence?: number;
  audiosecs: number;
  nchannels: number;
  started?: string;
  donedate?: string;
  requestid: string;
  source: string;
  streamtags?: { metadata?: Record<string, unknown> };
  chaninfo: ChannelInfo[];
  utterances: Utterance[];
  warning?: string;
}

export type OutputFormat = 'json' | 'jsontop' | 'text' | 'srt' | 'vtt';

// ---------------------------------------------------------------- tenancy

/** Where a transcript lives: company → organization → folder. */
export interface Destination {
  company: string;
  org: string;
  folder: string;
}
