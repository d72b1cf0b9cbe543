/**
 * The redaction stage (after numbers and speakers, before anything is persisted): scrubtext replaces
 * the sensitive events (scrubtext=tag marks them instead); scrubaudio replaces the work's audio with a
 * copy silent over the spans (plus the margin), which is what the runner keeps for playback. With
 * scrubaudio alone the text is kept.
 * Only counts and kinds are logged, never words.
 */
import type { FileWork, Stage, TranscriptDocument, Utterance } from '../types.js';
import type { RedactionKind } from './recognizers.js';
import { DEFAULT_KINDS, redactUtterances, type RedactionSpan } from './redact.js';
import { silenceAudio } from './silence-audio.js';

export interface RedactOptions {
  scrubtext: boolean;
  scrubaudio: boolean;
  redact?: readonly RedactionKind[];
  /** scrubtext=tag: mark the spans (`pii` on each event) instead of replacing them. */
  tag?: boolean;
}

/** The utterances as the options want them (replaced, marked or as they are) and the spans for scrubaudio. */
function apply(utterances: readonly Utterance[], o: RedactOptions): { utterances: readonly Utterance[]; spans: RedactionSpan[] } {
  if (!o.scrubtext && !o.scrubaudio && !o.tag) return { utterances, spans: [] };
  const tag = !o.scrubtext && o.tag === true;
  const r = redactUtterances(utterances, o.redact?.length ? o.redact : DEFAULT_KINDS, { tag });
  return { utterances: o.scrubtext || tag ? r.utterances : utterances, spans: r.spans };
}

export function redactDocument(doc: TranscriptDocument, o: RedactOptions): { document: TranscriptDocument; spans: RedactionSpan[] } {
  const { utterances, spans } = apply(doc.utterances, o);
  return { document: utterances === doc.utterances ? doc : { ...doc, utterances: [...utterances] }, spans };
}

export const redactStage: Stage<FileWork, FileWork> = async (work, ctx) => {
  const o = work.options;
  if (!o.scrubtext && !o.scrubaudio && !o.tag) return work;
  const { utterances, spans } = apply(work.result.utterances, o);
  ctx.log.debug({ spans: spans.length, kinds: [...new Set(spans.map((s) => s.kind))], scrubtext: o.scrubtext, scrubaudio: o.scrubaudio, tag: o.tag === true }, 'redacted');
  return {
    ...work,
    result: utterances === work.result.utterances ? work.result : { ...work.result, utterances: [...utterances] },
    audio: o.scrubaudio ? silenceAudio(work.audio, spans) : work.audio,
  };
};
