/**
 * Sending a request's callbacks again, by hand (docs/callbacks.md, "Sending a callback again"): the
 * one place the HTTP route and `voxdex callback resend` share, checks and log line included.
 */
import { voxdexError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Job } from '../store/job-store.js';
import type { CallbackOutbox } from '../store/outbox.js';

/** Who asked, for the log: `root`, `company`, `cli`. */
export type ResendBy = 'root' | 'company' | 'cli';

/**
 * Puts every callback of a finished request back in the outbox, due now (the dispatcher sends it
 * with its delivery id and the next attempt number). NO_CALLBACK (409) when there is none to send:
 * the request named no callback URL, has not finished, or its callback is being sent right now.
 * Resolves to how many deliveries were put back.
 */
export async function resendCallbacks(outbox: CallbackOutbox, job: Pick<Job, 'id' | 'destination' | 'state'>, log: Logger, by: ResendBy): Promise<number> {
  if (job.state === 'queued' || job.state === 'running') {
    throw voxdexError('NO_CALLBACK', `Request ${job.id} is still ${job.state}; its callback is sent when it finishes.`);
  }
  const before = await outbox.deliveries(job.id);
  if (before.length === 0) {
    throw voxdexError('NO_CALLBACK', `Request ${job.id} has no callback to send again: it named no callback URL.`);
  }
  const n = await outbox.resend(job.id);
  if (n === 0) throw voxdexError('NO_CALLBACK', `The callback of request ${job.id} is being sent right now; look at its status for the outcome.`);
  log.info({ requestid: job.id, company: job.destination.company, deliveries: n, kinds: before.map((d) => d.kind), by }, 'callback resend asked');
  return n;
}
