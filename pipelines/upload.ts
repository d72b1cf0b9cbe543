/**
 * The upload pipeline (HTTP upload, drop folder, `voxdex import`): unpack → each file through the
 * one pipeline (file-runner.ts → process-file.ts) → the result file. It returns what became of every
 * file; settling the job is the caller's business.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { blobKeys, type BlobStore } from '../src/blobs/blob-store.js';
import { renderResultFile, resultExtension, type MemberOutcome } from '../src/stages/result-file.js';
import { unpack } from '../src/stages/unpack.js';
import type { JobPaths } from '../src/store/paths.js';
import type { StageContext } from '../src/types.js';
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
  const upload = await deps.blobs.localCopy(job.uploadPath, workDir);
  try {
    const { items } = await unpack({ path: upload.path, name: job.source, zpass: job.zpass, workDir }, ctx);
    const files = await runFiles(job, items, deps, ctx);
    if (!files.some((f) => f.document)) return { files };
    const resultPath = blobKeys.result(job.id, resultExtension(job.kind, job.output));
    await deps.blobs.put(resultPath, await renderResultFile(job.kind, job.output, files));
    return { files, resultPath };
  } finally {
    await upload.release();
  }
}
