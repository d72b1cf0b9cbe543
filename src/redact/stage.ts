/**
 * The redaction stage (after numbers, speakers and roles, before anything is persisted), two lines of
 * the stage table (src/pipeline/stage-table.ts): the silenced audio (whole-call part: scrubaudio replaces
 * the work's audio with a copy silent over the spans, plus the margin, which is what the runner keeps for
 * playback; it reads the words before they are replaced), then the text (per-utterance part: scrubtext
 * replaces the sensitive events, scrubtext=tag marks them, both over the call so far — a live call sends an
 * utterance only once its redaction is settled, src/redact/engine.ts). With scrubaudio alone the
 * text is kept. Only counts and kinds are logged, never words.
 */
import type { FileWork, Stage, TranscriptDocument, Utterance, UtterancePart } from '../types.js';
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

/** Whether the options change the transcript's words (replaced or marked): what a live call holds utterances back for. */
export const marksText = (o: Pick<RedactOptions, 'scrubtext' | 'tag'>): boolean => o.scrubtext || o.tag === true;

/** The kinds redacted: those asked for, else the default ones. */
export const redactionKinds = (o: Pick<RedactOptions, 'redact'>): readonly RedactionKind[] => (o.redact?.length ? o.redact : DEFAULT_KINDS);

/** How the spans are applied: marked (scrubtext=tag, without scrubtext) or replaced. */
export const redactMode = (o: Pick<RedactOptions, 'scrubtext' | 'tag'>): { tag: boolean } => ({ tag: !o.scrubtext && o.tag === true });

/** The utterances as the options want them (replaced, marked or as they are) and the spans for scrubaudio. */
function apply(utterances: readonly Utterance[], o: RedactOptions): { utterances: readonly Utterance[]; spans: RedactionSpan[] } {
  if (!o.scrubtext && !o.scrubaudio && !o.tag) return { utterances, spans: [] };
  const { tag } = redactMode(o);
  const r = redactUtterances(utterances, redactionKinds(o), { tag });
  return { utterances: o.scrubtext || tag ? r.utterances : utterances, spans: r.spans };
}

export function redactDocument(doc: TranscriptDocument, o: RedactOptions): { document: TranscriptDocument; spans: RedactionSpan[] } {
  const { utterances, spans } = apply(doc.utterances, o);
  return { document: utterances === doc.utterances ? doc : { ...doc, utterances: [...utterances] }, spans };
}

/** The per-utterance part: the utterance as redaction of the call so far leaves it (replaced or marked). */
export const redactionPart: UtterancePart = (u, i, call) => (marksText(call.options) ? call.once(() => apply(call.utterances, call.options).utterances)[i]! : u);

/** The whole-call part: with scrubaudio, the work's audio silent over every span (found in the words not yet replaced). */
export const silencedAudioStage: Stage<FileWork, FileWork> = async (work, ctx) => {
  const o = work.options;
  if (!o.scrubaudio) return work;
  const { spans } = apply(work.result.utterances, { ...o, scrubtext: true, tag: false });
  ctx.log.debug({ spans: spans.length, kinds: [...new Set(spans.map((s) => s.kind))], scrubtext: o.scrubtext, scrubaudio: o.scrubaudio, tag: o.tag === true }, 'redacted');
  return { ...work, audio: silenceAudio(work.audio, spans) };
};
