/**
 * `/transcribe` (docs/service.md, "Accepting a request" and "Results"): submit, status/result, signed download, cancel, delete,
 * callbacks sent again (docs/callbacks.md).
 * Validation at the edge; accepting is the intake's, cancelling and deleting the runner's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { BlobStore } from '../blobs/blob-store.js';
import { resendCallbacks } from '../callbacks/resend.js';
import { toVoxdexError, voxdexError } from '../errors.js';
import { isUuid } from '../is.js';
import type { JobIntake, SubmitRequest } from '../jobs/job-intake.js';
import { pickRequestOptions } from '../jobs/request-options.js';
import type { JobRunner } from '../jobs/runner.js';
import { shownJob } from '../jobs/shown-job.js';
import type { StatusBody } from '../jobs/status.js';
import { resultMime } from '../render/output.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { CallbackOutbox } from '../store/outbox.js';
import type { Logger } from '../log.js';
import type { Principal, Tenancy } from '../tenancy/tenancy.js';
import type { Destination } from '../types.js';
import type { Access } from './auth.js';
import { checkShortName } from '../tenancy/tenancy.js';
import { requestToken } from './bearer.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { checkParamNames, readFields, readUpload, type UploadedFile, type UploadForm } from './upload-form.js';
import type { Limiter } from '../rate-limit/limiter.js';
import type { UploadSlots } from './upload-slots.js';
import { linkOrigin } from './public-url.js';
import { queryValue, sendJson, type Req, type Res, type RouteTable } from './server.js';

export interface TranscribeRouteDeps {
  intake: Pick<JobIntake, 'checkCapacity' | 'submit'>;
  runner: Pick<JobRunner, 'cancel' | 'remove'>;
  status: (job: Job) => Promise<StatusBody>;
  /** Where POST …/callback puts a request's callbacks back. */
  outbox: CallbackOutbox;
  log: Logger;
  store: JobStore;
  /** Where result files are (BlobStore keys in Job.resultPath). */
  blobs: BlobStore;
  access: Access;
  tenancy: Pick<Tenancy, 'defaultDestination' | 'hasCompany' | 'companySettings'>;
  /** Secret for signed result URLs. */
  urlSecret: string;
  /** VOXDEX_PUBLIC_URL: where result links point (else the request's validated Host). */
  publicUrl?: string;
  resultUrlTtlSec: number;
  maxUploadBytes: number;
  incomingDir: string;
  /** The installation's key for audio at rest: an upload is sealed as it streams in. */
  seal: AudioSeal;
  /** Per-company limit on POST /transcribe (RATE_LIMITED, 429); absent = none. */
  rateLimit?: Limiter;
  /** Per-company limit on uploads in progress (RATE_LIMITED, 429); absent = none. */
  uploadSlots?: UploadSlots;
  /** `realtime=true` in the query string: a live call over a streamed request body (live-routes.ts). */
  realtime?: (req: Req, res: Res, path: SubmitPath) => Promise<void>;
}

const RESULT_PARAMS = ['token', 'requestid', 'inline'];
const DOWNLOAD_PARAMS = ['expires', 'sig'];
const INLINE: Record<string, boolean> = { true: true, false: false, 1: true, 0: false };

export type SubmitPath = { company?: string; org?: string; folder?: string };

export function mountTranscribeRoutes(routes: RouteTable, d: TranscribeRouteDeps): void {
  routes.add('POST', '/transcribe', (req, res) => submit(d, req, res, {}));
  routes.add('POST', '/transcribe/:org/:folder', (req, res) => {
    // `/transcribe/{requestid}/cancel` and `…/callback` share this shape; polka matches the first route added.
    if (isUuid(req.params.org) && req.params.folder === 'cancel') return cancel(d, req, res, req.params.org!);
    if (isUuid(req.params.org) && req.params.folder === 'callback') return resend(d, req, res, req.params.org!);
    return submit(d, req, res, { org: req.params.org, folder: req.params.folder });
  });
  routes.add('POST', '/transcribe/:company/:org/:folder', (req, res) =>
    submit(d, req, res, { company: req.params.company, org: req.params.org, folder: req.params.folder }),
  );
  routes.add('GET', '/transcribe/result', (req, res) => result(d, req, res, undefined, 'url'));
  routes.add('GET', '/transcribe/result/:id', (req, res) => result(d, req, res, req.params.id, 'url'));
  routes.add('GET', '/transcribe/:id/result', (req, res) => result(d, req, res, req.params.id, 'file'));
  routes.add('GET', '/transcribe/download/:id', (req, res) => download(d, req, res));
  routes.add('DELETE', '/transcribe/result', (req, res) => remove(d, req, res));
  routes.add('POST', '/transcribe/:id/cancel', (req, res) => cancel(d, req, res, req.params.id!));
  routes.add('POST', '/transcribe/:id/callback', (req, res) => resend(d, req, res, req.params.id!));
}

/** An early look at the token: the upload slot it holds and the rate limit it is checked against. */
interface Admission {
  early?: { token: string; principal: Principal };
  release: () => void;
}

