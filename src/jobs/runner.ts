/**
 * Running jobs: the scheduler claims a job, the upload pipeline runs it, and one settle() commits
 * its final state together with its callback (JobStore.settle: one transaction). Failures are
 * retried as decided by retry.ts; a cancelled job settles as cancelled; a job interrupted by a
 * graceful stop stays running in the store and resumes after the next start. Also cancel and delete.
 */
import { rmSync } from 'node:fs';
import { runUpload, type UploadOutcome } from '../../pipelines/upload.js';
import type { Transcriber } from '../asr/transcriber.js';
import { failureDelivery } from '../callbacks/failure.js';
import type { Config } from '../config.js';
import { toVoxdexError, type ErrorInfo } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { CANCEL, SHUTDOWN, Scheduler } from '../scheduler.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import { resultMime } from '../stages/result-file.js';
import type { Job, JobStore, Settlement } from '../store/job-store.js';
import type { CallbackOutbox, EnqueueInput } from '../store/outbox.js';
import type { JobPaths } from '../store/paths.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import type { StageContext } from '../types.js';
import { decideRetry, JOB_RETRY, startsExhausted, type RetryPolicy } from './retry.js';

export interface JobRunnerDeps {
  config: Readonly<Config>;
  log: Logger;
  store: JobStore;
  outbox: CallbackOutbox;
  tenancy: Pick<Tenancy, 'hasCompany' | 'callbackSecret'>;
  index: TranscriptIndex;
  transcriber: Transcriber;
  paths: JobPaths;
  metrics: Metrics;
  retry?: RetryPolicy;
}

/** How often jobs queued by another process (voxdex import) are picked up. */
const SWEEP_MS = 2000;

export class JobRunner {
  readonly scheduler: Scheduler;
  readonly #d: JobRunnerDeps;
  readonly #retry: RetryPolicy;
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  #sweep: NodeJS.Timeout | undefined;

  constructor(deps: JobRunnerDeps) {
    this.#d = deps;
    this.#retry = deps.retry ?? JOB_RETRY;
    this.scheduler = new Scheduler({
      concurrency: Math.max(1, deps.config.asrThreads),
      shortBytes: 512 * 1024, // ≈ 30 s of 8 kHz stereo G.711 or 16 s of 16 kHz 16-bit mono
      run: (id, signal) => this.#run(id, signal),
      log: deps.log,
    });
  }

  /** Queues a job to run here (a second enqueue of a queued or running job is ignored). */
  enqueue(job: Pick<Job, 'id' | 'sizeBytes'>): void {
    this.scheduler.enqueue(job);
  }

