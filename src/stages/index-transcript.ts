/**
 * Index stage: puts one transcript into the transcript index under a tid derived from
 * (requestid, member), so running the stage again after a crash replaces the same entry instead of
 * adding a duplicate.
 */
import { createHash } from 'node:crypto';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { Destination, TranscriptDocument } from '../types.js';

/** The transcript id of one member of one request: stable, 32 lowercase hex characters. */
export function transcriptId(requestid: string, member: string): string {
  return createHash('sha256').update(`${requestid}\0${member}`).digest('hex').slice(0, 32);
}

export interface IndexInput {
  destination: Destination;
  /** ISO 8601 call time. */
  datetime: string;
  member: string;
  document: TranscriptDocument;
  /** The entry's tid when it is already indexed (default transcriptId(requestid, member)). */
  tid?: string;
}

/** Puts (or replaces) one member's transcript in the index; its tid. */
export async function indexTranscript(index: Pick<TranscriptIndex, 'index'>, input: IndexInput): Promise<{ tid: string }> {
  const tid = input.tid ?? transcriptId(input.document.requestid, input.member);
  await index.index([
    { tid, company: input.destination.company, org: input.destination.org, folder: input.destination.folder, datetime: input.datetime, document: input.document },
  ]);
  return { tid };
}
