/**
 * `/transcribe` (API.md §2, §3): submit, status/result, signed download, cancel, delete.
 * Validation at the edge; accepting is the intake's, cancelling and deleting the runner's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, rmSync, statSync } from 'node:fs';
import { toVoxdexError, voxdexError } from '../errors.js';
import { isUuid } from '../is.js';
import type { JobIntake } from '../jobs/intake.js';
import type { JobRunner } from '../jobs/runner.js';
import type { StatusBody } from '../jobs/status.js';
import { resultMime } from '../stages/result-file.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { Principal, Tenancy } from '../tenancy/tenancy.js';
import type { Access } from './auth.js';
import { checkShortName } from '../tenancy/tenancy.js';
import { readFields, readUpload } from './multipart.js';
import type { RateLimiter } from './rate-limit.js';
import { queryValue, sendJson, type Req, type Res, type RouteTable } from './server.js';

export interface TranscribeRouteDeps {
  intake: Pick<JobIntake, 'checkCapacity' | 'submit'>;
  runner: Pick<JobRunner, 'cancel' | 'remove'>;
  status: (job: Job) => Promise<StatusBody>;
  store: JobStore;
  access: Access;
  tenancy: Pick<Tenancy, 'defaultDestination'>;
  /** Secret for signed result URLs. */
  urlSecret: string;
  resultUrlTtlSec: number;
  maxUploadBytes: number;
  incomingDir: string;
  /** Per-company limit on POST /transcribe (RATE_LIMITED, 429); absent = none. */
  rateLimit?: RateLimiter;
}

const RESULT_PARAMS = ['token', 'requestid', 'inline'];

