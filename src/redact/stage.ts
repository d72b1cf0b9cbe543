/**
 * The redaction stage (after numbers and speakers, before anything is persisted): scrubtext replaces
 * the sensitive events; scrubaudio replaces the work's audio with a copy silent over the spans (plus
 * the margin), which is what the runner keeps for playback. With scrubaudio alone the text is kept.
 * Only counts and kinds are logged, never words.
 */
import type { FileWork, Stage, TranscriptDocument } from '../types.js';
import type { RedactionKind } from './recognizers.js';
import { DEFAULT_KINDS, redactUtterances, type RedactionSpan } from './redact.js';
import { silenceAudio } from './silence-audio.js';

export interface RedactOptions {
  scrubtext: boolean;
  scrubaudio: boolean;
  redact?: readonly RedactionKind[];
}

export function redactDocument(doc: TranscriptDocument, o: RedactOptions): { document: TranscriptDocument; spans: RedactionSpan[] } {
  if (!o.scrubtext && !o.scrubaudio) return { document: doc, spans: [] };
  const { utterances, spans } = redactUtterances(doc.utterances, o.redact?.length ? o.redact : DEFAULT_KINDS);
  return { document: o.scrubtext ? { ...doc, utterances } : doc, spans };
}

export const redactStage: Stage<FileWork, FileWork> = async (work, ctx) => {
  const o = work.options;
  if (!o.scrubtext && !o.scrubaudio) return work;
  const { utterances, spans } = redactUtterances(work.result.utterances, o.redact.length ? o.redact : DEFAULT_KINDS);
  ctx.log.debug({ spans: spans.length, kinds: [...new Set(spans.map((s) => s.kind))], scrubtext: o.scrubtext, scrubaudio: o.scrubaudio }, 'redacted');
  return {
    ...work,
    result: o.scrubtext ? { ...work.result, utterances } : work.result,
    audio: o.scrubaudio ? silenceAudio(work.audio, spans) : work.audio,
  };
};
