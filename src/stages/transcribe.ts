/** The transcribe stage: decoded audio → utterances, through the Transcriber's ASR pool. */
import type { TranscribeResult, Transcriber } from '../asr/transcriber.js';
import type { DecodedAudio, Stage } from '../types.js';

export interface TranscribeInput {
  audio: DecodedAudio;
  /** Registry name/alias or 'auto'. */
  model?: string;
  /** File name recorded in every utterance's metadata. */
  source: string;
  onProgress?(fraction: number): void;
  /** Custom vocabulary (RequestOptions.vocab: the request's phrases and the company's). */
  vocab?: string[];
}

export type { TranscribeResult };

export function transcribeStage(transcriber: Transcriber): Stage<TranscribeInput, TranscribeResult> {
  return (input, ctx) =>
    transcriber.transcribe(input.audio, { model: input.model, source: input.source, signal: ctx.signal, onProgress: input.onProgress, vocab: input.vocab });
}
