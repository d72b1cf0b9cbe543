/**
 * The Transcriber the service calls: decoded audio in, utterances (TranscriptDocument in src/types.ts) out.
 * resample → segment per channel (src/asr/segmenter.ts: the energy segmenter by default, or the Silero
 * VAD, on this thread) →
 * one pool task per utterance (a few in flight per job, so short jobs pass long ones) → utterances in
 * time order.
 */
import type { Config } from '../config.js';
import { voxdexError } from '../errors.js';
import type { Logger } from '../log.js';
import { toChannelPcm } from '../audio/resample.js';
import type { Segment } from '../audio/segment.js';
import { tokenKind } from '../text/event-kind.js';
import type { ChannelInfo, DecodedAudio, TranscribeResult, Utterance, WordEvent } from '../types.js';
import type { NativeWord } from './binding.js';
import { createAsrPool, type AsrPool } from './pool.js';
import { loadModelRegistry, type ModelRegistry, type ModelSpec } from './models.js';
import { createSegmenter, type Segmenter } from './segmenter.js';

export interface TranscribeOptions {
  /** A model name or alias from the registry, or 'auto' (the default). */
  model?: string;
  /** Goes into every utterance's metadata.source. */
  source: string;
  signal?: AbortSignal;
  /** Fraction of the audio decoded, 0..1, called as utterances finish. */
  onProgress?(fraction: number): void;
  /**
   * Custom vocabulary: words and phrases (product names, jargon) the decoder is biased towards and
   * writes as spelled here. Moonshine only; other engines ignore it. Validated by the caller.
   */
  vocab?: string[];
}

export type { TranscribeResult };

/** A model chosen for a live call (Transcriber.liveModel): what decodeLive needs. */
export interface LiveModel {
  spec: ModelSpec;
  /** The aligner of a text-only engine. */
  aligner: ModelSpec | undefined;
  /** The rate the engine takes (the live call's audio is resampled to it). */
  sampleRate: number;
  /** Longest utterance the engine takes, seconds (the endpointer cuts longer speech). */
  maxUtteranceSec: number;
  /** Cuts the call's channels as the batch path cuts a file (segmenter.endpointer). */
  segmenter: Segmenter;
}

export interface Transcriber {
  readonly registry: ModelRegistry;
  /** The model for a live call at `sampleRate` (as `transcribe` resolves it for a file). */
  liveModel(model: string | undefined, sampleRate: number): LiveModel;
  /**
   * Decodes one live utterance (16-bit PCM at `model.sampleRate`, owning its buffer: transferred)
   * ahead of batch work; its words timed from `offsetSec`.
   */
  decodeLive(model: LiveModel, samples: Int16Array, o: { offsetSec: number; vocab?: string[]; abort?: Int32Array }): Promise<{ words: WordEvent[]; notes: string[] }>;
  /** Live utterances waiting for an ASR thread (partial results wait while there are any). */
  readonly liveQueued: number;
  /** Resolves once the models `auto` picks are loaded in every ASR thread. Rejects with MODEL_LOAD_FAILED. */
  ready(): Promise<void>;
  transcribe(audio: DecodedAudio, opts: TranscribeOptions): Promise<TranscribeResult>;
  close(): Promise<void>;
}

