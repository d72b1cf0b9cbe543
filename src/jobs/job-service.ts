/**
 * The transcription jobs: accepting a request durably, running it through the upload pipeline on the
 * scheduler, finishing it together with its callback (one SQLite transaction), status, cancel, delete.
 * HTTP routes, the drop folder and `voxdex import` all come through here.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { runUpload, type UnpackedMember } from '../../pipelines/upload.js';
import type { Transcriber } from '../asr/transcriber.js';
import { failureDelivery } from '../callbacks/failure.js';
import type { CallbackOutbox, DeliveryStatus } from '../store/outbox.js';
import type { Config } from '../config.js';
import { toVoxdexError, voxdexError, VoxdexError, type ErrorInfo } from '../errors.js';
import { invalidParameter } from '../is.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { OUTPUT_FORMATS } from '../render/output.js';
import { CANCEL, SHUTDOWN, Scheduler } from '../scheduler.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import type { Destination, OutputFormat, StageContext } from '../types.js';
import { checkCallbackUrl } from '../callbacks/url-guard.js';
import type { JobPaths } from './paths.js';
import { resultExtension, resultMime, writeResultFile, type MemberOutcome } from './result-file.js';

export interface ProbeResult {
  kind: 'audio' | 'archive';
}

export interface JobServiceDeps {
  config: Readonly<Config>;
  log: Logger;
  store: JobStore;
  tenancy: Tenancy;
  index: TranscriptIndex;
  transcriber: Transcriber;
  outbox: CallbackOutbox;
  paths: JobPaths;
  metrics: Metrics;
  /** Model names (and aliases) a request may name. */
  installedModels: () => string[];
  /** Acceptance check of an upload (container, archive password, ≥1 audio member, WAV header). */
  probe: (file: string, name: string, zpass: string | undefined) => Promise<ProbeResult>;
  /** Lists (and extracts) the files of an accepted upload. */
  unpack: (job: Job, ctx: StageContext) => Promise<UnpackedMember[]>;
  /** false: only accept jobs (a CLI process); the serving process picks them up. Default true. */
  runJobs?: boolean;
}

/** A request as received, before validation (strings straight from a form, query or sidecar). */
export interface SubmitRequest {
  destination: Destination;
  file: { path: string; name: string; size: number };
  /** true: the file is a temporary upload to move; false: copy it (drop folder, import). */
  move: boolean;
  model?: string;
  output?: string;
  callback?: string;
  callbackerror?: string;
  metadata?: string | Record<string, unknown>;
  datetime?: string;
  zpass?: string;
  /** Parameter names accepted but not implemented. */
  ignored?: string[];
}

export interface StatusBody {
  requestid: string;
  state: Job['state'];
  queuePosition: number;
  files: { total: number; done: number; failed: number };
  progress: number;
  etaSeconds: number;
  callbacks: { kind: string; state: string; attempts: number; lastError?: string; nextAttemptAt?: string; deliveredAt?: string }[];
  error?: ErrorInfo;
  warning?: string;
}

const MAX_RETRIES = 5;
/** A job started this often without finishing (the process died each time) is failed, not retried forever. */
const MAX_STARTS = 8;

export class JobService {
  readonly scheduler: Scheduler;
  readonly #d: JobServiceDeps;
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  #accepting = true;

  constructor(deps: JobServiceDeps) {
    this.#d = deps;
    this.scheduler = new Scheduler({
      concurrency: Math.max(1, deps.config.asrThreads),
      shortBytes: 512 * 1024, // ≈ 30 s of 8 kHz stereo G.711 or 16 s of 16 kHz 16-bit mono
      run: (id, signal) => this.#run(id, signal),
      log: deps.log,
    });
  }

  /** Queues every job a previous process left unfinished. */
  async resume(): Promise<number> {
    const jobs = await this.#d.store.listUnfinished();
    for (const j of jobs) this.scheduler.enqueue(j);
    if (jobs.length > 0) this.#d.log.info({ jobs: jobs.length }, 'resuming unfinished jobs');
    return jobs.length;
  }

