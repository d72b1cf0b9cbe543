/**
 * Delivers due callbacks from the outbox: signs the exact multipart bytes, POSTs them, records the
 * attempt, and reschedules per the retry policy (backoff.ts). One timer, woken on enqueue; at most
 * `concurrency` deliveries in flight. On start it resumes whatever a previous process left.
 */
import { readFile } from 'node:fs/promises';
import type { Config } from '../config.js';
import { silentLogger, type Logger } from '../log.js';
import { DEFAULT_JITTER, isDelivered, nextDelay, shouldRetry, type BackoffOptions, type DeliveryOutcome } from './backoff.js';
import { buildMultipart } from './multipart-body.js';
import type { CallbackOutbox, DeliveryRow } from '../store/outbox.js';
import { postOnce } from './post-once.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

interface DispatcherOptions {
  outbox: CallbackOutbox;
  config: Pick<Config, 'callback'>;
  log?: Logger;
  /** The company's current callback secret (takes precedence over the one stored at enqueue). */
  secretFor?: (company: string) => string | undefined;
  /** Deliveries in flight at once (default 4). */
  concurrency?: number;
  /** Jitter fraction for the backoff (default 0.2). */
  jitter?: number;
  random?: () => number;
  /** Longest sleep between looks at the outbox, to pick up rows written by another process (default 30 s). */
  pollMs?: number;
  /** Called after every attempt (observability and tests). */
  onAttempt?: (event: AttemptEvent) => void;
  /** Reads a body stored by reference (a result file's blob key); undefined when it is gone. Default: a file path. */
  readBody?: (ref: string) => Promise<Buffer | undefined>;
  /**
   * Several dispatchers on one shared outbox (distributed mode): also take back, this often, attempts
   * left in flight by a node that died (their lease ended). Default: only at start.
   */
  recoverEveryMs?: number;
}

export interface AttemptEvent {
  delivery: string;
  requestid: string;
  kind: DeliveryRow['kind'];
  attempt: number;
  outcome: DeliveryOutcome;
  state: 'delivered' | 'failed' | 'pending';
  nextAt?: number;
}

export class CallbackDispatcher {
  readonly #o: Required<Pick<DispatcherOptions, 'concurrency' | 'pollMs' | 'random'>> & DispatcherOptions;
  readonly #log: Logger;
  readonly #active = new Map<string, Promise<void>>();
  #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #ticking: Promise<void> | undefined;
  #unsubscribe: (() => void) | undefined;
  #recoverTimer: NodeJS.Timeout | undefined;

  constructor(options: DispatcherOptions) {
    this.#o = { concurrency: 4, pollMs: 30_000, random: Math.random, ...options };
    this.#log = options.log ?? silentLogger;
  }

