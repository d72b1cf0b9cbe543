/**
 * One delivery attempt: POST the exact body bytes to the URL and report what happened as a
 * DeliveryOutcome. Uses node:http(s) directly so the resolved address can be checked on the socket
 * that is actually opened (guardedLookup) and so connect and response time out separately.
 * Redirects are not followed (a 3xx counts as a failed attempt).
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { parseRetryAfter, type DeliveryOutcome } from './backoff.js';
import { checkCallbackUrl, guardedLookup } from './url-guard.js';
import { VoxdexError } from '../errors.js';

interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  signal?: AbortSignal;
}

class AttemptError extends Error {
  constructor(
    readonly code: 'CONNECT_TIMEOUT' | 'RESPONSE_TIMEOUT' | 'ABORTED',
    message: string,
  ) {
    super(message);
  }
}

export function postOnce(opts: PostOptions): Promise<DeliveryOutcome> {
  let url: URL;
  try {
    url = checkCallbackUrl(opts.url);
  } catch (err) {
    return Promise.resolve({ type: 'refused', message: err instanceof VoxdexError ? err.message : String(err) });
  }
  return new Promise<DeliveryOutcome>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: DeliveryOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      headers: { ...opts.headers, 'content-length': String(opts.body.byteLength), 'user-agent': 'voxdex-callback/1', connection: 'close' },
      lookup: guardedLookup as unknown as http.RequestOptions['lookup'],
      agent: false,
    });
    const onAbort = () => req.destroy(new AttemptError('ABORTED', 'delivery aborted: the service is shutting down'));
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    timer = setTimeout(
      () => req.destroy(new AttemptError('CONNECT_TIMEOUT', `no connection within ${opts.connectTimeoutMs} ms`)),
      opts.connectTimeoutMs,
    );
    const startResponseTimer = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => req.destroy(new AttemptError('RESPONSE_TIMEOUT', `no complete response within ${opts.responseTimeoutMs} ms`)),
        opts.responseTimeoutMs,
      );
    };
    req.on('socket', (socket: Socket) => {
      if (!socket.connecting) startResponseTimer();
      else socket.once('connect', startResponseTimer);
    });
    req.on('response', (res) => {
      res.on('data', () => {}); // drain; the receiver's body is not used
      res.on('end', () => {
        const ra = res.headers['retry-after'];
        finish({ type: 'response', status: res.statusCode ?? 0, retryAfterMs: parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, Date.now()) });
      });
      res.on('error', (err) => onError(err));
    });
    const onError = (err: Error) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (err instanceof AttemptError) finish({ type: 'network', code: err.code, message: err.message });
      else if (code === 'EFORBIDDENADDR') finish({ type: 'refused', message: err.message });
      else finish({ type: 'network', code: 'NETWORK', message: `${code ? `${code}: ` : ''}${err.message}` });
    };
    req.on('error', onError);
    req.end(opts.body);
  });
}
