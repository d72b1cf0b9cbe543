/**
 * Runs the files of one job through processFile (process-file.ts) with what a job needs around the
 * stages: checkpointing (each finished file's transcript blob and index entry are recorded in the
 * job store, with its tid, before the next starts, so a rerun after a crash skips finished files and
 * re-indexes the same tid for an interrupted one), progress in the job store, the error policy (a
 * file's error fails that file; an unavailable index or a cancel fails the job) and metrics. Nothing
 * of a file is persisted before the stage table (stage-table.ts) has run over it.
 */
import { rmSync } from 'node:fs';
import type { TranscribeResult, Transcriber } from '../asr/transcriber.js';
import { recordedTranscriber } from '../live/recorded-transcriber.js';
import { blobKeys, type BlobStore } from '../blobs/blob-store.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { toVoxdexError, type ErrorInfo } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { MemberOutcome } from '../stages/result-file.js';
import { isFailedItem, type AudioItem, type UnpackItem } from '../stages/unpack.js';
import type { Job, JobItem, JobStore } from '../store/job-store.js';
import { playableWav } from '../redact/silence-audio.js';
import type { DecodedAudio, PipelineStage, RequestOptions, StageContext, TranscriptDocument } from '../types.js';
import type { Categorize } from '../analytics/categories-stage.js';
import { clientTextOf, uniqueNames, type ClientText } from '../redact/client-policy.js';
import { redactAtWrite, refuseUnredacted, type PolicyNow } from '../redact/at-write.js';
import { silenceAudio } from '../redact/silence-audio.js';
import { processFile, type FileProgress } from './process-file.js';
import { storeTranscript } from './store-transcript.js';

export interface FileRunnerDeps {
  store: JobStore;
  index: TranscriptIndex;
  transcriber: Transcriber;
  /** The transcripts (the checkpoint) and an archive member's audio. */
  blobs: BlobStore;
  /** The installation's key for audio at rest: the audio kept for playback is stored sealed. */
  seal: AudioSeal;
  /** Each file transcribed is counted as it finishes. */
  metrics: Pick<Metrics, 'audioSeconds' | 'filesProcessed' | 'rtf'>;
  /** Default stageTable({ categorize }) (stage-table.ts). */
  stages?: readonly PipelineStage[];
  /**
   * A live call's utterances, decoded while it was going on (src/live/): its job's file is not
   * transcribed again. Absent, or undefined for the job (after a restart): the file is transcribed.
   */
  liveTranscript?: (jobId: string) => TranscribeResult | undefined;
  /** The company's categories the document matches (src/analytics/categories.ts `categorizer`): the categories stage of the table, before anything is persisted. */
  categorize?: Categorize;
  /**
   * The company's redaction policy as it is when a transcript is written (src/redact/at-write.ts): one
   * set while the job ran applies to what it writes. Absent: the job's options as it started.
   */
  policy?: PolicyNow;
}

/** A job as the pipeline runs it: its options resolved (the job runner fills them for jobs stored before options existed). */
export type PipelineJob = Job & { options: RequestOptions };

/** Progress is written at most this often while a file is transcribed. */
const PROGRESS_MS = 500;

/** What became of every member of the job, in order (under redaction, named as clientMembers names them). */
export async function runFiles(job: PipelineJob, unpacked: UnpackItem[], deps: FileRunnerDeps, ctx: StageContext): Promise<MemberOutcome[]> {
  const client = clientTextOf(job.options);
  const members = clientMembers(unpacked, client);
  const items = await deps.store.setItems(job.id, members.map((m) => m.name));
  const outcomes: MemberOutcome[] = [];
  for (const [n, item] of items.entries()) {
    throwIfAborted(ctx.signal);
    const member = members.find((m) => m.name === item.member);
    const document = await checkpoint(item, deps.blobs);
    if (document) outcomes.push({ member: item.member, document });
    else if (item.state === 'failed' || !member || isFailedItem(member)) outcomes.push(await failedBefore(job, item, member, deps.store));
    else {
      try {
        outcomes.push(await runFile(job, item, member, { n, of: items.length }, deps, ctx));
      } finally {
        await member.source.close();
      }
    }
  }
  return outcomes;
}

/**
 * Under redaction, the members as the job's records name them: names, sidecar metadata and error
 * messages redacted before any is written (job items, index, result zip, errors.json), names kept
 * unique (`cc-################~2.wav`).
 */
function clientMembers(members: UnpackItem[], client: ClientText): UnpackItem[] {
  if (!client.active) return members;
  const names = uniqueNames(members.map((m) => client.text(m.name)));
  return members.map((m, i): UnpackItem => {
    if (isFailedItem(m)) return { name: names[i]!, error: client.error(m.error) };
    return { ...m, name: names[i]!, ...(m.metadata ? { metadata: client.metadata(m.metadata) } : {}) };
  });
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw toVoxdexError(signal.reason === 'cancel' ? { code: 'CANCELLED', message: 'The request was cancelled' } : signal.reason);
}

/** A file finished by an earlier run: its transcript as stored. */
async function checkpoint(item: JobItem, blobs: BlobStore): Promise<TranscriptDocument | undefined> {
  const stored = item.state === 'done' && item.transcriptPath ? await blobs.get(item.transcriptPath) : undefined;
  return stored && (JSON.parse(stored.toString('utf8')) as TranscriptDocument);
}

/** A member that failed to unpack, failed in an earlier run, or is no longer in the upload. */
async function failedBefore(job: PipelineJob, item: JobItem, member: UnpackItem | undefined, store: JobStore): Promise<MemberOutcome> {
  const error = item.error ?? (member && isFailedItem(member) ? member.error : undefined) ?? { code: 'INTERNAL' as const, message: `${item.member} is no longer in the upload` };
  if (item.state !== 'failed') await store.updateItem(job.id, item.member, { state: 'failed', error });
  return { member: item.member, error };
}