export interface TranscriberDeps {
  config: Pick<Config, 'asrThreads' | 'modelsFile' | 'segment'>;
  log: Logger;
  /** Defaults to loadModelRegistry(config.modelsFile). */
  registry?: ModelRegistry;
  /** Defaults to a pool of config.asrThreads threads (closed by close()). */
  pool?: AsrPool;
  /** Defaults to createSegmenter(config.segment.segmenter). */
  segmenter?: Segmenter;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** Most utterances decoded together in one thread (Moonshine's batched decoder steps). */
const MAX_BATCH = 8;

export function createTranscriber(deps: TranscriberDeps): Transcriber {
  const { config, log } = deps;
  const registry = deps.registry ?? loadModelRegistry(config.modelsFile);
  const ownPool = !deps.pool;
  const pool = deps.pool ?? createAsrPool({ threads: config.asrThreads });
  const segmenter = deps.segmenter ?? createSegmenter(config.segment.segmenter);

  return {
    registry,
    async ready() {
      // The models `auto` picks (and their aligners) load up front in every thread; a model asked for
      // by name loads in a thread the first time that thread decodes with it.
      const models = registry.eager();
      const t0 = performance.now();
      await Promise.all([pool.ready(models), segmenter.ready()]);
      log.info({ models: models.map((m) => m.name), threads: pool.threads, segmenter: segmenter.name, ms: Math.round(performance.now() - t0) }, 'ASR models loaded');
    },
    transcribe: (audio, opts) => transcribe(pool, registry, segmenter, config.segment.maxUtteranceSec, audio, opts),
    liveModel(model, sampleRate) {
      const spec = registry.resolve(model, sampleRate);
      const aligner = spec.engine === 'moonshine' ? registry.aligner(spec, sampleRate) : undefined;
      return { spec, aligner, sampleRate: spec.sampleRate, maxUtteranceSec: Math.min(config.segment.maxUtteranceSec, spec.maxUtteranceSec ?? Infinity), segmenter };
    },
    get liveQueued() {
      return pool.liveQueued;
    },
    async decodeLive(model, samples, o) {
      const abort = o.abort ?? new Int32Array(new SharedArrayBuffer(4));
      const out = await pool.decode(model.spec, samples, abort, { aligner: model.aligner, vocab: o.vocab, live: true });
      return { words: timedWords(out.words, o.offsetSec), notes: out.notes };
    },
    async close() {
      if (ownPool) await pool.close();
    },
  };
}

/** One utterance of one channel: the unit of work sent to the ASR pool. */
interface UtteranceTask {
  channel: number;
  segment: Segment;
  sampleRate: number;
  samples: Int16Array;
}

async function transcribe(
  pool: AsrPool,
  registry: ModelRegistry,
  segmenter: Segmenter,
  maxUtteranceSec: number,
  audio: DecodedAudio,
  opts: TranscribeOptions,
): Promise<TranscribeResult> {
  const signal = opts.signal;
  if (signal?.aborted) throw voxdexError('CANCELLED', 'cancelled before transcription started');
  const spec: ModelSpec = registry.resolve(opts.model, audio.format.sampleRate);
  // A text-only engine's words are timed by forced alignment, with the model for the audio's band.
  const aligner = spec.engine === 'moonshine' ? registry.aligner(spec, audio.format.sampleRate) : undefined;
  maxUtteranceSec = Math.min(maxUtteranceSec, spec.maxUtteranceSec ?? Infinity);
  const channels = toChannelPcm(audio, spec.sampleRate);

  const tasks: UtteranceTask[] = [];
  const chaninfo: ChannelInfo[] = [];
  const cut = await Promise.all(
    channels.map((c) =>
      segmenter.segment({ source: audio.channels[c.channel]!, sourceRate: audio.format.sampleRate, pcm: c.samples, rate: c.sampleRate }, { maxUtteranceSec, signal }),
    ),
  );
  for (const [i, c] of channels.entries()) {
    const segments = cut[i]!;
    let speech = 0;
    for (const s of segments) {
      speech += s.speechEnd - s.speechStart;
      tasks.push({ channel: c.channel, segment: s, sampleRate: c.sampleRate, samples: c.samples });
    }
    chaninfo.push({ channel: c.channel, audiosecs: round3(audio.durationSec), speechsecs: round3(speech / c.sampleRate) });
  }
  // Longest first keeps both threads busy to the end of a job.
  tasks.sort((a, b) => b.segment.end - b.segment.start - (a.segment.end - a.segment.start));
  const totalSamples = tasks.reduce((n, j) => n + j.segment.end - j.segment.start, 0);

  const abort = new Int32Array(new SharedArrayBuffer(4));
  // On abort: raise the flag the workers poll, and answer CANCELLED at once; an utterance in flight
  // finishes its last search step in the background (well under a second of work).
  let cancel!: (e: Error) => void;
  const cancelled = new Promise<never>((_, reject) => (cancel = reject));
  cancelled.catch(() => {});
  const onAbort = () => {
    Atomics.store(abort, 0, 1);
    cancel(voxdexError('CANCELLED', 'transcription cancelled'));
  };
  signal?.addEventListener('abort', onAbort, { once: true });

  const found: Array<{ channel: number; words: WordEvent[] }> = [];
  const notes: string[] = [];
  let doneSamples = 0;
  let firstError: unknown;
  let next = 0;
  // One lane per thread (a long call alone on the machine uses every thread); each lane takes the next
  // few utterances, of similar lengths (longest first), and decodes them together in one thread
  // (Moonshine batches their decoder steps). Batches shrink towards the end so the threads finish
  // together; other jobs' tasks queue in between.
  const lanes = Array.from({ length: Math.min(tasks.length, Math.max(1, pool.threads)) }, async () => {
    while (next < tasks.length && firstError === undefined && Atomics.load(abort, 0) === 0) {
      // While live calls run, batch tasks are single utterances so that a live one waits little for a thread.
      const size = spec.engine === 'moonshine' && !pool.liveRecently ? Math.min(MAX_BATCH, Math.ceil((tasks.length - next) / pool.threads)) : 1;
      const batch = tasks.slice(next, next + size);
      next += batch.length;
      // Each PCM owns its buffer, so it can be transferred.
      const pcms = batch.map((task) => task.samples.slice(task.segment.start, task.segment.end));
      try {
        const outs = await pool.decodeBatch(spec, pcms, abort, { aligner, vocab: opts.vocab });
        for (const [k, task] of batch.entries()) {
          const out = outs[k]!;
          const { start, end } = task.segment;
          const offset = start / task.sampleRate;
          found.push({ channel: task.channel, words: timedWords(out.words, offset) });
          notes.push(...out.notes);
          doneSamples += end - start;
        }
        opts.onProgress?.(totalSamples ? doneSamples / totalSamples : 1);
      } catch (err) {
        firstError ??= err;
        Atomics.store(abort, 0, 1); // stop this job's other utterances
      }
    }
  });
  try {
    await Promise.race([Promise.all(lanes), cancelled]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw voxdexError('CANCELLED', 'transcription cancelled');
  if (firstError !== undefined) throw firstError;
  if (tasks.length === 0) opts.onProgress?.(1);

  return { ...assemble(spec.name, opts.source, found, chaninfo, audio), notes };
}

/** The engine's words (ms from the utterance's start) as events timed from `offsetSec` in the recording. */
function timedWords(words: readonly NativeWord[], offsetSec: number): WordEvent[] {
  return words.map((w) => ({
    word: w.word,
    start: round3(offsetSec + w.start / 1000),
    end: round3(offsetSec + w.end / 1000),
    confidence: round3(w.confidence),
    kind: tokenKind(w.word),
    ...(w.written !== undefined ? { written: w.written } : {}),
  }));
}

function assemble(
  model: string,
  source: string,
  found: Array<{ channel: number; words: WordEvent[] }>,
  chaninfo: ChannelInfo[],
  audio: DecodedAudio,
): Omit<TranscribeResult, 'notes'> {
  const utts = found
    .filter((u) => u.words.length > 0)
    .sort((a, b) => a.words[0]!.start - b.words[0]!.start || a.channel - b.channel);
  let confSum = 0;
  let wordCount = 0;
  const utterances: Utterance[] = utts.map((u, uttid) => {
    const c = u.words.reduce((s, w) => s + w.confidence, 0);
    confSum += c;
    wordCount += u.words.length;
    return {
      start: u.words[0]!.start,
      end: u.words[u.words.length - 1]!.end,
      confidence: round3(c / u.words.length),
      metadata: { channel: u.channel, uttid, source, model },
      events: u.words,
    };
  });
  return {
    model,
    utterances,
    chaninfo,
    confidence: wordCount ? round3(confSum / wordCount) : undefined,
    audiosecs: round3(audio.durationSec),
    nchannels: audio.channels.length,
  };
}