export function mountTranscribeRoutes(routes: RouteTable, d: TranscribeRouteDeps): void {
  const submit = async (req: Req, res: Res, path: { company?: string; org?: string; folder?: string }) => {
    let form: Awaited<ReturnType<typeof readUpload>>;
    let early: { token: string; principal: Principal } | undefined;
    try {
      await d.intake.checkCapacity();
      // A token in the query string lets an over-limit client be refused before its upload is read.
      const token = d.rateLimit && queryValue(req, 'token');
      const principal = token ? tryAuthenticate(d.access, token) : undefined;
      if (principal) {
        early = { token: token as string, principal };
        d.rateLimit!.check(principal);
      }
      form = await readUpload(req, { tmpDir: d.incomingDir, maxBytes: d.maxUploadBytes });
    } catch (err) {
      // Refused before the body was read: close the connection rather than drain the upload.
      const e = toVoxdexError(err);
      if (!req.complete) e.closeConnection = true;
      throw e;
    }
    const p = form.params;
    try {
      let company = '';
      const principal = await d.access.check(early && early.token === p.token ? early.principal : p.token, (who) => {
        if (path.company !== undefined) company = checkShortName('company', path.company);
        else if (who.kind === 'company') company = who.company;
        else throw voxdexError('BAD_ARGUMENT', 'The root token must name the destination: POST /transcribe/{CO_SHORT}/{ORG_SHORT}/{FOLDERNAME}');
        return { company };
      });
      const destination =
        path.org !== undefined && path.folder !== undefined
          ? { company, org: checkShortName('org', path.org), folder: checkShortName('folder', path.folder) }
          : d.tenancy.defaultDestination(company);
      if (!form.file) throw voxdexError('BAD_ARGUMENT', 'No file: send the audio file or zip/7z archive in the multipart form field "file"');
      d.rateLimit?.check(principal);
      const requestid = await d.intake.submit({
        destination,
        file: form.file,
        move: true,
        model: p.model,
        output: p.output,
        callback: p.callback,
        callbackerror: p.callbackerror,
        metadata: p.metadata,
        datetime: p.datetime,
        zpass: p.zpass,
        ignored: form.ignored,
      });
      d.rateLimit?.charge(principal);
      sendJson(res, 200, { requestid });
    } catch (err) {
      if (form.file) rmSync(form.file.path, { force: true });
      throw err;
    }
  };
  routes.add('POST', '/transcribe', (req, res) => submit(req, res, {}));
  routes.add('POST', '/transcribe/:org/:folder', (req, res) => {
    // `/transcribe/{requestid}/cancel` shares this shape; polka matches the first route added.
    if (isUuid(req.params.org) && req.params.folder === 'cancel') return cancel(req, res, req.params.org!);
    return submit(req, res, { org: req.params.org, folder: req.params.folder });
  });
  routes.add('POST', '/transcribe/:company/:org/:folder', (req, res) =>
    submit(req, res, { company: req.params.company, org: req.params.org, folder: req.params.folder }),
  );

  /** Token (and requestid where the path has none) from the query string or a form body. */
  const lookup = async (req: Req, pathId?: string): Promise<{ job: Job; principal: Principal; params: Record<string, string> }> => {
    const params = await readFields(req, RESULT_PARAMS);
    const id = pathId ?? params.requestid;
    let job: Job | undefined;
    const principal = await d.access.check(params.token, async () => {
      if (!isUuid(id)) throw voxdexError('BAD_ARGUMENT', `Expected the requestid returned by POST /transcribe (a UUID) but received ${JSON.stringify(id ?? '')}`);
      job = await d.store.get(id);
      if (!job) throw voxdexError('NOT_FOUND', `Request ${id} does not exist (or was deleted)`);
      return { company: job.destination.company };
    });
    return { job: job!, principal, params };
  };

  const result = async (req: Req, res: Res, id: string | undefined, mode: 'url' | 'file') => {
    const { job, params } = await lookup(req, id);
    if (job.state === 'queued' || job.state === 'running') return sendJson(res, 202, await d.status(job));
    if (job.state !== 'done' || !job.resultPath) {
      const status = await d.status(job);
      const error = job.error ?? { code: 'REQUEST_FAILED', message: 'The request failed' };
      return sendJson(res, 422, { ...status, error: { code: job.state === 'cancelled' ? 'CANCELLED' : error.code, message: error.message } });
    }
    if (mode === 'file' || params.inline === 'true') return sendFile(res, job);
    const expires = Math.floor(Date.now() / 1000) + d.resultUrlTtlSec;
    const proto = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
    const host = req.headers.host ?? 'localhost';
    const url = `${proto}://${host}/transcribe/download/${job.id}?expires=${expires}&sig=${sign(d.urlSecret, job.id, expires)}`;
    sendJson(res, 200, url);
  };

  routes.add('GET', '/transcribe/result', (req, res) => result(req, res, undefined, 'url'));
  routes.add('GET', '/transcribe/result/:id', (req, res) => result(req, res, req.params.id, 'url'));
  routes.add('GET', '/transcribe/:id/result', (req, res) => result(req, res, req.params.id, 'file'));

  routes.add('GET', '/transcribe/download/:id', async (req, res) => {
    const id = req.params.id;
    const expires = Number(queryValue(req, 'expires'));
    const sig = queryValue(req, 'sig') ?? '';
    const good = isUuid(id) && Number.isSafeInteger(expires) && safeEqualHex(sig, sign(d.urlSecret, id, expires));
    if (!good) throw voxdexError('BAD_TOKEN', 'This result link is not valid; ask GET /transcribe/result for a new one');
    if (expires < Date.now() / 1000) throw voxdexError('BAD_TOKEN', 'This result link has expired; ask GET /transcribe/result for a new one');
    const job = await d.store.get(id);
    if (!job || job.state !== 'done' || !job.resultPath) throw voxdexError('NOT_FOUND', `The result of request ${id} no longer exists`);
    sendFile(res, job);
  });

  routes.add('DELETE', '/transcribe/result', async (req, res) => {
    const { job } = await lookup(req);
    await d.runner.remove(job);
    sendJson(res, 200, { requestid: job.id, deleted: true });
  });

  const cancel = async (req: Req, res: Res, id: string) => {
    const { job } = await lookup(req, id);
    const after = await d.runner.cancel(job);
    sendJson(res, 200, await d.status(after));
  };
  routes.add('POST', '/transcribe/:id/cancel', (req, res) => cancel(req, res, req.params.id!));
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

function sendFile(res: Res, job: Job): void {
  const file = job.resultPath!;
  const size = statSync(file).size;
  const ext = file.slice(file.lastIndexOf('.') + 1);
  const base = job.kind === 'archive' ? `${job.id}.zip` : `${job.source.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_.-]/g, '_')}.${ext}`;
  res.writeHead(200, { 'Content-Type': resultMime(file), 'Content-Length': size, 'Content-Disposition': `attachment; filename="${base}"` });
  createReadStream(file).pipe(res);
}
