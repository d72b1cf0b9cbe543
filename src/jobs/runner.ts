/**
 * Running jobs: a job is claimed, the upload pipeline runs it, and one settle() commits its final
 * state together with its callback (JobStore.settle: one transaction). Failures are retried as
 * decided by retry.ts; a cancelled job settles as cancelled. Also cancel and delete.
 *
 * Two ways to get jobs, one way to run them:
 *  - embedded (one process): the in-process scheduler, fed by this node's intake and by the jobs a
 *    previous process left; a job interrupted by a graceful stop stays running in the store and
 *    resumes after the next start; a retry waits on a timer here;
 *  - distributed (a store with leases, VOXDEX_DATABASE_URL): the claim loop takes jobs from the shared
 *    queue under a lease (claim-loop.ts); a retry, or a job interrupted by a graceful stop, goes back
 *    to the queue (requeue) for any worker; a cancel asked on another node reaches the owner through
 *    the store; a job whose lease this worker lost is dropped quietly.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { runUpload, type UploadOutcome } from '../pipeline/upload.js';
import type { FileRunnerDeps } from '../pipeline/file-runner.js';
import type { Transcriber } from '../asr/transcriber.js';
import { blobKeys, type BlobStore } from '../blobs/blob-store.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { failureDelivery } from '../callbacks/failure.js';
import type { Config } from '../config.js';
import { toVoxdexError, type ErrorInfo } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { CANCEL, SHUTDOWN, Scheduler, type SchedulableJob } from '../scheduler.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import { resultMime } from '../render/output.js';
import { hasLeases, type Job, type JobLeases, type JobStore, type Settlement } from '../store/job-store.js';
import type { CallbackOutbox, EnqueueInput } from '../store/outbox.js';
import type { JobPaths } from '../store/paths.js';
import { settingsNow, type Tenancy } from '../tenancy/tenancy.js';
import type { CompanySettings, RequestOptions, StageContext } from '../types.js';
import { ClaimLoop, LEASE_LOST } from './claim-loop.js';
import { clientTextOf } from '../redact/client-policy.js';
import type { PolicyNow } from '../redact/at-write.js';
import { defaultRequestOptions, policyFloor } from './request-options.js';
import { shownJob } from './shown-job.js';
import { decideRetry, JOB_RETRY, startsExhausted, type RetryPolicy } from './retry.js';

interface JobRunnerDeps {
  config: Readonly<Config>;
  log: Logger;
  store: JobStore;
  outbox: CallbackOutbox;
  tenancy: Pick<Tenancy, 'hasCompany' | 'callbackSecret' | 'companySettings'>;
  index: TranscriptIndex;
  /** Absent on a node that runs no jobs (an API node). */
  transcriber?: Transcriber;
  blobs: BlobStore;
  /** The installation's key for audio at rest (uploads, members, kept audio are sealed). */
  seal: AudioSeal;
  paths: JobPaths;
  metrics: Metrics;
  retry?: RetryPolicy;
  /** Distributed mode: this worker's name in leases (the store must offer leases). */
  owner?: string;
  /** Distributed mode: false on an API node (it cancels and deletes, never runs); default true. */
  runJobs?: boolean;
  /** Categories scored at indexing (src/pipeline/file-runner.ts). */
  categorize?: FileRunnerDeps['categorize'];
  /** A live call's utterances decoded during the call (jobs/live-calls.ts), so its job does not transcribe them again. */
  liveTranscript?: FileRunnerDeps['liveTranscript'];
}

/** How often jobs queued by another process (voxdex import) are picked up (embedded mode). */
const SWEEP_MS = 2000;
/** Jobs up to this size may use the extra short-job slot: ≈ 30 s of 8 kHz stereo G.711 or 16 s of 16 kHz 16-bit mono. */
const SHORT_BYTES = 512 * 1024;

export class JobRunner {
  readonly #d: JobRunnerDeps;
  readonly #retry: RetryPolicy;
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  /** Embedded mode. */
  readonly #scheduler: Scheduler | undefined;
  /** Distributed mode. */
  readonly #leases: (JobStore & JobLeases) | undefined;
  readonly #claims: ClaimLoop | undefined;
  #sweep: NodeJS.Timeout | undefined;