async function runFile(job: PipelineJob, item: JobItem, member: AudioItem, at: { n: number; of: number }, deps: FileRunnerDeps, ctx: StageContext): Promise<MemberOutcome> {
  await deps.store.updateItem(job.id, item.member, { state: 'running', bumpAttempts: true });
  const t0 = performance.now();
  try {
    const { document, work } = await processFile(
      {
        requestid: job.id,
        audio: member.source,
        source: member.name,
        model: job.model,
        options: job.options,
        destination: job.destination,
        metadata: job.metadata || member.metadata ? { ...job.metadata, ...member.metadata } : undefined,
        warnings: job.warning ? [job.warning] : [],
        progress: storeProgress(job, at, deps.store, ctx),
      },
      { ...deps, transcriber: transcriberFor(job.id, deps) },
      ctx,
    );
    const written = await persistFile(job, item, member, { document, audio: work.audio }, deps, ctx);
    await deps.store.setProgress(job.id, (at.n + 1) / at.of);
    observeFile(deps.metrics, written.audiosecs, (performance.now() - t0) / 1000);
    return { member: item.member, document: written };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    const e = toVoxdexError(err);
    // The index is down, or a write was refused under a policy: retry the job later (under the policy), do not fail the file.
    if (e.code === 'INDEX_UNAVAILABLE' || e.code === 'UNREDACTED_WRITE') throw e;
    const client = clientTextOf(job.options);
    const error: ErrorInfo = client.error({ code: e.code, message: e.message });
    if (e.code === 'INTERNAL') ctx.log.error({ err: client.active ? error : err, member: item.member }, 'file failed');
    await deps.store.updateItem(job.id, item.member, { state: 'failed', error });
    return { member: item.member, error };
  }
}

/** The live call's recorded utterances where this process holds them, else the ASR. */
function transcriberFor(jobId: string, deps: FileRunnerDeps): Transcriber {
  const recorded = deps.liveTranscript?.(jobId);
  return recorded ? recordedTranscriber(recorded, deps.transcriber) : deps.transcriber;
}

/**
 * The audio kept for playback (sealed), the transcript as a job stores it (store-transcript.ts: the
 * checkpoint blob and the index entry), then the item done with its tid. First, the company's policy
 * as it is now: set while the job ran, it redacts the document (and the kept audio, and the job row's
 * file name and metadata) before anything is written, and the write is refused if the document is
 * still not redacted as the policy says (src/redact/at-write.ts). With scrubaudio the kept audio is the stages' silenced copy, for a single
 * file too (the upload is deleted once the job ends, src/pipeline/upload.ts), and the extracted member
 * is removed at once; otherwise an archive member's sealed file itself is kept. A transcoded file
 * (MP3, Opus…) is kept as the 16-bit WAV it decoded to, sealed: what playback serves. Returns the document as written.
 */
async function persistFile(job: PipelineJob, item: JobItem, member: AudioItem, out: { document: TranscriptDocument; audio: DecodedAudio }, deps: FileRunnerDeps, ctx: StageContext): Promise<TranscriptDocument> {
  const company = job.destination.company;
  const now = deps.policy ? redactAtWrite(out.document, job.options, deps.policy.optionsNow(job.options, company)) : { document: out.document, options: job.options, spans: [] };
  const { document, options } = now;
  if (options !== job.options) {
    ctx.log.info({ scrubtext: options.scrubtext, scrubaudio: options.scrubaudio, redact: options.redact, spans: now.spans.length }, 'the company policy set while this request ran applies to its transcript');
    const client = clientTextOf(options);
    await deps.store.rewriteClientText(job.id, client.text(job.source), client.metadata(job.metadata));
  }
  refuseUnredacted(company, document, deps.policy?.settings(company));
  if (options.scrubaudio || out.audio.format.transcodedFrom) {
    const audio = options.scrubaudio && now.spans.length > 0 ? silenceAudio(out.audio, now.spans) : out.audio;
    await deps.blobs.put(blobKeys.memberAudio(job.id, item.idx), deps.seal.sealBuffer(playableWav(audio)));
    if (member.sealedPath) rmSync(member.sealedPath, { force: true });
  } else if (member.sealedPath) {
    // An archive member's audio is kept for playback (GET /transcribe/{id}/audio); it is no longer needed here.
    await deps.blobs.putFile(blobKeys.memberAudio(job.id, item.idx), member.sealedPath);
  }
  const { tid, transcriptPath } = await storeTranscript(deps, job, { idx: item.idx, member: member.name }, document);
  await deps.store.updateItem(job.id, item.member, { state: 'done', tid, transcriptPath, audiosecs: document.audiosecs });
  return document;
}

/** The job's progress while file n of `of` is transcribed, written at most every PROGRESS_MS. */
function storeProgress(job: PipelineJob, at: { n: number; of: number }, store: JobStore, ctx: StageContext): FileProgress {
  let writtenAt = 0;
  return {
    transcribing(f) {
      const now = Date.now();
      if (now - writtenAt < PROGRESS_MS) return;
      writtenAt = now;
      store.setProgress(job.id, (at.n + f) / at.of).catch((err) => ctx.log.warn({ err }, 'recording progress failed'));
    },
  };
}

function observeFile(metrics: FileRunnerDeps['metrics'], audiosecs: number, wallSec: number): void {
  metrics.audioSeconds.inc(audiosecs);
  metrics.filesProcessed.inc({ outcome: 'done' });
  if (audiosecs > 0) metrics.rtf.observe(wallSec / audiosecs);
}
