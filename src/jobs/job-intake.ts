/**
 * Accepting a transcription request: validate it, store the upload durably, create the job (one
 * durable commit), and say so. HTTP routes, the drop folder and `voxdex import` all come through
 * here; running the job is the runner's (jobs/runner.ts), told through `onAccepted` where one runs
 * in this process.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';
import { fileSource } from '../audio/byte-source.js';
import type { BlobStore } from '../blobs/blob-store.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { checkCallbackUrl } from '../callbacks/url-guard.js';
import type { Config } from '../config.js';
import { voxdexError, VoxdexError } from '../errors.js';
import { invalidParameter } from '../is.js';
import { OUTPUT_FORMATS } from '../render/output.js';
import { probeUpload } from '../stages/probe.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { JobPaths } from '../store/paths.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import type { CompanySettings, Destination, OutputFormat, RequestOptions } from '../types.js';
import { clientTextUnderPolicy, type ClientText, type RedactionFields } from '../redact/client-policy.js';
import { resolveRequestOptions, type RequestOptionValues } from './request-options.js';
import { sha256Of } from './content-hash.js';
import { LIVE_PRIORITY } from '../scheduler.js';

interface JobIntakeDeps {
  config: Readonly<Config>;
  store: JobStore;
  tenancy: Pick<Tenancy, 'requireScope' | 'resolveModel'>;
  /** Where accepted uploads are stored (durably, before the job row commits). */
  blobs: BlobStore;
  /** The installation's key for audio at rest: uploads are stored sealed. */
  seal: AudioSeal;
  paths: JobPaths;
  /** Model names (and aliases) a request may name. */
  installedModels: () => string[];
  /** Called with each job once it is durably queued (the runner of this process, if any). */
  onAccepted?: (job: Job) => void;
  /**
   * A company's policy and option defaults. Default: the tenancy's `companySettings` where it has
   * one, else none (every company gets the product defaults).
   */
  companySettings?: (company: string) => CompanySettings;
}

/** A request as received, before validation (strings straight from a form, query or sidecar). */
export interface SubmitRequest {
  destination: Destination;
  /** `size`: the recording's bytes (not the sealed file's). */
  file: { path: string; name: string; size: number };
  /**
   * true: the file is an upload this process received, already sealed (readUpload), moved into the
   * store; false: a plain file of the operator's (drop folder, import), sealed into the store as a copy.
   */
  move: boolean;
  model?: string;
  output?: string;
  callback?: string;
  callbackerror?: string;
  metadata?: string | Record<string, unknown>;
  datetime?: string;
  zpass?: string;
  /** numtrans, scrubtext, diarize, …: resolved with the company's settings (jobs/request-options.ts). */
  options?: RequestOptionValues;
  /** Parameter names accepted but not implemented. */
  ignored?: string[];
  /** The file's sha256 (hex) when the caller has it (drop folder, import); else it is computed. */
  sha256?: string;
}

export class JobIntake {
  readonly #d: JobIntakeDeps;
  #accepting = true;

  constructor(deps: JobIntakeDeps) {
    this.#d = deps;
  }

  #settings(company: string): CompanySettings {
    if (this.#d.companySettings) return this.#d.companySettings(company);
    const tenancy = this.#d.tenancy as { companySettings?: (company: string) => CompanySettings };
    return typeof tenancy.companySettings === 'function' ? tenancy.companySettings(company) : {};
  }

  /** Refuses every later submission with OVERLOADED (the service is stopping). */
  stopAccepting(): void {
    this.#accepting = false;
  }