  constructor(deps: JobRunnerDeps) {
    this.#d = deps;
    this.#retry = deps.retry ?? JOB_RETRY;
    const concurrency = Math.max(1, deps.config.asrThreads);
    if (deps.owner !== undefined) {
      if (!hasLeases(deps.store)) throw new Error('JobRunner: a worker name was given but the job store has no leases');
      this.#leases = deps.store;
      const owner = deps.owner;
      if (deps.runJobs !== false) {
        this.#claims = new ClaimLoop({
          store: deps.store,
          owner,
          leaseMs: deps.config.leaseMs,
          concurrency,
          shortBytes: SHORT_BYTES,
          run: (job, signal) => this.#execute(job, signal, owner),
          log: deps.log,
          onClaim: (ms) => deps.metrics.claimSeconds.observe(ms / 1000),
        });
      }
    } else {
      this.#scheduler = new Scheduler({ concurrency, shortBytes: SHORT_BYTES, run: (id, signal) => this.#runLocal(id, signal), log: deps.log });
    }
  }

  /** Jobs waiting here for a slot (embedded mode; the shared queue's length is the store's). */
  get queued(): number {
    return this.#scheduler?.queued ?? 0;
  }

  /** Jobs running in this process. */
  get active(): number {
    return this.#scheduler?.active ?? this.#claims?.active ?? 0;
  }

  /** A job was accepted (by this node, or announced by another): queue it here, or look at the shared queue now. */
  enqueue(job: SchedulableJob): void {
    if (this.#scheduler) this.#scheduler.enqueue(job);
    else this.#claims?.wake();
  }

  /** Distributed mode: a job became claimable (NOTIFY voxdex_jobs): look at the shared queue now. */
  wake(): void {
    this.#claims?.wake();
  }

  /** A cancel of a job running here was announced by another node (NOTIFY voxdex_cancel). */
  cancelLocal(id: string): void {
    this.#claims?.cancel(id);
  }

  /** Resolves when nothing is waiting or running here (tests, benchmarks; embedded mode). */
  idle(): Promise<void> {
    return this.#scheduler?.idle() ?? Promise.resolve();
  }

  /**
   * Starts taking work: embedded, every job a previous process left unfinished, then jobs queued by
   * another process (voxdex import) every 2 s; distributed, the claim loop. Resolves to the jobs resumed.
   */
  async start(): Promise<number> {
    if (this.#claims) {
      this.#claims.start();
      return 0;
    }
    if (!this.#scheduler) return 0;
    const scheduler = this.#scheduler;
    const jobs = await this.#d.store.listUnfinished();
    for (const j of jobs) scheduler.enqueue(j);
    if (jobs.length > 0) this.#d.log.info({ jobs: jobs.length }, 'resuming unfinished jobs');
    this.#sweep = setInterval(() => {
      this.#d.store.listUnfinished().then(
        (unfinished) => unfinished.filter((j) => j.state === 'queued').forEach((j) => scheduler.enqueue(j)),
        (err) => this.#d.log.warn({ err }, 'looking for jobs queued by another process failed'),
      );
    }, SWEEP_MS);
    this.#sweep.unref();
    return jobs.length;
  }

  /** Cancels a queued or running request; a final one is left as it is. Resolves to the job afterwards. */
  async cancel(job: Job): Promise<Job> {
    if (this.#scheduler) {
      const where = this.#scheduler.cancel(job.id);
      if (where === 'running') await this.#scheduler.settled(job.id);
      else if (job.state === 'queued' || job.state === 'running') await this.#settle(job, cancelled());
    } else if (this.#claims?.cancel(job.id)) {
      await this.#claims.settled(job.id);
    } else if (job.state === 'queued' || job.state === 'running') {
      await this.#cancelShared(job);
    }
    return (await this.#d.store.get(job.id)) ?? job;
  }

  /**
   * Distributed cancel: a queued job settles as cancelled here; a running one is cancelled by its
   * owner (asked through the store; it settles within a heartbeat). When no worker holds a lease on
   * it (its owner died), or the owner does not answer within a lease period, it is settled here.
   */
  async #cancelShared(job: Job): Promise<void> {
    const leases = this.#leases!;
    if (await leases.requestCancel(job.id)) {
      const until = Date.now() + this.#d.config.leaseMs + 2_000;
      while (Date.now() < until) {
        const now = await this.#d.store.get(job.id);
        if (!now || (now.state !== 'queued' && now.state !== 'running')) return;
        if (now.state === 'running' && !(await leases.leaseHeld(job.id))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await this.#settle(job, cancelled());
  }

  /** Deletes the result, the audio, the request's transcripts in the index, its callbacks and its record. */
  async remove(job: Job): Promise<void> {
    if (job.state === 'queued' || job.state === 'running') await this.cancel(job);
    const tids = (await this.#d.store.items(job.id)).flatMap((i) => (i.tid ? [i.tid] : []));
    if (tids.length > 0) await this.#d.index.delete({ company: job.destination.company, org: job.destination.org, folder: job.destination.folder }, tids);
    await this.#d.blobs.deletePrefix(blobKeys.job(job.id));
    rmSync(this.#d.paths.job(job.id), { recursive: true, force: true });
    await this.#d.blobs.delete(job.uploadPath);
    await this.#d.outbox.forget(job.id);
    await this.#d.store.delete(job.id);
  }

  /** Lets running jobs finish within graceMs; the rest resume later (embedded: after the next start; distributed: on any worker). Resolves true when some were aborted. */
  async stop(graceMs: number): Promise<boolean> {
    clearInterval(this.#sweep);
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    if (this.#claims) return this.#claims.stop(graceMs);
    return this.#scheduler?.stop(graceMs) ?? false;
  }

  // ------------------------------------------------------------ running

  /** Embedded mode: the scheduler starts a job by id. */
  async #runLocal(id: string, signal: AbortSignal): Promise<void> {
    if (!(await this.#d.store.markRunning(id))) return;
    const job = (await this.#d.store.get(id))!;
    await this.#execute(job, signal, undefined);
  }

  /** Runs a job already marked running (attempts counted), `owner` holding its lease in the distributed mode. */
  async #execute(job: Job, signal: AbortSignal, owner: string | undefined): Promise<void> {
    const id = job.id;
    const log = this.#d.log.child({ requestid: id });
    if (startsExhausted(job.attempts, this.#retry)) {
      log.error({ attempts: job.attempts }, 'request failed: the service stopped every time it was processed');
      await this.#settle(job, {
        state: 'failed',
        error: { code: 'INTERNAL', message: `The service stopped ${job.attempts - 1} times while processing this request; it was given up. Check the audio and send it again.` },
        owner,
      });
      return;
    }
    const ctx: StageContext = { jobId: id, signal, log, config: this.#d.config };
    const t0 = performance.now();
    const { store, index, transcriber, blobs, seal, paths, metrics, categorize, liveTranscript } = this.#d;
    const options = this.#runOptions(job);
    // Under redaction the client's name and metadata go on redacted (a job queued before the policy included).
    const client = clientTextOf(options);
    try {
      if (!transcriber) throw new Error('JobRunner: this node runs no jobs (it has no transcriber)');
      const pipelineJob = { ...job, options, source: client.text(job.source), metadata: client.metadata(job.metadata) };
      // A job accepted before the policy: its row holds them redacted from now on too.
      if (pipelineJob.source !== job.source || JSON.stringify(pipelineJob.metadata) !== JSON.stringify(job.metadata)) {
        await store.rewriteClientText(id, pipelineJob.source, pipelineJob.metadata);
      }
      const outcome = await runUpload(pipelineJob, { store, index, transcriber, blobs, seal, paths, metrics, categorize, liveTranscript, policy: this.#policyNow }, ctx);
      this.#d.metrics.filesProcessed.inc({ outcome: 'failed' }, outcome.files.filter((f) => f.error).length);
      if (signal.reason === LEASE_LOST) return;
      await this.#settle(job, { ...settlementOf(job, outcome), owner });
      this.#d.metrics.observeJob(job.sizeBytes, (performance.now() - t0) / 1000);
    } catch (err) {
      if (signal.reason === SHUTDOWN || signal.reason === LEASE_LOST) return; // resumed later (see the class comment)
      if (signal.reason === CANCEL) {
        await this.#settle(job, { ...cancelled(), owner });
        return;
      }
      const e = toVoxdexError(err);
      const reported = client.active ? client.error({ code: e.code, message: e.message }) : e;
      const decision = decideRetry(e.code, job.attempts, this.#retry);
      if (decision.retry) {
        log.warn({ err: reported, attempts: job.attempts, delay: decision.delayMs }, 'job failed; retrying');
        if (owner !== undefined) {
          await this.#leases!.requeue(id, owner, decision.delayMs);
          return;
        }
        const t = setTimeout(() => {
          this.#retryTimers.delete(t);
          this.enqueue(job);
        }, decision.delayMs);
        this.#retryTimers.add(t);
        return;
      }
      log.warn({ err: reported }, 'request failed');
      await this.#settle(job, { state: 'failed', error: client.error({ code: e.code, message: e.message }), owner });
    } finally {
      if (owner !== undefined || (await this.#d.store.get(id))?.state !== 'running') rmSync(this.#d.paths.workDir(id), { recursive: true, force: true });
    }
  }

  /** The company's policy as it is when a transcript is written (a policy set while the job ran applies to what it writes). */
  readonly #policyNow: PolicyNow = {
    optionsNow: (ran, company) => {
      const settings = this.#settingsNow(company);
      return settings ? policyFloor(ran, settings) : ran;
    },
    settings: (company) => this.#settingsNow(company),
  };

  #settingsNow(company: string): CompanySettings | undefined {
    return settingsNow(this.#d.tenancy)(company);
  }

  /**
   * What the job runs with: its accepted options (a job stored before request options existed: the
   * defaults) under the company's policy as it is now — set after the job was queued, it still applies.
   */
  #runOptions(job: Job): RequestOptions {
    const accepted = job.options ?? defaultRequestOptions();
    const floored = policyFloor(accepted, this.#d.tenancy.companySettings(job.destination.company));
    if (floored.scrubtext !== accepted.scrubtext || floored.scrubaudio !== accepted.scrubaudio || floored.redact.length !== accepted.redact.length) {
      this.#d.log.info({ requestid: job.id, scrubtext: floored.scrubtext, scrubaudio: floored.scrubaudio, redact: floored.redact }, 'the company policy set after this request was accepted applies to it');
    }
    return floored;
  }

  /**
   * The one way a job ends: its final state and its callback (result or error) in one transaction.
   * The callback row holds no secret: the dispatcher signs with the company's current one from tenancy.
   * Under scrubaudio a job that ends failed or cancelled loses its upload and work folder first (one
   * that ends done lost them in runUpload): removed before the state commits, so no final job ever
   * keeps an unredacted recording, whatever crashes when — a crash before the commit resumes the job,
   * which ends again without its upload.
   */
  async #settle(job: Job, settlement: Settlement): Promise<boolean> {
    if (settlement.state !== 'done' && this.#scrubsAudio(job) && (await this.#mayRemove(job, settlement.owner))) await this.#removeUpload(job);
    const t0 = performance.now();
    // The result's name in the callback: the client's file name as it may be shown now (a job accepted before the policy included).
    const settled = await this.#d.store.settle(job.id, settlement, callbackOf(shownJob(job, this.#d.tenancy), settlement, undefined));
    if (settlement.owner !== undefined) this.#d.metrics.settleSeconds.observe((performance.now() - t0) / 1000);
    return settled;
  }

  /** The job runs under scrubaudio: its own options, or its company's policy now (which reaches queued work). */
  #scrubsAudio(job: Job): boolean {
    if (job.options?.scrubaudio) return true;
    return this.#d.tenancy.hasCompany(job.destination.company) && (this.#d.tenancy.companySettings(job.destination.company).scrub ?? []).includes('audio');
  }

  /** A worker settling a job it runs removes the upload only while it still holds the job (another worker may have taken it over). */
  async #mayRemove(job: Job, owner: string | undefined): Promise<boolean> {
    if (owner === undefined) return true;
    return (await this.#leases!.renewLeases(owner, [job.id], this.#d.config.leaseMs)).held.includes(job.id);
  }

  /** The unredacted upload and the job's work folder (sealed members, a copy of the upload) go. */
  async #removeUpload(job: Job): Promise<void> {
    rmSync(this.#d.paths.workDir(job.id), { recursive: true, force: true });
    await this.#d.blobs.delete(job.uploadPath);
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

/**
 * The file name a result is sent under: the recording's own name for a transcript that does not carry
 * it (text, srt, vtt of one file: "call-0042.srt"); the request id otherwise ("<id>.json", "<id>.zip").
 * The name is the job's `source`, as stored (redacted under a redaction policy).
 */
export function resultFileName(job: Pick<Job, 'id' | 'kind' | 'source'>, ext: string): string {
  const stem = job.kind === 'audio' && ['txt', 'srt', 'vtt'].includes(ext) ? path.basename(job.source).replace(/\.[a-z0-9]{1,5}$/i, '') : '';
  return `${stem || job.id}.${ext}`;
}

/** The callback a settlement sends: the result file to `callback`, or the error to `callbackerror` (else `callback`). */
export function callbackOf(job: Pick<Job, 'id' | 'kind' | 'source' | 'destination' | 'callback' | 'callbackError'>, s: Settlement, secret: string | undefined): EnqueueInput | undefined {
  const company = job.destination.company;
  if (s.state !== 'done') {
    return failureDelivery({ requestid: job.id, company, callback: job.callback, callbackerror: job.callbackError, error: s.error!, secret });
  }
  if (!job.callback || !s.resultPath) return undefined;
  const ext = s.resultPath.slice(s.resultPath.lastIndexOf('.') + 1);
  return { requestid: job.id, company, url: job.callback, kind: 'result', body: s.resultPath, contentType: resultMime(s.resultPath), filename: resultFileName(job, ext), secret };
}
