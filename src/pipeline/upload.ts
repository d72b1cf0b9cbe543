/**
 * The upload pipeline (HTTP upload, drop folder, `voxdex import`): unpack → each file through the
 * one pipeline (file-runner.ts → process-file.ts) → the result file. It returns what became of every
 * file; settling the job is the caller's business.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { blobKeys, type BlobStore, type LocalCopy } from '../blobs/blob-store.js';
import { voxdexError } from '../errors.js';
import { redactAtWrite, refuseUnredacted } from '../redact/at-write.js';
import { renderResultFile, resultExtension, type MemberOutcome } from '../stages/result-file.js';
import { unpack } from '../stages/unpack.js';
import type { JobPaths } from '../store/paths.js';
import type { StageContext, TranscriptDocument } from '../types.js';
import { runFiles, type FileRunnerDeps, type PipelineJob } from './file-runner.js';

export type { PipelineJob };

export interface UploadDeps extends FileRunnerDeps {
  /** The upload, the transcripts (the pipeline's checkpoint) and the result file. */
  blobs: BlobStore;
  /** This node's scratch space (the job's work folder). */
  paths: JobPaths;
}

export interface UploadOutcome {
  /** What became of every file of the upload, in order. */
  files: MemberOutcome[];
  /** The result file's blob key, written when at least one file has a transcript. */
  resultPath?: string;
}

export async function runUpload(job: PipelineJob, deps: UploadDeps, ctx: StageContext): Promise<UploadOutcome> {
  // The files of the upload: the upload itself, or its archive members extracted into the job's work folder.
  const workDir = deps.paths.workDir(job.id);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const upload = await localUpload(job, deps, workDir);
  if (!upload) return finish(job, await finishedBefore(job, deps), deps, workDir);
  let files: MemberOutcome[];
  const source = deps.seal.openStored(upload.path);
  try {
    const { items } = await unpack({ source, name: job.source, zpass: job.zpass, workDir, seal: deps.seal }, ctx);
    files = await runFiles(job, items, deps, ctx);
  } finally {
    await source.close();
    await upload.release();
  }
  return finish(job, files, deps, workDir);
}

/**
 * The result file; then, with scrubaudio, the unredacted upload and extracted members are deleted —
 * after every kept copy and the result are durable, before the job is settled. A crash before the
 * deletion redoes the job from the upload; one after it finds no upload and settles from the
 * checkpoints (finishedBefore): never an unredacted file after completion.
 */
async function finish(job: PipelineJob, outcomes: MemberOutcome[], deps: UploadDeps, workDir: string): Promise<UploadOutcome> {
  let resultPath: string | undefined;
  const files = outcomes.map((f) => (f.document ? { ...f, document: underPolicyNow(job, f.document, deps) } : f));
  if (files.some((f) => f.document)) {
    resultPath = blobKeys.result(job.id, resultExtension(job.kind, job.output));
    await deps.blobs.put(resultPath, await renderResultFile(job.kind, job.output, files));
  }
  if (job.options.scrubaudio) {
    rmSync(workDir, { recursive: true, force: true });
    await deps.blobs.delete(job.uploadPath);
  }
  return resultPath ? { files, resultPath } : { files };
}

/**
 * A document as the result file may hold it: under the company's policy as it is now (a file finished
 * before a policy set while the job ran is redacted here; src/redact/at-write.ts), checked.
 */
function underPolicyNow(job: PipelineJob, document: TranscriptDocument, deps: UploadDeps): TranscriptDocument {
  if (!deps.policy) return document;
  const company = job.destination.company;
  const now = redactAtWrite(document, job.options, deps.policy.optionsNow(job.options, company)).document;
  refuseUnredacted(company, now, deps.policy.settings(company));
  return now;
}

/**
 * The upload (sealed) as a local file; undefined when a scrubaudio job already deleted it (then every
 * file is finished). A scrubaudio job whose upload went before any file was listed (it was ending
 * failed or cancelled when the process stopped) fails without naming the file.
 */
async function localUpload(job: PipelineJob, deps: UploadDeps, workDir: string): Promise<LocalCopy | undefined> {
  try {
    return await deps.blobs.localCopy(job.uploadPath, workDir);
  } catch (err) {
    if (!job.options.scrubaudio || (err as { code?: string }).code !== 'NOT_FOUND') throw err;
    if ((await deps.store.items(job.id)).length > 0) return undefined;
    throw voxdexError('REQUEST_FAILED', 'The request ended while the service stopped, and its recording was removed (scrubaudio keeps no unredacted upload); send it again.');
  }
}

/** The outcomes of a job whose files all finished before its upload was deleted (scrubaudio). */
async function finishedBefore(job: PipelineJob, deps: UploadDeps): Promise<MemberOutcome[]> {
  const out: MemberOutcome[] = [];
  for (const item of await deps.store.items(job.id)) {
    const stored = item.state === 'done' && item.transcriptPath ? await deps.blobs.get(item.transcriptPath) : undefined;
    if (stored) out.push({ member: item.member, document: JSON.parse(stored.toString('utf8')) as TranscriptDocument });
    else out.push({ member: item.member, error: item.error ?? { code: 'INTERNAL', message: `${item.member} did not finish before its upload was removed (scrubaudio)` } });
  }
  return out;
}
