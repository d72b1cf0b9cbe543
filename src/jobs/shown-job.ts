/**
 * What the client sent, as a job shows it now (docs/redaction.md, "What the client sent"): a job
 * accepted before its company's redaction policy was set holds the file name and metadata as sent;
 * once the policy exists, every answer and callback about the job shows them redacted under the
 * options the job runs with (the policy floor), as the job's own outputs are.
 */
import { clientTextOf, type ClientText } from '../redact/client-policy.js';
import type { Job } from '../store/job-store.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { defaultRequestOptions, policyFloor } from './request-options.js';

type PolicyReader = Pick<Tenancy, 'hasCompany' | 'companySettings'>;

/** The client-text redaction of a job under its options as it runs now (the company's policy included). */
export function clientTextNow(job: Pick<Job, 'options' | 'destination'>, tenancy: PolicyReader): ClientText {
  const company = job.destination.company;
  const settings = tenancy.hasCompany(company) ? tenancy.companySettings(company) : {};
  return clientTextOf(policyFloor(job.options ?? defaultRequestOptions(), settings));
}

/** The job with its file name and metadata as they may be shown now. */
export function shownJob<J extends Pick<Job, 'options' | 'destination' | 'source' | 'metadata'>>(job: J, tenancy: PolicyReader): J {
  const client = clientTextNow(job, tenancy);
  if (!client.active) return job;
  return { ...job, source: client.text(job.source), metadata: client.metadata(job.metadata) };
}