/** POST /transcribe[/…]: the form (token looked at as soon as it is known), then the intake. */
async function submit(d: TranscribeRouteDeps, req: Req, res: Res, path: SubmitPath): Promise<void> {
  if (d.realtime && ['true', '1'].includes(queryValue(req, 'realtime') ?? '')) return d.realtime(req, res, path);
  const admission: Admission = { release: () => {} };
  res.once('close', () => admission.release());
  const form = await readForm(d, req, admission);
  try {
    const token = requestToken(req, form.params.token);
    const { principal, destination } = await destinationOf(d, path, admission.early && admission.early.token === token ? admission.early.principal : token);
    if (!form.file) throw voxdexError('BAD_ARGUMENT', 'No file: send the audio file or zip/7z archive in the multipart form field "file"');
    await d.rateLimit?.check(principal);
    const requestid = await d.intake.submit(submitRequest(form, form.file, destination));
    await d.rateLimit?.charge(principal);
    sendJson(res, 200, { requestid });
  } catch (err) {
    if (form.file) rmSync(form.file.path, { force: true });
    throw err;
  }
}

/**
 * Reads the upload form. The token as soon as it is known (query string, or the form field as it
 * streams in): over-limit clients are refused before their upload is read, and the upload holds one
 * of its company's slots.
 */
async function readForm(d: TranscribeRouteDeps, req: Req, admission: Admission): Promise<UploadForm> {
  const admit = async (token: string) => {
    if (admission.early) return;
    const principal = tryAuthenticate(d.access, token);
    if (!principal) return; // reported with the full request's checks
    admission.early = { token, principal };
    if (d.uploadSlots) admission.release = d.uploadSlots.acquire(principal);
    await d.rateLimit?.check(principal);
  };
  try {
    await d.intake.checkCapacity();
    const queryToken = requestToken(req, queryValue(req, 'token'));
    if (queryToken) await admit(queryToken);
    return await readUpload(req, {
      tmpDir: d.incomingDir,
      seal: d.seal,
      maxBytes: d.maxUploadBytes,
      onField: async (name, value) => {
        if (name === 'token' && value) await admit(value);
      },
    });
  } catch (err) {
    // Refused before the body was read: close the connection rather than drain the upload.
    const e = toVoxdexError(err);
    if (!req.complete) e.closeConnection = true;
    throw e;
  }
}

/** Authorizes the token for the company of the path (or its own) and resolves the destination folder. */
export async function destinationOf(d: Pick<TranscribeRouteDeps, 'access' | 'tenancy'>, path: SubmitPath, token: string | Principal | undefined): Promise<{ principal: Principal; destination: Destination }> {
  let company = '';
  const principal = await d.access.check(token, (who) => {
    if (path.company !== undefined) company = checkShortName('company', path.company);
    else if (who.kind === 'company') company = who.company;
    else throw voxdexError('BAD_ARGUMENT', 'The root token must name the destination: POST /transcribe/{CO_SHORT}/{ORG_SHORT}/{FOLDERNAME}');
    return { company };
  });
  const destination =
    path.org !== undefined && path.folder !== undefined
      ? { company, org: checkShortName('org', path.org), folder: checkShortName('folder', path.folder) }
      : d.tenancy.defaultDestination(company);
  return { principal, destination };
}

/** The intake's request from the form's fields (validated there). */
function submitRequest(form: UploadForm, file: UploadedFile, destination: Destination): SubmitRequest {
  const p = form.params;
  return {
    destination,
    file,
    move: true,
    model: p.model,
    output: p.output,
    callback: p.callback,
    callbackerror: p.callbackerror,
    metadata: p.metadata,
    datetime: p.datetime,
    zpass: p.zpass,
    options: pickRequestOptions(p),
    ignored: form.ignored,
  };
}

/** Token (and requestid where the path has none) from the query string or a form body. */
async function lookup(d: TranscribeRouteDeps, req: Req, pathId?: string): Promise<{ job: Job; principal: Principal; params: Record<string, string> }> {
  const params = await readFields(req, RESULT_PARAMS);
  const id = pathId ?? params.requestid;
  let job: Job | undefined;
  const principal = await d.access.check(requestToken(req, params.token), async () => {
    if (!isUuid(id)) throw voxdexError('BAD_ARGUMENT', `Expected the requestid returned by POST /transcribe (a UUID) but received ${JSON.stringify(id ?? '')}`);
    job = await d.store.get(id);
    if (!job) throw voxdexError('NOT_FOUND', `Request ${id} does not exist (or was deleted)`);
    return { company: job.destination.company };
  });
  return { job: job!, principal, params };
}