  get backoff(): BackoffOptions {
    const c = this.#o.config.callback;
    return { baseDelayMs: c.baseDelayMs, maxDelayMs: c.maxDelayMs, jitter: this.#o.jitter ?? DEFAULT_JITTER };
  }

  /** Resumes interrupted deliveries and starts delivering. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#abort = new AbortController();
    const recovered = await this.#o.outbox.recoverInflight();
    if (recovered > 0) this.#log.info({ recovered }, 'resuming callbacks interrupted by the last stop');
    if (!this.#running) return; // stopped meanwhile
    this.#unsubscribe = this.#o.outbox.onEnqueue(() => this.wake());
    if (this.#o.recoverEveryMs) {
      this.#recoverTimer = setInterval(() => {
        this.#o.outbox.recoverInflight().then(
          (n) => {
            if (n > 0) {
              this.#log.info({ recovered: n }, 'took back callbacks left in flight by a node that stopped');
              this.wake();
            }
          },
          (err) => this.#log.warn({ err }, 'looking for abandoned callbacks failed'),
        );
      }, this.#o.recoverEveryMs);
      this.#recoverTimer.unref();
    }
    this.wake();
  }

  /** Looks at the outbox now. */
  wake(): void {
    if (!this.#running) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), 0);
  }

  /**
   * Stops taking new work and waits up to `graceMs` for deliveries in flight; those still running are
   * aborted and go back to pending (delivered again after the next start, same delivery id).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    clearInterval(this.#recoverTimer);
    this.#unsubscribe?.();
    await this.#ticking;
    const all = Promise.allSettled([...this.#active.values()]);
    let t: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => (t = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(t);
    if (timedOut) {
      this.#abort.abort();
      await all;
    }
  }

  #tick(): void {
    if (!this.#running) return;
    if (this.#ticking) {
      this.#ticking.then(() => this.wake()); // looks again once the tick in progress is done
      return;
    }
    this.#ticking = this.#look()
      .catch((err) => {
        this.#log.error({ err }, 'reading the callback outbox failed; retrying');
        this.#sleep(this.#o.pollMs);
      })
      .finally(() => (this.#ticking = undefined));
  }

  #sleep(ms: number): void {
    if (!this.#running) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#tick(), ms);
    this.#timer.unref();
  }

  async #look(): Promise<void> {
    const now = Date.now();
    const free = this.#o.concurrency - this.#active.size;
    if (free > 0) {
      for (const row of await this.#o.outbox.due(now, free)) {
        if (!this.#running) return;
        const attempt = await this.#o.outbox.claim(row.id, now);
        if (attempt === 0) continue;
        const p = this.#attempt(row, attempt)
          .catch((err) => this.#log.error({ err, delivery: row.id }, 'callback attempt crashed'))
          .finally(() => {
            this.#active.delete(row.id);
            this.wake();
          });
        this.#active.set(row.id, p);
      }
    }
    const next = await this.#o.outbox.nextDueAt();
    const wait = next === undefined ? this.#o.pollMs : Math.min(this.#o.pollMs, Math.max(0, next - Date.now()));
    if (this.#active.size >= this.#o.concurrency && next !== undefined && next <= Date.now()) return; // a finishing delivery wakes us
    this.#sleep(wait);
  }

  async #attempt(row: DeliveryRow, attempt: number): Promise<void> {
    const started = Date.now();
    const maxAttempts = this.#o.config.callback.attempts;
    const outcome = await this.#post(row, attempt);
    const durationMs = Date.now() - started;
    let state: 'delivered' | 'failed' | 'pending';
    let nextAt: number | undefined;
    if (isDelivered(outcome)) state = 'delivered';
    else if (outcome.type === 'network' && outcome.code === 'ABORTED') {
      state = 'pending'; // shutdown: try again right after the next start
      nextAt = Date.now();
    } else if (shouldRetry(outcome, attempt, maxAttempts)) {
      state = 'pending';
      nextAt = Date.now() + nextDelay(outcome, attempt, this.backoff, this.#o.random);
    } else state = 'failed';
    const error = describeFailure(outcome, state, attempt);
    await this.#o.outbox.settle(row.id, attempt, {
      status: outcome.type === 'response' ? outcome.status : undefined,
      error,
      durationMs,
      state,
      nextAt,
    });
    const fields = { delivery: row.id, requestid: row.requestid, kind: row.kind, attempt, state, error };
    if (state === 'failed') this.#log.warn(fields, 'callback failed permanently');
    else if (state === 'pending') this.#log.info({ ...fields, nextAt: new Date(nextAt!).toISOString() }, 'callback attempt failed; will retry');
    else this.#log.debug(fields, 'callback delivered');
    this.#o.onAttempt?.({ delivery: row.id, requestid: row.requestid, kind: row.kind, attempt, outcome, state, nextAt });
  }

  async #post(row: DeliveryRow, attempt: number): Promise<DeliveryOutcome> {
    const secret = this.#o.secretFor?.(row.company) ?? row.secret ?? undefined;
    if (!secret) return { type: 'refused', message: `no callback secret for company ${row.company}` };
    let data: Buffer | undefined;
    try {
      data = row.body ?? (this.#o.readBody ? await this.#o.readBody(row.body_path!) : await readFile(row.body_path!));
    } catch (err) {
      // Object storage unreachable: retried like a network failure (the body is still there).
      if ((err as { retryable?: boolean }).retryable) return { type: 'network', code: 'NETWORK', message: (err as Error).message };
      return { type: 'refused', message: `the result file is gone (${(err as Error).message}); was the request deleted?` };
    }
    if (!data) return { type: 'refused', message: `the result file is gone (${row.body_path}); was the request deleted?` };
    const { body, contentType } = buildMultipart(
      { requestid: row.requestid },
      { name: 'file', filename: row.filename, contentType: row.content_type, data },
      `voxdex-${row.id.replace(/-/g, '')}`,
    );
    return postOnce({
      url: row.url,
      body,
      headers: {
        'content-type': contentType,
        'x-voxdex-request-id': row.requestid,
        'x-voxdex-delivery': row.id,
        'x-voxdex-attempt': String(attempt),
        [SIGNATURE_HEADER]: signatureHeader(body, secret),
      },
      connectTimeoutMs: this.#o.config.callback.connectTimeoutMs,
      responseTimeoutMs: this.#o.config.callback.responseTimeoutMs,
      signal: this.#abort.signal,
    });
  }
}

function describeFailure(outcome: DeliveryOutcome, state: string, attempt: number): string | undefined {
  if (state === 'delivered') return undefined;
  const what =
    outcome.type === 'response' ? `HTTP ${outcome.status}` : outcome.type === 'network' ? `${outcome.code}: ${outcome.message}` : `refused: ${outcome.message}`;
  return state === 'failed' && outcome.type !== 'refused' && shouldRetry(outcome) ? `${what} (gave up after ${attempt} attempt${attempt === 1 ? '' : 's'})` : what;
}
