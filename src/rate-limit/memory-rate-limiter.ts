/** The rate limits of limiter.ts in this process's memory (one node: the embedded mode). */
import type { Principal } from '../tenancy/tenancy.js';
import { keyOf, rateLimited, type Limiter } from './limiter.js';

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets idle this long are full again and are forgotten. */
const IDLE_MS = 60_000;

export class MemoryRateLimiter implements Limiter {
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

  #limited(principal: Principal, b: Bucket) {
    return rateLimited(this.what, this.perMin, principal, b.tokens, this.now());
  }
}