/** GET …/result: 202 with the status while not done, 422 when failed, else a signed link (`url`) or the file. */
async function result(d: TranscribeRouteDeps, req: Req, res: Res, id: string | undefined, mode: 'url' | 'file'): Promise<void> {
  const { job, params, principal } = await lookup(d, req, id);
  const inline = params.inline === undefined ? false : INLINE[params.inline];
  if (inline === undefined) throw voxdexError('BAD_ARGUMENT', `Expected true or false for inline but received ${JSON.stringify(params.inline.slice(0, 64))}`);
  if (job.state === 'queued' || job.state === 'running') return sendJson(res, 202, await d.status(job));
  if (job.state !== 'done' || !job.resultPath) {
    const status = await d.status(job);
    const error = job.error ?? { code: 'REQUEST_FAILED', message: 'The request failed' };
    return sendJson(res, 422, { ...status, error: { code: job.state === 'cancelled' ? 'CANCELLED' : error.code, message: error.message } });
  }
  await d.access.record(req, principal, { company: job.destination.company, action: 'call.open', target: job.id, detail: { link: mode === 'url' && !inline } });
  if (mode === 'file' || inline) return sendFile(res, shownJob(job, d.tenancy), d.blobs);
  const expires = Math.floor(Date.now() / 1000) + d.resultUrlTtlSec;
  const url = `${linkOrigin(req, d.publicUrl)}/transcribe/download/${job.id}?expires=${expires}&sig=${sign(d.urlSecret, job.id, expires)}`;
  sendJson(res, 200, url);
}

/** GET /transcribe/download/{id}: the result file through a signed, expiring link (no token). */
async function download(d: TranscribeRouteDeps, req: Req, res: Res): Promise<void> {
  checkParamNames(Object.keys(req.query ?? {}), DOWNLOAD_PARAMS, []);
  const id = req.params.id;
  const expires = Number(queryValue(req, 'expires'));
  const sig = queryValue(req, 'sig') ?? '';
  // Expiry first: a link past its time is expired whatever else is wrong with it (the time is in the link, nothing leaks).
  if (Number.isSafeInteger(expires) && expires < Date.now() / 1000) {
    throw voxdexError('BAD_TOKEN', `This result link expired at ${new Date(expires * 1000).toISOString()}; ask GET /transcribe/result for a new one`);
  }
  const good = isUuid(id) && Number.isSafeInteger(expires) && safeEqualHex(sig, sign(d.urlSecret, id, expires));
  if (!good) throw voxdexError('BAD_TOKEN', 'This result link is not valid (its signature does not match); ask GET /transcribe/result for a new one');
  const job = await d.store.get(id);
  if (!job || job.state !== 'done' || !job.resultPath) throw voxdexError('NOT_FOUND', `The result of request ${id} no longer exists`);
  await sendFile(res, shownJob(job, d.tenancy), d.blobs);
}

/** DELETE /transcribe/result. */
async function remove(d: TranscribeRouteDeps, req: Req, res: Res): Promise<void> {
  const { job } = await lookup(d, req);
  await d.runner.remove(job);
  sendJson(res, 200, { requestid: job.id, deleted: true });
}

/** POST /transcribe/{id}/cancel: ALREADY_FINISHED when there was nothing to cancel. */
async function cancel(d: TranscribeRouteDeps, req: Req, res: Res, id: string): Promise<void> {
  const { job } = await lookup(d, req, id);
  // Finished before (or while) the cancel arrived: nothing was cancelled, and the client must know.
  const finished = (state: Job['state']) =>
    voxdexError('ALREADY_FINISHED', `Request ${job.id} is already ${state}; nothing was cancelled. Delete it with DELETE /transcribe/result if it is not wanted.`);
  if (job.state !== 'queued' && job.state !== 'running') throw finished(job.state);
  const after = await d.runner.cancel(job);
  if (after.state !== 'cancelled') throw finished(after.state);
  sendJson(res, 200, await d.status(after));
}

/** POST …/callback: the request's callbacks sent again (docs/callbacks.md); 202 with the status, its callbacks pending. */
async function resend(d: TranscribeRouteDeps, req: Req, res: Res, id: string): Promise<void> {
  const { job, principal } = await lookup(d, req, id);
  await resendCallbacks(d.outbox, job, d.log, principal.kind === 'root' ? 'root' : 'company');
  sendJson(res, 202, await d.status(job));
}

function tryAuthenticate(access: Access, token: string): Principal | undefined {
  try {
    return access.authenticate(token);
  } catch {
    return undefined; // reported with the full request's checks
  }
}

function sign(secret: string, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}.${expires}`).digest('hex');
}

function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

async function sendFile(res: Res, job: Job, blobs: BlobStore): Promise<void> {
  const key = job.resultPath!;
  const file = await blobs.open(key);
  if (!file) throw voxdexError('NOT_FOUND', `The result of request ${job.id} no longer exists`);
  const ext = key.slice(key.lastIndexOf('.') + 1);
  const base = job.kind === 'archive' ? `${job.id}.zip` : `${job.source.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_.-]/g, '_')}.${ext}`;
  res.writeHead(200, { 'Content-Type': resultMime(key), 'Content-Length': file.size, 'Content-Disposition': `attachment; filename="${base}"` });
  file.stream.on('error', () => res.destroy());
  file.stream.pipe(res);
}
