/**
 * The upload pipeline, composition only: unpack → (per file) decode → transcribe → document → index
 * → result file. Each finished file is recorded in the job store (with its tid) before the next
 * starts, so a rerun after a crash skips finished files and re-indexes the same tid for an
 * interrupted one. It returns what became of every file; settling the job is the caller's business.
 */
import { mkdirSync, rmSync } from 'node:fs';
import type { Transcriber } from '../src/asr/transcriber.js';
import { blobKeys, type BlobStore } from '../src/blobs/blob-store.js';
import { toVoxdexError, type ErrorInfo } from '../src/errors.js';
import type { Metrics } from '../src/metrics.js';
import type { TranscriptIndex } from '../src/search/transcript-index.js';
import { decode } from '../src/stages/decode.js';
import { buildDocument } from '../src/stages/document.js';
import { indexStage } from '../src/stages/index-transcript.js';
import { renderResultFile, resultExtension, type MemberOutcome } from '../src/stages/result-file.js';
import { transcribeStage } from '../src/stages/transcribe.js';
import { isFailedItem, unpack, type UnpackItem } from '../src/stages/unpack.js';
import type { Job, JobStore } from '../src/store/job-store.js';
import type { JobPaths } from '../src/store/paths.js';
import type { StageContext, TranscriptDocument } from '../src/types.js';

export interface UploadDeps {
  store: JobStore;
  index: TranscriptIndex;
  transcriber: Transcriber;
  /** The upload, the transcripts (the pipeline's checkpoint) and the result file. */
  blobs: BlobStore;
  /** This node's scratch space (the job's work folder). */
  paths: JobPaths;
  /** Each file transcribed is counted as it finishes. */
  metrics: Pick<Metrics, 'audioSeconds' | 'filesProcessed' | 'rtf'>;
}

export interface UploadOutcome {
  /** What became of every file of the upload, in order. */
  files: MemberOutcome[];
  /** The result file's blob key, written when at least one file has a transcript. */
  resultPath?: string;
}

export async function runUpload(job: Job, deps: UploadDeps, ctx: StageContext): Promise<UploadOutcome> {
  // The files of the upload: the upload itself, or its archive members extracted into the job's work folder.
  const workDir = deps.paths.workDir(job.id);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const upload = await deps.blobs.localCopy(job.uploadPath, workDir);
  try {
    const { items } = await unpack({ path: upload.path, name: job.source, zpass: job.zpass, workDir }, ctx);
    return await runFiles(job, items, deps, ctx);
  } finally {
    await upload.release();
  }
}

async function runFiles(job: Job, members: UnpackItem[], deps: UploadDeps, ctx: StageContext): Promise<UploadOutcome> {
  const items = await deps.store.setItems(job.id, members.map((m) => m.name));
  const index = indexStage(deps.index);
  const transcribe = transcribeStage(deps.transcriber);
  const files: MemberOutcome[] = [];
  let progressAt = 0;
  for (const [n, item] of items.entries()) {
    if (ctx.signal.aborted) throw toVoxdexError(ctx.signal.reason === 'cancel' ? { code: 'CANCELLED', message: 'The request was cancelled' } : ctx.signal.reason);
    const member = members.find((m) => m.name === item.member);
    const checkpoint = item.state === 'done' && item.transcriptPath ? await deps.blobs.get(item.transcriptPath) : undefined;
    if (checkpoint) {
      files.push({ member: item.member, document: JSON.parse(checkpoint.toString('utf8')) as TranscriptDocument });
      continue;
    }
    if (item.state === 'failed' || !member || isFailedItem(member)) {
      const error = item.error ?? (member && isFailedItem(member) ? member.error : undefined) ?? { code: 'INTERNAL' as const, message: `${item.member} is no longer in the upload` };
      if (item.state !== 'failed') await deps.store.updateItem(job.id, item.member, { state: 'failed', error });
      files.push({ member: item.member, error });
      continue;
    }
    await deps.store.updateItem(job.id, item.member, { state: 'running', bumpAttempts: true });
    const t0 = performance.now();
    try {
      const audio = await decode({ path: member.path }, ctx);
      const started = new Date().toISOString();
      const onProgress = (f: number) => {
        const now = Date.now();
        if (now - progressAt < 500) return;
        progressAt = now;
        deps.store.setProgress(job.id, (n + f) / items.length).catch((err) => ctx.log.warn({ err }, 'recording progress failed'));
      };
      const result = await transcribe({ audio, model: job.model, source: member.name, onProgress }, ctx);
      const metadata = job.metadata || member.metadata ? { ...job.metadata, ...member.metadata } : undefined;
      const warnings = [...(job.warning ? [job.warning] : []), ...audio.warnings];
      const document = buildDocument({ requestid: job.id, source: member.name, started, metadata, warnings, result });
      const transcriptPath = blobKeys.transcript(job.id, item.idx);
      await deps.blobs.put(transcriptPath, JSON.stringify(document));
      // An archive member's audio is kept for playback (GET /transcribe/{id}/audio); it is no longer needed here.
      if (job.kind === 'archive') await deps.blobs.putFile(blobKeys.memberAudio(job.id, item.idx), member.path);
      const { tid } = await index({ destination: job.destination, datetime: job.datetime, member: member.name, document }, ctx);
      await deps.store.updateItem(job.id, item.member, { state: 'done', tid, transcriptPath, audiosecs: document.audiosecs });
      await deps.store.setProgress(job.id, (n + 1) / items.length);
      observeFile(deps.metrics, document.audiosecs, (performance.now() - t0) / 1000);
      files.push({ member: item.member, document });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toVoxdexError(err);
      if (e.code === 'INDEX_UNAVAILABLE') throw e; // the index is down: retry the job later, do not fail the file
      if (e.code === 'INTERNAL') ctx.log.error({ err, member: item.member }, 'file failed');
      const error: ErrorInfo = { code: e.code, message: e.message };
      await deps.store.updateItem(job.id, item.member, { state: 'failed', error });
      files.push({ member: item.member, error });
    }
  }
  if (!files.some((f) => f.document)) return { files };
  const resultPath = blobKeys.result(job.id, resultExtension(job.kind, job.output));
  await deps.blobs.put(resultPath, await renderResultFile(job.kind, job.output, files));
  return { files, resultPath };
}

function observeFile(metrics: UploadDeps['metrics'], audiosecs: number, wallSec: number): void {
  metrics.audioSeconds.inc(audiosecs);
  metrics.filesProcessed.inc({ outcome: 'done' });
  if (audiosecs > 0) metrics.rtf.observe(wallSec / audiosecs);
}
