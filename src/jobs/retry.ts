/**
 * Job retries are data: how often a job may be started and the backoff between starts
 * (callbacks/backoff.ts, the same pure function as callback deliveries). `decideRetry` is the one
 * place that decides whether a failed job is tried again; nothing here does I/O or reads the clock.
 */
import { backoffDelay, type BackoffOptions } from '../callbacks/backoff.js';
import { ERRORS, type ErrorCode } from '../errors.js';

export interface RetryPolicy {
  /** Starts a job may have when each failed with a retryable error (the last failure is final). */
  attempts: number;
  /** Starts after which a job is given up with INTERNAL: the process died every time (a poison file). */
  maxStarts: number;
  backoff: BackoffOptions;
}

/** 5 starts, 4 s · 2^(n-1) between them (4, 8, 16, 32 s), capped at 60 s, no jitter; given up after 8 starts. */
export const JOB_RETRY: RetryPolicy = {
  attempts: 5,
  maxStarts: 8,
  backoff: { baseDelayMs: 4_000, factor: 2, maxDelayMs: 60_000, jitter: 0 },
};

type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/**
 * After start number `attempts` failed with `code`: retry after a delay when the error table says the
 * code is retryable (INTERNAL is not: a bug does not go away by running it again) and the job has
 * starts left.
 */
export function decideRetry(code: ErrorCode, attempts: number, policy: RetryPolicy = JOB_RETRY, random: () => number = Math.random): RetryDecision {
  if (!ERRORS[code].retryable || attempts >= policy.attempts) return { retry: false };
  return { retry: true, delayMs: backoffDelay(attempts, policy.backoff, random) };
}

/** Whether a job about to begin start number `attempts` is given up instead (it crashed the process too often). */
export function startsExhausted(attempts: number, policy: RetryPolicy = JOB_RETRY): boolean {
  return attempts > policy.maxStarts;
}