  /** OVERLOADED (503, Retry-After) when the queue is full or the data dir is short of space. */
  async checkCapacity(): Promise<void> {
    if (!this.#accepting) throw new VoxdexError('OVERLOADED', 'The service is shutting down; send the request again in a moment', { retryAfterSec: 10 });
    const queued = await this.#d.store.countQueued();
    if (queued >= this.#d.config.queue.maxQueuedJobs) {
      throw new VoxdexError('OVERLOADED', `The queue is full (${queued} requests waiting); retry after the Retry-After seconds`, { retryAfterSec: 60 });
    }
    const fs = statfsSync(this.#d.config.dataDir);
    const free = fs.bavail * fs.bsize;
    if (free < this.#d.config.queue.minFreeDiskBytes) {
      throw new VoxdexError('OVERLOADED', 'The data disk is nearly full; retry later or ask the operator to free space', { retryAfterSec: 300 });
    }
  }

  /** Validates, stores the upload and the job durably, queues it, and returns its request id. */
  async submit(req: SubmitRequest): Promise<string> {
    let target: string | undefined;
    try {
      await this.checkCapacity();
      const output = (req.output || 'json') as OutputFormat;
      if (!OUTPUT_FORMATS.includes(output)) throw invalidParameter('output', `one of ${OUTPUT_FORMATS.join(', ')}`, req.output);
      if (req.callback) checkCallbackUrl(req.callback);
      if (req.callbackerror) checkCallbackUrl(req.callbackerror);
      const metadata = parseMetadata(req.metadata);
      const datetime = parseDatetime(req.datetime);
      const { company } = req.destination;
      this.#d.tenancy.requireScope(company, req.destination.org, req.destination.folder);
      const model = this.#d.tenancy.resolveModel(company, req.model, this.#d.installedModels());
      if (req.file.size > this.#d.config.maxUploadBytes) {
        throw voxdexError('TOO_LARGE', `The file is larger than the limit of ${Math.round(this.#d.config.maxUploadBytes / 1048576)} MiB`);
      }
      const probe = await this.#d.probe(req.file.path, req.file.name, req.zpass || undefined);
      const id = randomUUID();
      target = this.#d.paths.upload(id, safeName(req.file.name));
      if (req.move) await this.#d.paths.placeUpload(req.file.path, target);
      else {
        const tmp = path.join(this.#d.paths.incoming, `${id}.copy`);
        mkdirSync(this.#d.paths.incoming, { recursive: true });
        copyFileSync(req.file.path, tmp);
        await this.#d.paths.placeUpload(tmp, target);
      }
      const warning = req.ignored && req.ignored.length > 0 ? `parameters not implemented and ignored: ${req.ignored.join(', ')}` : undefined;
      const job = await this.#d.store.create({
        id,
        destination: req.destination,
        model,
        output,
        callback: req.callback || undefined,
        callbackError: req.callbackerror || undefined,
        metadata,
        datetime,
        source: req.file.name,
        kind: probe.kind,
        uploadPath: target,
        zpass: req.zpass || undefined,
        warning,
        sizeBytes: req.file.size,
      });
      if (this.#d.runJobs !== false) this.scheduler.enqueue(job);
      return id;
    } catch (err) {
      if (req.move) rmSync(req.file.path, { force: true });
      if (target) rmSync(target, { force: true }); // placed but not committed: never acknowledged
      throw err;
    }
  }

  async status(job: Job): Promise<StatusBody> {
    const items = await this.#d.store.items(job.id);
    const done = items.filter((i) => i.state === 'done').length;
    const failed = items.filter((i) => i.state === 'failed').length;
    const total = items.length || (job.kind === 'audio' ? 1 : 0);
    const body: StatusBody = {
      requestid: job.id,
      state: job.state,
      queuePosition: await this.#d.store.queuePosition(job.id),
      files: { total, done, failed },
      progress: Math.round(job.progress * 1000) / 1000,
      etaSeconds: await this.#eta(job),
      callbacks: (await this.#d.outbox.deliveries(job.id)).map(callbackStatus),
    };
    if (job.error) body.error = job.error;
    if (job.warning) body.warning = job.warning;
    return body;
  }

  /** Cancels a queued or running request; a final one is left as it is. Returns the job afterwards. */
  async cancel(job: Job): Promise<Job> {
    const where = this.scheduler.cancel(job.id);
    if (where === 'running') await this.scheduler.settled(job.id);
    else if (job.state === 'queued' || job.state === 'running') await this.#cancelled(job);
    return (await this.#d.store.get(job.id)) ?? job;
  }

  /** Deletes the result, the audio, the request's transcripts in the index and its record. */
  async remove(job: Job): Promise<void> {
    if (job.state === 'queued' || job.state === 'running') await this.cancel(job);
    const tids = (await this.#d.store.items(job.id)).flatMap((i) => (i.tid ? [i.tid] : []));
    if (tids.length > 0) await this.#d.index.delete({ company: job.destination.company, org: job.destination.org, folder: job.destination.folder }, tids);
    rmSync(this.#d.paths.job(job.id), { recursive: true, force: true });
    rmSync(job.uploadPath, { force: true });
    await this.#d.outbox.forget(job.id);
    await this.#d.store.delete(job.id);
  }

  /** Stops accepting, lets running jobs finish within graceMs, checkpoints the rest (they resume on restart). */
  async stop(graceMs: number): Promise<boolean> {
    this.#accepting = false;
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    return this.scheduler.stop(graceMs);
  }

  // ------------------------------------------------------------ running

  async #run(id: string, signal: AbortSignal): Promise<void> {
    const job = await this.#d.store.get(id);
    if (!job || !(await this.#d.store.markRunning(id))) return;
    const log = this.#d.log.child({ requestid: id });
    if (job.attempts + 1 > MAX_STARTS) {
      log.error({ attempts: job.attempts + 1 }, 'request failed: the service stopped every time it was processed');
      return this.#fail(job, { code: 'INTERNAL', message: `The service stopped ${job.attempts} times while processing this request; it was given up. Check the audio and send it again.` });
    }
    const ctx: StageContext = { jobId: id, signal, log, config: this.#d.config };
    const t0 = performance.now();
    try {
      await runUpload(job, { ...this.#d, notify: (j, outcomes) => this.#finish(j, outcomes), onFile: (a, w) => this.#onFile(a, w) }, ctx);
      this.#d.metrics.observeJob(job.sizeBytes, (performance.now() - t0) / 1000);
    } catch (err) {
      if (signal.reason === SHUTDOWN) return; // stays running in the store; resumed after the next start
      if (signal.reason === CANCEL) return this.#cancelled(job);
      const e = toVoxdexError(err);
      const attempts = (await this.#d.store.get(id))?.attempts ?? 1;
      if (e.retryable && attempts < MAX_RETRIES) {
        const delay = Math.min(60_000, 2_000 * 2 ** attempts);
        log.warn({ err: e, attempts, delay }, 'job failed; retrying');
        const t = setTimeout(() => {
          this.#retryTimers.delete(t);
          this.scheduler.enqueue(job);
        }, delay);
        this.#retryTimers.add(t);
        return;
      }
      log.warn({ err: e }, 'request failed');
      await this.#fail(job, { code: e.code, message: e.message });
    } finally {
      if ((await this.#d.store.get(id))?.state !== 'running') rmSync(this.#d.paths.workDir(id), { recursive: true, force: true });
    }
  }

  #onFile(audiosecs: number, wallSec: number): void {
    this.#d.metrics.audioSeconds.inc(audiosecs);
    this.#d.metrics.filesProcessed.inc({ outcome: 'done' });
    if (audiosecs > 0) this.#d.metrics.rtf.observe(wallSec / audiosecs);
  }

  async #finish(job: Job, outcomes: MemberOutcome[]): Promise<void> {
    const failed = outcomes.filter((o) => o.error);
    this.#d.metrics.filesProcessed.inc({ outcome: 'failed' }, failed.length);
    if (!outcomes.some((o) => o.document)) {
      const error: ErrorInfo =
        job.kind === 'audio' && failed[0]?.error
          ? failed[0].error
          : {
              code: 'REQUEST_FAILED',
              message: outcomes.length
                ? `All ${outcomes.length} files failed: ${failed.map((f) => `${f.member}: ${f.error!.message}`).join('; ').slice(0, 2000)}`
                : 'The upload contained no audio files',
            };
      return this.#fail(job, error);
    }
    const ext = resultExtension(job.kind, job.output);
    const resultPath = this.#d.paths.result(job.id, ext);
    await writeResultFile(resultPath, job.kind, job.output, outcomes);
    const secret = this.#d.tenancy.hasCompany(job.destination.company) ? this.#d.tenancy.callbackSecret(job.destination.company) : undefined;
    const callback = job.callback
      ? { requestid: job.id, company: job.destination.company, url: job.callback, kind: 'result' as const, body: resultPath, contentType: resultMime(resultPath), filename: `${job.id}.${ext}`, secret }
      : undefined;
    await this.#d.store.settle(job.id, { state: 'done', resultPath }, callback);
  }

  async #fail(job: Job, error: ErrorInfo): Promise<void> {
    const secret = this.#d.tenancy.hasCompany(job.destination.company) ? this.#d.tenancy.callbackSecret(job.destination.company) : undefined;
    const callback = failureDelivery({ requestid: job.id, company: job.destination.company, callback: job.callback, callbackerror: job.callbackError, error, secret });
    await this.#d.store.settle(job.id, { state: 'failed', error }, callback);
  }

  async #cancelled(job: Job): Promise<void> {
    const error: ErrorInfo = { code: 'CANCELLED', message: 'The request was cancelled' };
    const secret = this.#d.tenancy.hasCompany(job.destination.company) ? this.#d.tenancy.callbackSecret(job.destination.company) : undefined;
    const callback = failureDelivery({ requestid: job.id, company: job.destination.company, callback: job.callback, callbackerror: job.callbackError, error, secret });
    await this.#d.store.settle(job.id, { state: 'cancelled', error }, callback);
  }

  async #eta(job: Job): Promise<number> {
    if (job.state !== 'queued' && job.state !== 'running') return 0;
    const rate = this.#d.metrics.bytesPerSecond() * Math.max(1, this.#d.config.asrThreads);
    let bytes = job.sizeBytes * (1 - job.progress);
    if (job.state === 'queued') {
      for (const j of await this.#d.store.listUnfinished()) {
        if (j.seq >= job.seq) break;
        bytes += j.sizeBytes * (1 - j.progress);
      }
    }
    return Math.max(1, Math.round(bytes / rate));
  }
}

function callbackStatus(d: DeliveryStatus): StatusBody['callbacks'][number] {
  const out: StatusBody['callbacks'][number] = { kind: d.kind, state: d.state, attempts: d.attempts.length };
  if (d.lastError) out.lastError = d.lastError;
  if (d.nextAttemptAt && d.state === 'pending') out.nextAttemptAt = d.nextAttemptAt;
  if (d.deliveredAt) out.deliveredAt = d.deliveredAt;
  return out;
}

function parseMetadata(raw: SubmitRequest['metadata']): Record<string, unknown> | undefined {
  if (raw === undefined || raw === '') return undefined;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidParameter('metadata', 'a JSON object', raw);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalidParameter('metadata', 'a JSON object', raw);
  return value as Record<string, unknown>;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function parseDatetime(raw: string | undefined): string {
  if (raw === undefined || raw === '') return new Date().toISOString();
  const ms = ISO_8601.test(raw) ? Date.parse(raw) : NaN;
  if (!Number.isFinite(ms)) throw invalidParameter('datetime', 'an ISO 8601 date-time such as 2026-11-22T14:05:00Z', raw);
  return new Date(ms).toISOString();
}

/** The client's file name made safe as one path component. */
function safeName(name: string): string {
  const base = name.replace(/[\\/]/g, '_').replace(/[\x00-\x1f]/g, '').slice(-200);
  return base === '' || base === '.' || base === '..' ? 'upload' : base;
}