  /** OVERLOADED (503, Retry-After) when the queue is full or the data dir is short of space. */
  async checkCapacity(): Promise<void> {
    if (!this.#accepting) throw new VoxdexError('OVERLOADED', 'The service is shutting down; send the request again in a moment', { retryAfterSec: 10 });
    const queued = await this.#d.store.countQueued();
    if (queued >= this.#d.config.queue.maxQueuedJobs) {
      throw new VoxdexError('OVERLOADED', `The queue is full (${queued} requests waiting); retry after the Retry-After seconds`, { retryAfterSec: 60 });
    }
    this.checkDisk();
  }

  /** OVERLOADED (503, Retry-After) when the data dir has less than VOXDEX_MIN_FREE_DISK_MIB free (an upload, or a live call as its audio arrives). */
  checkDisk(): void {
    const fs = statfsSync(this.#d.config.dataDir);
    const free = fs.bavail * fs.bsize;
    if (free < this.#d.config.queue.minFreeDiskBytes) {
      throw new VoxdexError('OVERLOADED', 'The data disk is nearly full; retry later or ask the operator to free space', { retryAfterSec: 300 });
    }
  }

  /**
   * The request's fields validated and resolved with the company's settings (everything a job row
   * holds but the file): BAD_ARGUMENT, FORBIDDEN, … as for an upload. The live-call edge checks a
   * call with it before the upgrade.
   */
  prepare(req: Omit<SubmitRequest, 'file' | 'move' | 'zpass'>): PreparedRequest {
    const output = (req.output || 'json') as OutputFormat;
    if (!OUTPUT_FORMATS.includes(output)) throw invalidParameter('output', `one of ${OUTPUT_FORMATS.join(', ')}`, req.output);
    if (req.callback) checkCallbackUrl(req.callback);
    if (req.callbackerror) checkCallbackUrl(req.callbackerror);
    const metadata = parseMetadata(req.metadata);
    const datetime = parseDatetime(req.datetime);
    const { company } = req.destination;
    this.#d.tenancy.requireScope(company, req.destination.org, req.destination.folder);
    const model = this.#d.tenancy.resolveModel(company, req.model, this.#d.installedModels());
    const options = resolveRequestOptions(req.options ?? {}, this.#settings(company), company);
    // Under redaction (asked or the company's policy) the client's metadata is kept redacted only.
    const client = this.clientText(company, req.options);
    const warning = req.ignored && req.ignored.length > 0 ? `parameters not implemented and ignored: ${req.ignored.join(', ')}` : undefined;
    return { destination: req.destination, output, callback: req.callback || undefined, callbackError: req.callbackerror || undefined, metadata: client.metadata(metadata), datetime, model, options, warning };
  }

  /**
   * Validates, stores the upload and the job durably, queues it, and returns its request id. Under
   * redaction (asked or the company's policy) the file name and metadata are stored redacted, and
   * an error's message is redacted before it leaves (redact/client-policy.ts).
   */
  async submit(req: SubmitRequest): Promise<string> {
    let target: string | undefined;
    let copy: string | undefined;
    const client = this.clientText(req.destination.company, req.options);
    try {
      await this.checkCapacity();
      const prepared = this.prepare(req);
      const source = client.text(req.file.name);
      if (req.file.size > this.#d.config.maxUploadBytes) {
        throw voxdexError('TOO_LARGE', `The file is larger than the limit of ${Math.round(this.#d.config.maxUploadBytes / 1048576)} MiB`);
      }
      const disk = { dir: this.#d.config.dataDir, reserveBytes: this.#d.config.queue.minFreeDiskBytes };
      const upload = req.move ? this.#d.seal.open(req.file.path) : fileSource(req.file.path);
      const probe = await probeUpload(upload, { zpass: req.zpass || undefined, disk, transcode: this.#d.config.transcode }, this.#d.config.archive).finally(() => upload.close());
      // The recording's own bytes (a sealed upload is read through its seal), as the drop folder hashes them.
      const contentHash = req.sha256 ?? (await sha256Of(upload).finally(() => upload.close()));
      const id = randomUUID();
      const key = this.#d.blobs.uploadKey(id, safeName(source));
      if (!req.move) {
        copy = path.join(this.#d.paths.incoming, `${id}.copy`);
        mkdirSync(this.#d.paths.incoming, { recursive: true });
        await this.#d.seal.sealFile(upload, copy);
        await upload.close();
      }
      target = key;
      await this.#d.blobs.putFile(key, copy ?? req.file.path);
      const job = await this.#d.store.create({
        ...prepared,
        id,
        source,
        kind: probe.kind === 'wav' || probe.kind === 'coded' ? 'audio' : 'archive',
        uploadPath: key,
        zpass: req.zpass || undefined,
        sizeBytes: req.file.size,
        contentHash,
      });
      this.#d.onAccepted?.(job);
      return id;
    } catch (err) {
      if (req.move) rmSync(req.file.path, { force: true });
      if (copy) rmSync(copy, { force: true });
      if (target) await this.#d.blobs.delete(target).catch(() => undefined); // stored but not committed: never acknowledged
      throw client.active && err instanceof VoxdexError ? redactedError(err, client) : err;
    }
  }

  /**
   * A live call's recording, finished (src/live/): stored as its upload and its job created, under the
   * id its client was given at the start, whether or not the service still accepts new requests (the
   * call was accepted when it started). Idempotent: a job that exists already is returned as it is.
   * The caller queues it.
   */
  async submitLive(prepared: PreparedRequest, call: { id: string; key: string; file: string | undefined; name: string; size: number }): Promise<Job> {
    const existing = await this.#d.store.get(call.id);
    if (existing) return existing;
    // undefined: the file was stored under `key` before a crash, the job not yet created.
    if (call.file !== undefined) await this.#d.blobs.putFile(call.key, call.file);
    return this.#d.store.create({ ...prepared, id: call.id, source: call.name, kind: 'audio', uploadPath: call.key, sizeBytes: call.size, priority: LIVE_PRIORITY });
  }

  /** The key a live call's recording will be stored under (fixed at its start, kept in its manifest). */
  liveUploadKey(id: string, name: string): string {
    return this.#d.blobs.uploadKey(id, safeName(name));
  }

  /** How a request's client text is written: redacted under the company's policy or when `fields` ask for redaction. */
  clientText(company: string, fields: RedactionFields = {}): ClientText {
    return clientTextUnderPolicy(this.#settingsOrNone(company), fields);
  }

  /** The company's settings, or none when it does not exist (the request fails on its scope). */
  #settingsOrNone(company: string): CompanySettings {
    try {
      return this.#settings(company);
    } catch {
      return {};
    }
  }
}

/** The error with its message (and stack) redacted: an invalid metadata value is quoted in it. */
function redactedError(err: VoxdexError, client: ClientText): VoxdexError {
  err.message = client.text(err.message);
  if (err.stack) err.stack = client.text(err.stack);
  return err;
}

/** A request's fields after validation and company policy: a job row without its file. */
export type PreparedRequest = Pick<Job, 'destination' | 'output' | 'callback' | 'callbackError' | 'metadata' | 'datetime' | 'model' | 'warning'> & { options: RequestOptions };

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
