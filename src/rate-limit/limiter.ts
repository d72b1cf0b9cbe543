/**
 * The rate limits (429; docs/service.md, "Rate limits (429)"): per-principal token buckets, one per company and one for the
 * root token, per limited endpoint: `perMin` requests a minute sustained, bursts of up to `perMin`.
 * A request takes its token only once it is authenticated and about to be accepted, so a refused or
 * unauthenticated request never uses up a company's allowance, and nothing already accepted is ever
 * affected. Over the limit: RATE_LIMITED (429) with `retryAfterSec` (sent as Retry-After).
 *
 * Adapters: MemoryRateLimiter (one process, the embedded mode) and PgRateLimiter (buckets in
 * PostgreSQL, shared by every API node); both run test/conformance/rate-limiter.conformance.ts.
 */
import { VoxdexError } from '../errors.js';
import type { Principal } from '../tenancy/tenancy.js';

/** What the routes use; `perMin` 0 disables the limit. */
export interface Limiter {
  readonly perMin: number;
  /** Throws RATE_LIMITED when `principal`'s bucket is empty; takes nothing. */
  check(principal: Principal): void | Promise<void>;
  /** Takes one request from `principal`'s bucket, or throws RATE_LIMITED (taking nothing). */
  take(principal: Principal): void | Promise<void>;
  /** Counts one accepted request against `principal` (the bucket may go below zero). */
  charge(principal: Principal): void | Promise<void>;
}

/** RATE_LIMITED (429) for `principal` whose bucket holds `tokens` (< 1) at `now`, with Retry-After. */
export function rateLimited(what: string, perMin: number, principal: Principal, tokens: number, now: number): VoxdexError {
  const retryAfterSec = Math.max(1, Math.ceil(((1 - tokens) * 60) / perMin));
  const who = principal.kind === 'root' ? 'the root token' : `company ${principal.company}`;
  const when = new Date(now + retryAfterSec * 1000).toISOString();
  return new VoxdexError(
    'RATE_LIMITED',
    `Too many ${what} requests for ${who} (limit ${perMin} per minute); retry in ${retryAfterSec} second${retryAfterSec === 1 ? '' : 's'} (after ${when}) or ask the operator to raise VOXDEX_RATE_LIMIT_PER_MIN`,
    { retryAfterSec },
  );
}

/** The bucket's key: the company's name, or `(root)`, which no short name can be (and, unlike a NUL, PostgreSQL's text takes). */
export function keyOf(p: Principal): string {
  return p.kind === 'root' ? '(root)' : p.company;
}
