import type { TranscriptDocument, Utterance } from '../types.js';

/** What a line of text/srt/vtt starts with: `[speaker] ` when diarized, `[channel] ` with several channels, else nothing. */
export function linePrefix(doc: TranscriptDocument, u: Utterance): string {
  if (u.metadata.speaker) return `[${u.metadata.speaker}] `;
  return doc.nchannels > 1 ? `[${u.metadata.channel}] ` : '';
}
