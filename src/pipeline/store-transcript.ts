/**
 * A transcript persisted as a job persists it: the checkpoint (the transcript blob of the member), then
 * its index entry under the member's tid (src/stages/index-transcript.ts: the same member keeps the same
 * tid, so a rerun, or `voxdex redact` on a stored request, replaces the entry instead of adding one).
 * The file runner (file-runner.ts) and `voxdex redact` (redact-stored.ts) both write through here.
 */
import { blobKeys, type BlobStore } from '../blobs/blob-store.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import { indexTranscript } from '../stages/index-transcript.js';
import type { Job, JobItem } from '../store/job-store.js';
import type { TranscriptDocument } from '../types.js';

export interface TranscriptStores {
  blobs: Pick<BlobStore, 'put'>;
  index: Pick<TranscriptIndex, 'index'>;
}

/** `item.transcriptPath`, `item.tid`: where the item's transcript already is (a stored request's, replaced in place). */
export async function storeTranscript(
  d: TranscriptStores,
  job: Pick<Job, 'id' | 'destination' | 'datetime'>,
  item: Pick<JobItem, 'idx' | 'member' | 'transcriptPath' | 'tid'>,
  document: TranscriptDocument,
): Promise<{ tid: string; transcriptPath: string }> {
  const transcriptPath = item.transcriptPath ?? blobKeys.transcript(job.id, item.idx);
  await d.blobs.put(transcriptPath, JSON.stringify(document));
  const { tid } = await indexTranscript(d.index, { destination: job.destination, datetime: job.datetime, member: item.member, document, ...(item.tid ? { tid: item.tid } : {}) });
  return { tid, transcriptPath };
}
