/**
 * The redaction stage (after numbers and speakers, before anything is persisted): scrubtext replaces
 * the sensitive events of the document; the spans (times and kinds, never words) are what scrubaudio
 * silences. With scrubaudio alone the text is kept and only the spans are returned.
 */
import type { TranscriptDocument } from '../types.js';
import type { RedactionKind } from './recognizers.js';
import { DEFAULT_KINDS, redactUtterances, type RedactionSpan } from './redact.js';

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
