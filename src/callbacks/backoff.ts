/**
 * Retry policy for callback deliveries. Retries are data (attempts, base delay, cap, jitter); the
 * backoff is a pure function of the attempt number and a random draw; one function, `shouldRetry`,
 * decides whether an outcome is retried. Nothing here does I/O or reads the clock.
 */

/** What one delivery attempt came to. */
export type DeliveryOutcome =
  | { type: 'response'; status: number; retryAfterMs?: number }
  | { type: 'network'; code: 'CONNECT_TIMEOUT' | 'RESPONSE_TIMEOUT' | 'NETWORK' | 'ABORTED'; message: string }
  /** The target is not allowed (scheme, link-local or metadata address, DNS says so): never retried. */
  | { type: 'refused'; message: string };

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** 0..1: the fraction of the delay that is randomized away (0 = the exact schedule). */
  jitter: number;
  /** Growth per attempt; 3 spreads the default 10 attempts (30 s base, 8 h cap) over about 24 h. */
  factor?: number;
}

export const DEFAULT_JITTER = 0.2;
const DEFAULT_FACTOR = 3;

/**
 * Delay before retry number `attempt` (1 = the wait after the first failed attempt):
 * min(maxDelayMs, baseDelayMs × factor^(attempt-1)), then reduced by up to `jitter` of itself
 * ("subtractive" jitter, so the cap is never exceeded and deliveries of one burst spread out).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const factor = options.factor ?? DEFAULT_FACTOR;
  const exponent = Math.max(0, attempt - 1);
  const raw = options.baseDelayMs * factor ** exponent;
  const capped = Math.min(options.maxDelayMs, Number.isFinite(raw) ? raw : options.maxDelayMs);
  const jitter = Math.min(1, Math.max(0, options.jitter));
  return Math.round(capped * (1 - jitter * random()));
}

/** The published schedule without jitter: the waits between `attempts` attempts (attempts-1 entries). */
export function retrySchedule(attempts: number, options: BackoffOptions): number[] {
  return Array.from({ length: Math.max(0, attempts - 1) }, (_, i) => backoffDelay(i + 1, { ...options, jitter: 0 }));
}

export function isDelivered(outcome: DeliveryOutcome): boolean {
  return outcome.type === 'response' && outcome.status >= 200 && outcome.status < 300;
}

/**
 * The 4xx answers that say the receiver is not ready for the callback yet rather than that the
 * callback is wrong: a signature it cannot check yet (401: a secret being rotated, README's receiver),
 * an auth proxy in front of it (403), a route not deployed yet (404), a conflict (409), too early
 * (425), a timeout (408) and a rate limit (429). Any other 4xx is the receiver refusing the callback
 * itself, and sending the same bytes again cannot change that.
 */
export const RETRIED_4XX: readonly number[] = [401, 403, 404, 408, 409, 425, 429];

/**
 * The one place that decides whether to try again: not after success, not when the target is refused,
 * not on a 4xx outside RETRIED_4XX, and not once `attemptsMade` reaches `maxAttempts`. Everything
 * else (5xx, 3xx, RETRIED_4XX, timeouts, connection errors) is retried.
 */
export function shouldRetry(outcome: DeliveryOutcome, attemptsMade = 0, maxAttempts = Infinity): boolean {
  if (attemptsMade >= maxAttempts) return false;
  if (outcome.type === 'refused') return false;
  if (outcome.type === 'network') return true;
  const s = outcome.status;
  if (s >= 200 && s < 300) return false;
  if (s >= 400 && s < 500) return RETRIED_4XX.includes(s);
  return true;
}

/**
 * The wait before the next attempt. A Retry-After from the receiver is honoured when it is reasonable
 * (0 < value ≤ maxDelayMs): it can lengthen the wait, never shorten it below the backoff.
 */
export function nextDelay(outcome: DeliveryOutcome, attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const backoff = backoffDelay(attempt, options, random);
  const ra = outcome.type === 'response' ? outcome.retryAfterMs : undefined;
  if (ra !== undefined && ra > 0 && ra <= options.maxDelayMs) return Math.max(backoff, ra);
  return backoff;
}

/** Reads a Retry-After header (delta-seconds or an HTTP date) into milliseconds from `nowMs`. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