  /** Queues every job a previous process left unfinished, then keeps picking up jobs queued by another process. */
  async start(): Promise<number> {
    const jobs = await this.#d.store.listUnfinished();
    for (const j of jobs) this.enqueue(j);
    if (jobs.length > 0) this.#d.log.info({ jobs: jobs.length }, 'resuming unfinished jobs');
    this.#sweep = setInterval(() => {
      this.#d.store.listUnfinished().then(
        (unfinished) => unfinished.filter((j) => j.state === 'queued').forEach((j) => this.enqueue(j)),
        (err) => this.#d.log.warn({ err }, 'looking for jobs queued by another process failed'),
      );
    }, SWEEP_MS);
    this.#sweep.unref();
    return jobs.length;
  }

  /** Cancels a queued or running request; a final one is left as it is. Resolves to the job afterwards. */
  async cancel(job: Job): Promise<Job> {
    const where = this.scheduler.cancel(job.id);
    if (where === 'running') await this.scheduler.settled(job.id);
    else if (job.state === 'queued' || job.state === 'running') await this.#settle(job, cancelled());
    return (await this.#d.store.get(job.id)) ?? job;
  }

  /** Deletes the result, the audio, the request's transcripts in the index, its callbacks and its record. */
  async remove(job: Job): Promise<void> {
    if (job.state === 'queued' || job.state === 'running') await this.cancel(job);
    const tids = (await this.#d.store.items(job.id)).flatMap((i) => (i.tid ? [i.tid] : []));
    if (tids.length > 0) await this.#d.index.delete({ company: job.destination.company, org: job.destination.org, folder: job.destination.folder }, tids);
    rmSync(this.#d.paths.job(job.id), { recursive: true, force: true });
    rmSync(job.uploadPath, { force: true });
    await this.#d.outbox.forget(job.id);
    await this.#d.store.delete(job.id);
  }

  /** Lets running jobs finish within graceMs and checkpoints the rest (they resume on restart). Resolves true when some were aborted. */
  async stop(graceMs: number): Promise<boolean> {
    clearInterval(this.#sweep);
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    return this.scheduler.stop(graceMs);
  }

  // ------------------------------------------------------------ running

  async #run(id: string, signal: AbortSignal): Promise<void> {
    if (!(await this.#d.store.markRunning(id))) return;
    const job = (await this.#d.store.get(id))!;
    const log = this.#d.log.child({ requestid: id });
    if (startsExhausted(job.attempts, this.#retry)) {
      log.error({ attempts: job.attempts }, 'request failed: the service stopped every time it was processed');
      await this.#settle(job, {
        state: 'failed',
        error: { code: 'INTERNAL', message: `The service stopped ${job.attempts - 1} times while processing this request; it was given up. Check the audio and send it again.` },
      });
      return;
    }
    const ctx: StageContext = { jobId: id, signal, log, config: this.#d.config };
    const t0 = performance.now();
    try {
      const outcome = await runUpload(job, this.#d, ctx);
      this.#d.metrics.filesProcessed.inc({ outcome: 'failed' }, outcome.files.filter((f) => f.error).length);
      await this.#settle(job, settlementOf(job, outcome));
      this.#d.metrics.observeJob(job.sizeBytes, (performance.now() - t0) / 1000);
    } catch (err) {
      if (signal.reason === SHUTDOWN) return; // stays running in the store; resumed after the next start
      if (signal.reason === CANCEL) {
        await this.#settle(job, cancelled());
        return;
      }
      const e = toVoxdexError(err);
      const decision = decideRetry(e.code, job.attempts, this.#retry);
      if (decision.retry) {
        log.warn({ err: e, attempts: job.attempts, delay: decision.delayMs }, 'job failed; retrying');
        const t = setTimeout(() => {
          this.#retryTimers.delete(t);
          this.enqueue(job);
        }, decision.delayMs);
        this.#retryTimers.add(t);
        return;
      }
      log.warn({ err: e }, 'request failed');
      await this.#settle(job, { state: 'failed', error: { code: e.code, message: e.message } });
    } finally {
      if ((await this.#d.store.get(id))?.state !== 'running') rmSync(this.#d.paths.workDir(id), { recursive: true, force: true });
    }
  }


  /** The one way a job ends: its final state and its callback (result or error) in one transaction. */
  async #settle(job: Job, settlement: Settlement): Promise<boolean> {
    const { company } = job.destination;
    const secret = this.#d.tenancy.hasCompany(company) ? this.#d.tenancy.callbackSecret(company) : undefined;
    return this.#d.store.settle(job.id, settlement, callbackOf(job, settlement, secret));
  }
}

function cancelled(): Settlement {
  return { state: 'cancelled', error: { code: 'CANCELLED', message: 'The request was cancelled' } };
}

/** done when some file has a transcript (and so a result file); otherwise failed with the one file's error or a summary. */
export function settlementOf(job: Pick<Job, 'kind'>, { files, resultPath }: UploadOutcome): Settlement {
  if (resultPath) return { state: 'done', resultPath };
  const failed = files.filter((f) => f.error);
  const error: ErrorInfo =
    job.kind === 'audio' && failed[0]?.error
      ? failed[0].error
      : {
          code: 'REQUEST_FAILED',
          message: files.length
            ? `All ${files.length} files failed: ${failed.map((f) => `${f.member}: ${f.error!.message}`).join('; ').slice(0, 2000)}`
            : 'The upload contained no audio files',
        };
  return { state: 'failed', error };
}

/** The callback a settlement sends: the result file to `callback`, or the error to `callbackerror` (else `callback`). */
export function callbackOf(job: Pick<Job, 'id' | 'destination' | 'callback' | 'callbackError'>, s: Settlement, secret: string | undefined): EnqueueInput | undefined {
  const company = job.destination.company;
  if (s.state !== 'done') {
    return failureDelivery({ requestid: job.id, company, callback: job.callback, callbackerror: job.callbackError, error: s.error!, secret });
  }
  if (!job.callback || !s.resultPath) return undefined;
  const ext = s.resultPath.slice(s.resultPath.lastIndexOf('.') + 1);
  return { requestid: job.id, company, url: job.callback, kind: 'result', body: s.resultPath, contentType: resultMime(s.resultPath), filename: `${job.id}.${ext}`, secret };
}
