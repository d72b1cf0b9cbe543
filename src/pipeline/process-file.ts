/**
 * One recording file through the one pipeline: decode → transcribe → the stage table (stage-table.ts,
 * by the batch driver fold-stages.ts) → the transcript document. The upload runner (file-runner.ts, for the HTTP
 * upload, the drop folder and `voxdex import`) and `voxdex transcribe` both call processFile, so a
 * file is transcribed the same way wherever it came from. Nothing here persists anything.
 */
import type { Transcriber } from '../asr/transcriber.js';
import { withSource, type ByteSource } from '../audio/byte-source.js';
import { decode } from '../stages/decode.js';
import { documentStage } from '../stages/document.js';
import { renumberChannels, selectChannels } from '../stages/select-channels.js';
import { transcribeStage } from '../stages/transcribe.js';
import type { Categorize } from '../analytics/categories-stage.js';
import type { DecodedAudio, Destination, FileWork, PipelineStage, RequestOptions, StageContext, TranscriptDocument } from '../types.js';
import { runStages } from './fold-stages.js';
import { stageTable } from './stage-table.js';

export interface FileInput {
  requestid: string;
  /** The recording's bytes (a sealed upload or member), or a plain file's path (`voxdex transcribe`). */
  audio: ByteSource | string;
  /** Its name in the request (the upload's or the archive member's). */
  source: string;
  /** Registry name/alias or 'auto'. */
  model?: string;
  options: RequestOptions;
  destination?: Destination;
  /** Channels to transcribe, numbers as in the recording (default: all). */
  channels?: number[];
  metadata?: Record<string, unknown>;
  /** The request's warnings, before the file's own. */
  warnings?: string[];
  progress?: FileProgress;
}

/** How a caller follows one file (the runner records progress in the job store; the CLI draws a bar). */
export interface FileProgress {
  /** The audio is decoded: its length is known. */
  decoded?(audio: DecodedAudio): void;
  /** Fraction of the audio transcribed, 0..1. */
  transcribing?(fraction: number): void;
  /** Transcription ended, well or not. */
  transcribed?(): void;
}

export interface FileDeps {
  transcriber: Transcriber;
  /** The company's categories a document is in (the categories stage); absent, none. */
  categorize?: Categorize;
  /** Default stageTable({ categorize }). */
  stages?: readonly PipelineStage[];
}

export interface ProcessedFile {
  document: TranscriptDocument;
  /** The work as the last stage left it (its audio, for what the runner keeps of it). */
  work: FileWork;
}

export async function processFile(input: FileInput, deps: FileDeps, ctx: StageContext): Promise<ProcessedFile> {
  const recording = await withSource(input.audio, (source) => decode({ source }, ctx));
  const audio = input.channels ? selectChannels(recording, input.channels, input.source) : recording;
  const started = new Date().toISOString();
  input.progress?.decoded?.(audio);
  let result;
  try {
    result = await transcribeStage(deps.transcriber)({ audio, model: input.model, source: input.source, onProgress: input.progress?.transcribing, vocab: input.options.vocab }, ctx);
  } finally {
    input.progress?.transcribed?.();
  }
  if (input.channels) result = renumberChannels(result, input.channels, recording.channels.length);
  let work: FileWork = {
    requestid: input.requestid,
    source: input.source,
    options: input.options,
    ...(input.destination ? { destination: input.destination } : {}),
    audio: recording,
    result,
    summary: {},
    warnings: [...(input.warnings ?? []), ...recording.warnings],
    started,
    ...(input.metadata ? { metadata: input.metadata } : {}),
  };
  work = await runStages(work, deps.stages ?? stageTable({ ...(deps.categorize ? { categorize: deps.categorize } : {}) }), ctx);
  return { document: await documentStage(work, ctx), work };
}
