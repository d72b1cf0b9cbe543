/**
 * `voxdex redact CO [--org ORG]`: a company that turns redaction on later applies it to what is
 * already stored. For every finished request of the company (or one organization) — done, failed or
 * cancelled: each transcript checkpoint is redacted, its audio kept for playback is rewritten silent
 * over the spans, the upload is deleted (a single file's or an archive's: it holds every member
 * unredacted), the transcript is redacted by the stage table's redaction line (src/pipeline/stage-table.ts)
 * and stored as a job stores it (store-transcript.ts: checkpoint, then the index entry under the same
 * tid), and the result file is rendered again; the
 * client's file name and metadata are redacted in the transcripts and the request's row.
 *
 * Resumable and idempotent: the audio is rewritten before the transcript (so a crash between them
 * redoes the audio from the words still there), spans are also taken from events already marked
 * `redacted`, and a request with nothing left to change is skipped. Progress goes to `onProgress`.
 * Once anything changed, the index purges what it deleted (`TranscriptIndex.purgeDeleted`).
 */
import { blobKeys, type BlobStore } from '../blobs/blob-store.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import type { RedactionKind } from '../redact/recognizers.js';
import { clientTextOf, type ClientText } from '../redact/client-policy.js';
import { redactUtterances } from '../redact/redact.js';
import { redactionKinds } from '../redact/stage.js';
import { redactedWav, type TimeSpan } from '../redact/silence-audio.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import { decodeWav } from '../stages/decode.js';
import { renderResultFile, type MemberOutcome } from '../stages/result-file.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { RequestOptions, TranscriptDocument, Utterance } from '../types.js';
import { foldUtterances } from './fold-stages.js';
import { stageTable } from './stage-table.js';
import { storeTranscript } from './store-transcript.js';

export interface RedactStoredDeps {
  store: JobStore;
  blobs: BlobStore;
  /** The installation's key for audio at rest: the kept audio is read and rewritten sealed. */
  seal: AudioSeal;
  index: TranscriptIndex;
  /** Where audio from object storage is copied to be read. */
  scratchDir: string;
}

export interface RedactStoredOptions {
  company: string;
  org?: string;
  kinds?: readonly RedactionKind[];
  /** Rewrite the kept audio too (default true). */
  audio?: boolean;
  onProgress?(p: { done: number; changed: number; request: string }): void;
}

/** Spans of events already redacted (a rerun after the transcript was written). */
function markedSpans(utterances: readonly Utterance[]): TimeSpan[] {
  return utterances.flatMap((u) => u.events.filter((e) => e.redacted).map((e) => ({ start: e.start, end: e.end })));
}

async function rewriteAudio(job: Job, idx: number, spans: readonly TimeSpan[], d: RedactStoredDeps): Promise<void> {
  const kept = blobKeys.memberAudio(job.id, idx);
  const sources = job.kind === 'archive' ? [kept] : [kept, job.uploadPath];
  for (const key of sources) {
    let copy;
    try {
      copy = await d.blobs.localCopy(key, d.scratchDir);
    } catch (err) {
      if ((err as { code?: string }).code === 'NOT_FOUND') continue;
      throw err;
    }
    const source = d.seal.openStored(copy.path);
    try {
      await d.blobs.put(kept, d.seal.sealBuffer(redactedWav(await decodeWav(source), spans)));
    } finally {
      await source.close();
      await copy.release();
    }
    return;
  }
}

async function hasKeptAudio(job: Job, idx: number, d: RedactStoredDeps): Promise<boolean> {
  const key = blobKeys.memberAudio(job.id, idx);
  return (await d.blobs.list(key.slice(0, key.lastIndexOf('/') + 1))).some((b) => b.key === key);
}

/** The client's file name and metadata in a transcript, redacted; undefined when nothing changes. */
function redactedClientText(doc: TranscriptDocument, client: ClientText): Pick<TranscriptDocument, 'source' | 'streamtags'> | undefined {
  const source = client.text(doc.source);
  const metadata = client.metadata(doc.streamtags?.metadata);
  if (source === doc.source && JSON.stringify(metadata) === JSON.stringify(doc.streamtags?.metadata)) return undefined;
  return { source, ...(doc.streamtags ? { streamtags: { ...doc.streamtags, metadata } } : {}) };
}

export async function redactStored(d: RedactStoredDeps, o: RedactStoredOptions): Promise<{ requests: number; changed: number }> {
  const kinds = redactionKinds({ redact: o.kinds });
  // The table's redaction line (the one a job runs), over each stored transcript as a whole call.
  const redaction = stageTable().find((s) => s.name === 'redaction')!;
  // What the client sent beside the audio (file name, metadata) is redacted with the same kinds.
  const client = clientTextOf({ scrubtext: true, scrubaudio: false, redact: [...kinds] });
  let done = 0;
  let changed = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await d.store.listRecent({ company: o.company, limit: 100, offset });
    if (page.length === 0) break;
    for (const job of page) {
      if (job.state === 'queued' || job.state === 'running' || (o.org && job.destination.org !== o.org)) continue;
      const files: MemberOutcome[] = [];
      let touched = false;
      for (const item of await d.store.items(job.id)) {
        const stored = item.state === 'done' && item.transcriptPath ? await d.blobs.get(item.transcriptPath) : undefined;
        if (!stored) {
          files.push({ member: item.member, error: item.error ?? { code: 'INTERNAL', message: `${item.member} has no transcript` } });
          continue;
        }
        const doc = JSON.parse(stored.toString('utf8')) as TranscriptDocument;
        // The redaction line reads only scrubtext, tag and the kinds of the options.
        const options = { ...job.options, scrubtext: true, tag: false, redact: [...kinds] } as RequestOptions;
        const utterances = foldUtterances(redaction, { options, nchannels: doc.nchannels, utterances: doc.utterances });
        // The spans the silenced-audio line would find: what rewriteAudio silences.
        const { spans } = redactUtterances(doc.utterances, kinds);
        const all = [...spans, ...markedSpans(doc.utterances)];
        // A single file's upload is about to go: its kept copy is made first, silenced or not.
        if (o.audio !== false && (all.length > 0 || (job.kind === 'audio' && !(await hasKeptAudio(job, item.idx, d))))) await rewriteAudio(job, item.idx, all, d);
        const names = redactedClientText(doc, client);
        const redacted: TranscriptDocument = { ...doc, ...names, utterances };
        if (spans.length > 0 || names) {
          touched = true;
          await storeTranscript(d, job, item, redacted);
        }
        files.push({ member: item.member, document: redacted });
      }
      if (touched && job.resultPath && files.some((f) => f.document)) await d.blobs.put(job.resultPath, await renderResultFile(job.kind, job.output, files));
      const source = client.text(job.source);
      const metadata = client.metadata(job.metadata);
      if (source !== job.source || JSON.stringify(metadata) !== JSON.stringify(job.metadata)) {
        await d.store.rewriteClientText(job.id, source, metadata);
        touched = true;
      }
      if (o.audio !== false) await d.blobs.delete(job.uploadPath);
      done++;
      if (touched) changed++;
      o.onProgress?.({ done, changed, request: job.id });
    }
  }
  // The replaced index entries' old words must not linger in the index's files (privacy rule).
  if (changed > 0) await d.index.purgeDeleted();
  return { requests: done, changed };
}
