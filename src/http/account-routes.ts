/**
 * What a token may see (ours, docs/ui.md): the web UI signs in with these, and API clients can use
 * them too. Token from the query string, a form body or `Authorization: Bearer`.
 *
 *   GET /account              → the token's companies with their orgs, folders, default destination,
 *                               the models it may request and the company's settings
 *   GET /transcribe/requests  → its most recent requests, newest first, each with its status and
 *                               per-file errors (company tokens: their company only; root: all, or
 *                               one with company=)
 */
import { parseInteger } from '../is.js';
import { clientTextNow } from '../jobs/shown-job.js';
import type { StatusBody } from '../jobs/status.js';
import type { Job, JobStore } from '../store/job-store.js';
import { AUTO_MODEL, checkShortName, type Tenancy } from '../tenancy/tenancy.js';
import type { CompanySettings, Destination } from '../types.js';
import type { Access } from './auth.js';
import { requestToken } from './bearer.js';
import { readFields } from './upload-form.js';
import { sendJson, type RouteTable } from './server.js';

export interface AccountRouteDeps {
  access: Access;
  tenancy: Pick<Tenancy, 'listCompanies' | 'getCompany' | 'listOrgs' | 'listFolders' | 'companySettings' | 'hasCompany'>;
  store: JobStore;
  /** The status body of a request (as GET /transcribe/result answers while it runs). */
  status: (job: Job) => Promise<StatusBody>;
  /** Installed model names, the default first (as `voxdex models` prints them). */
  installedModels: () => string[];
}

export interface AccountCompany {
  company: string;
  defaultDestination: { org: string; folder: string };
  orgs: { org: string; folders: string[] }[];
  /** Names this company may pass as `model` on POST /transcribe (its list, else `auto` and every installed model). */
  models: string[];
  /** The company's redaction policy, option defaults and vocabulary (voxdex company set, voxdex vocab). */
  settings: CompanySettings;
}

/** GET /account. */
export interface AccountBody {
  principal: 'root' | 'company';
  company?: string;
  companies: AccountCompany[];
  installedModels: string[];
}

export interface RequestSummary extends StatusBody {
  source: string;
  kind: Job['kind'];
  destination: Destination;
  model: string;
  datetime: string;
  created: string;
  started?: string;
  finished?: string;
  /** The files that failed, with why. */
  fileErrors: { file: string; error: { code: string; message: string } }[];
  /** The same recording (same sha256) was sent to the company before, as this request (the first of them). */
  duplicateOf?: { requestid: string; source: string; created: string };
}

export const DEFAULT_REQUESTS = 50;
export const MAX_REQUESTS = 200;

export function mountAccountRoutes(routes: RouteTable, d: AccountRouteDeps): void {
  routes.add('GET', '/account', async (req, res) => {
    const params = await readFields(req, ['token']);
    const principal = d.access.authenticate(requestToken(req, params.token));
    const names = principal.kind === 'root' ? d.tenancy.listCompanies().map((c) => c.company) : [principal.company];
    const companies: AccountCompany[] = names.map((name) => {
      const info = d.tenancy.getCompany(name);
      return {
        company: name,
        defaultDestination: { org: info.defaultOrg, folder: info.defaultFolder },
        orgs: d.tenancy.listOrgs(name).map((org) => ({ org, folders: d.tenancy.listFolders(name, org) })),
        models: info.models.length > 0 ? info.models : [...new Set([AUTO_MODEL, ...d.installedModels()])],
        settings: d.tenancy.companySettings(name),
      };
    });
    const body: AccountBody = {
      principal: principal.kind,
      ...(principal.kind === 'company' ? { company: principal.company } : {}),
      companies,
      installedModels: d.installedModels(),
    };
    sendJson(res, 200, body, { 'Cache-Control': 'no-store' });
  });

  routes.add('GET', '/transcribe/requests', async (req, res) => {
    const params = await readFields(req, ['token', 'company', 'limit', 'offset']);
    const token = requestToken(req, params.token);
    let company: string | undefined;
    if (params.company !== undefined) {
      company = checkShortName('company', params.company);
      await d.access.check(token, () => ({ company: company! }));
      d.tenancy.getCompany(company); // an unknown company is 404, not an empty list
    } else {
      const principal = d.access.authenticate(token);
      if (principal.kind === 'company') company = principal.company;
    }
    const limit = params.limit === undefined ? DEFAULT_REQUESTS : parseInteger('limit', params.limit, 1, MAX_REQUESTS);
    const offset = params.offset === undefined ? 0 : parseInteger('offset', params.offset, 0, 10_000_000);
    const jobs = await d.store.listRecent({ company, limit: limit + 1, offset });
    const requests = await Promise.all(jobs.slice(0, limit).map((job) => summarize(d, job)));
    sendJson(res, 200, { requests, offset, limit, more: jobs.length > limit }, { 'Cache-Control': 'no-store' });
  });
}

async function summarize(d: AccountRouteDeps, job: Job): Promise<RequestSummary> {
  const items = await d.store.items(job.id);
  // A job accepted before its company's redaction policy shows the client's names redacted now.
  const client = clientTextNow(job, d.tenancy);
  const out: RequestSummary = {
    ...(await d.status(job)),
    source: client.text(job.source),
    kind: job.kind,
    destination: job.destination,
    model: job.model,
    datetime: job.datetime,
    created: job.created,
    fileErrors: items.flatMap((i) => (i.state === 'failed' && i.error ? [{ file: client.text(i.member), error: client.error(i.error) }] : [])),
  };
  if (job.started) out.started = job.started;
  if (job.finished) out.finished = job.finished;
  if (out.error) out.error = client.error(out.error);
  if (job.state === 'cancelled' && out.error) out.error = { code: 'CANCELLED', message: out.error.message };
  if (job.contentHash) {
    const first = await d.store.firstWithContent(job.destination.company, job.contentHash);
    if (first && first.id !== job.id) out.duplicateOf = { requestid: first.id, source: client.text(clientTextNow(first, d.tenancy).text(first.source)), created: first.created };
  }
  return out;
}

