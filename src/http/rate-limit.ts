/**
 * Per-principal token buckets (429; docs/service.md, "Rate limits (429)"). One bucket per company and one for the root token,
 * per limited endpoint: `perMin` requests a minute sustained, bursts of up to `perMin`. A request
 * takes its token only once it is authenticated and about to be accepted, so a refused or
 * unauthenticated request never uses up a company's allowance, and nothing already accepted is
 * ever affected. Over the limit: RATE_LIMITED (429) with `retryAfterSec` (sent as Retry-After).
 */
import { VoxdexError } from '../errors.js';
import type { Principal } from '../tenancy/tenancy.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets idle this long are full again and are forgotten. */
const IDLE_MS = 60_000;

/**
 * What the routes use: this in-process limiter (one node), or the same buckets kept in PostgreSQL so
 * that every API node draws from them (pg-rate-limit.ts).
 */
export interface Limiter {
  readonly perMin: number;
  /** Throws RATE_LIMITED when `principal`'s bucket is empty; takes nothing. */
  check(principal: Principal): void | Promise<void>;
  /** Takes one request from `principal`'s bucket, or throws RATE_LIMITED (taking nothing). */
  take(principal: Principal): void | Promise<void>;
  /** Counts one accepted request against `principal` (the bucket may go below zero). */
  charge(principal: Principal): void | Promise<void>;
}

export class RateLimiter implements Limiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #perMs: number;
  #sweptAt = 0;

  /** `perMin` 0 disables the limiter. `now` is injectable for tests. */
  constructor(
    readonly perMin: number,
    readonly what: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#perMs = perMin / 60_000;
  }

  /** Throws RATE_LIMITED when `principal`'s bucket is empty; takes nothing. */
  check(principal: Principal): void {
    if (this.perMin === 0) return;
    const b = this.#refill(keyOf(principal));
    if (b.tokens < 1) throw this.#limited(principal, b);
  }

  /** Takes one request from `principal`'s bucket, or throws RATE_LIMITED (taking nothing). */
  take(principal: Principal): void {
    if (this.perMin === 0) return;
    const b = this.#refill(keyOf(principal));
    if (b.tokens < 1) throw this.#limited(principal, b);
    b.tokens -= 1;
  }

  /**
   * Counts one accepted request against `principal` (after check(): the bucket may go below zero
   * when concurrent requests passed check() together; later ones then wait longer).
   */
  charge(principal: Principal): void {
    if (this.perMin === 0) return;
    this.#refill(keyOf(principal)).tokens -= 1;
  }

  #refill(key: string): Bucket {
    const now = this.now();
    if (now - this.#sweptAt > IDLE_MS) {
      for (const [k, b] of this.#buckets) if (now - b.at > IDLE_MS) this.#buckets.delete(k);
      this.#sweptAt = now;
    }
    let b = this.#buckets.get(key);
    if (!b) {
      b = { tokens: this.perMin, at: now };
      this.#buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.perMin, b.tokens + (now - b.at) * this.#perMs);
      b.at = now;
    }
    return b;
  }

  #limited(principal: Principal, b: Bucket): VoxdexError {
    return rateLimited(this.what, this.perMin, principal, b.tokens, this.now());
  }
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

export function keyOf(p: Principal): string {
  return p.kind === 'root' ? '\0root' : p.company;
}
