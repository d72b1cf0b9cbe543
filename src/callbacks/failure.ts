/** The error callback of a failed or cancelled request (docs/callbacks.md). */
import type { ErrorInfo } from '../errors.js';
import type { CallbackOutbox, EnqueueInput } from '../store/outbox.js';

interface FailureNotice {
  requestid: string;
  company: string;
  callback?: string;
  callbackerror?: string;
  error: ErrorInfo;
  secret?: string;
}

/**
 * The delivery notifying a failed request: to `callbackerror`, else `callback`; the `file` part is
 * {"requestid","state":"failed","error":{code,message}}. Undefined when the request named no URL.
 */
export function failureDelivery(input: FailureNotice): EnqueueInput | undefined {
  const url = input.callbackerror || input.callback;
  if (!url) return undefined;
  return {
    requestid: input.requestid,
    company: input.company,
    url,
    kind: 'error',
    body: failureBody(input.requestid, input.error),
    contentType: 'application/json',
    filename: `${input.requestid}.error.json`,
    secret: input.secret,
  };
}

/** Enqueues failureDelivery(input); resolves to the delivery id, or undefined when the request named no URL. */
export async function enqueueFailure(outbox: CallbackOutbox, input: FailureNotice, now = Date.now()): Promise<string | undefined> {
  const delivery = failureDelivery(input);
  return delivery && outbox.enqueue(delivery, now);
}

function failureBody(requestid: string, error: ErrorInfo): Buffer {
  return Buffer.from(JSON.stringify({ requestid, state: 'failed', error: { code: error.code, message: error.message } }));
}
