/**
 * The rate limits of limiter.ts with their buckets in PostgreSQL (table rate_buckets), so that a
 * company's allowance holds across every API node rather than per process. Same token-bucket rules:
 * `perMin` a minute sustained, bursts of up to `perMin`; the refill is computed in the statement on
 * the database's clock, and each take or charge is one atomic upsert (the row lock orders concurrent
 * requests from any node).
 */
import type pg from 'pg';
import { pgQuery } from '../store/pg/pg-pool.js';
import type { Principal } from '../tenancy/tenancy.js';
import { keyOf, rateLimited, type Limiter } from './limiter.js';

/** The database clock in ms. */
const NOW = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;

export class PgRateLimiter implements Limiter {
  readonly #pool: pg.Pool;
  readonly #perMs: number;

  /** `perMin` 0 disables the limiter; `what` names the limit in messages and is its key in the table. */
  constructor(
    pool: pg.Pool,
    readonly perMin: number,
    readonly what: string,
  ) {
    this.#pool = pool;
    this.#perMs = perMin / 60_000;
  }

  /** The bucket's tokens now (full when it has no row). */
  #refilled = `LEAST($3::float8, b.tokens + (${NOW} - b.at) * $4::float8)`;

  async check(principal: Principal): Promise<void> {
    if (this.perMin === 0) return;
    const r = await pgQuery<{ tokens: number; now: number }>(
      this.#pool,
      `SELECT ${this.#refilled} AS tokens, ${NOW} AS now FROM rate_buckets b WHERE b.limiter = $1 AND b.principal = $2`,
      [this.what, keyOf(principal), this.perMin, this.#perMs],
    );
    const row = r.rows[0];
    if (row && row.tokens < 1) throw rateLimited(this.what, this.perMin, principal, row.tokens, row.now);
  }

  async take(principal: Principal): Promise<void> {
    if (this.perMin === 0) return;
    const r = await this.#upsert(principal, true);
    if (r.rowCount === 1) return;
    const now = await pgQuery<{ tokens: number; now: number }>(
      this.#pool,
      `SELECT ${this.#refilled} AS tokens, ${NOW} AS now FROM rate_buckets b WHERE b.limiter = $1 AND b.principal = $2`,
      [this.what, keyOf(principal), this.perMin, this.#perMs],
    );
    const row = now.rows[0] ?? { tokens: 0, now: Date.now() };
    throw rateLimited(this.what, this.perMin, principal, row.tokens, row.now);
  }

  async charge(principal: Principal): Promise<void> {
    if (this.perMin === 0) return;
    await this.#upsert(principal, false);
  }

  /** Refill and take one token; with `onlyIfAvailable`, only when at least one is there (else no row changes). */
  #upsert(principal: Principal, onlyIfAvailable: boolean) {
    return pgQuery(
      this.#pool,
      `INSERT INTO rate_buckets AS b (limiter, principal, tokens, at) VALUES ($1, $2, $3::float8 - 1, ${NOW})
       ON CONFLICT (limiter, principal) DO UPDATE SET tokens = ${this.#refilled} - 1, at = ${NOW}
       ${onlyIfAvailable ? `WHERE ${this.#refilled} >= 1` : ''}`,
      [this.what, keyOf(principal), this.perMin, this.#perMs],
    );
  }
}
