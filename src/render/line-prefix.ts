/**
 * Who says an utterance, as the readable outputs (text, srt, vtt) name them: the role when the
 * speakers stage knows it (`metadata.role`: "Agent", "Caller"), else the speaker (`S1`, `C0`…) when
 * diarized, else the channel (`C0`, `C1`) when there are several, else nobody (a mono call).
 */
import type { TranscriptDocument, Utterance } from '../types.js';

function speakerLabel(doc: Pick<TranscriptDocument, 'nchannels'>, u: Utterance): string | undefined {
  const role = (u.metadata as { role?: unknown }).role;
  if (typeof role === 'string' && role !== '') return role[0]!.toUpperCase() + role.slice(1);
  if (u.metadata.speaker) return u.metadata.speaker;
  return doc.nchannels > 1 ? `C${u.metadata.channel}` : undefined;
}

/** `Label: ` before an utterance's text, or nothing. */
export function linePrefix(doc: Pick<TranscriptDocument, 'nchannels'>, u: Utterance): string {
  const label = speakerLabel(doc, u);
  return label === undefined ? '' : `${label}: `;
}
