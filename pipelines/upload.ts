/**
 * The upload pipeline, composition only: unpack → (per file) decode → transcribe → index → notify.
 * Each finished file is recorded in the job store (with its tid) before the next starts, so a rerun
 * after a crash skips finished files and re-indexes the same tid for an interrupted one.
 */
import { readFileSync } from 'node:fs';
import { toVoxdexError, type ErrorInfo } from '../src/errors.js';
import type { Transcriber } from '../src/asr/transcriber.js';
import { buildDocument } from '../src/jobs/document.js';
import { transcribeStage } from '../src/stages/transcribe.js';
import { writeDurably, type JobPaths } from '../src/jobs/paths.js';
import type { MemberOutcome } from '../src/jobs/result-file.js';
import type { TranscriptIndex } from '../src/search/transcript-index.js';
import { decode } from '../src/stages/decode.js';
import { indexStage } from '../src/stages/index-transcript.js';
import type { Job, JobStore } from '../src/store/job-store.js';
import type { StageContext, TranscriptDocument } from '../src/types.js';

/** One file to transcribe: a path, or the reason it cannot be (bad member of an archive). */
export interface UnpackedMember {
  name: string;
  path?: string;
  error?: ErrorInfo;
  /** Sidecar `<name>.json` of an archive member. */
  metadata?: Record<string, unknown>;
}

export interface UploadDeps {
  store: JobStore;
  index: TranscriptIndex;
  transcriber: Transcriber;
  paths: JobPaths;
  unpack: (job: Job, ctx: StageContext) => Promise<UnpackedMember[]>;
  /** Writes the result file and commits the final state with its notification. */
  notify: (job: Job, outcomes: MemberOutcome[], ctx: StageContext) => Promise<void>;
  /** Per-file figures for metrics. */
  onFile?: (audiosecs: number, wallSec: number) => void;
}

export async function runUpload(job: Job, deps: UploadDeps, ctx: StageContext): Promise<void> {
  const members = await deps.unpack(job, ctx);
  const items = await deps.store.setItems(job.id, members.map((m) => m.name));
  const index = indexStage(deps.index);
  const transcribe = transcribeStage(deps.transcriber);
  const outcomes: MemberOutcome[] = [];
  let progressAt = 0;
  for (const [n, item] of items.entries()) {
    if (ctx.signal.aborted) throw toVoxdexError(ctx.signal.reason === 'cancel' ? { code: 'CANCELLED', message: 'The request was cancelled' } : ctx.signal.reason);
    const member = members.find((m) => m.name === item.member);
    if (item.state === 'done' && item.transcriptPath) {
      outcomes.push({ member: item.member, document: JSON.parse(readFileSync(item.transcriptPath, 'utf8')) as TranscriptDocument });
      continue;
    }
    if (item.state === 'failed' || !member || member.error || !member.path) {
      const error = item.error ?? member?.error ?? { code: 'INTERNAL' as const, message: `${item.member} is no longer in the upload` };
      if (item.state !== 'failed') await deps.store.updateItem(job.id, item.member, { state: 'failed', error });
      outcomes.push({ member: item.member, error });
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
      const transcriptPath = deps.paths.transcript(job.id, item.idx);
      writeDurably(transcriptPath, JSON.stringify(document));
      const { tid } = await index({ destination: job.destination, datetime: job.datetime, member: member.name, document }, ctx);
      await deps.store.updateItem(job.id, item.member, { state: 'done', tid, transcriptPath, audiosecs: document.audiosecs });
      await deps.store.setProgress(job.id, (n + 1) / items.length);
      deps.onFile?.(document.audiosecs, (performance.now() - t0) / 1000);
      outcomes.push({ member: item.member, document });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const e = toVoxdexError(err);
      if (e.code === 'INDEX_UNAVAILABLE') throw e; // the index is down: retry the job later, do not fail the file
      if (e.code === 'INTERNAL') ctx.log.error({ err, member: item.member }, 'file failed');
      const error = { code: e.code, message: e.message };
      await deps.store.updateItem(job.id, item.member, { state: 'failed', error });
      outcomes.push({ member: item.member, error });
    }
  }
  await deps.notify(job, outcomes, ctx);
}
