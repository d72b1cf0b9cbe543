/**
 * The rate-limiter conformance suite on both adapters: this process's memory (embedded mode) and
 * PostgreSQL's rate_buckets (distributed mode; the server scripts/postgres.sh started).
 */
import type pg from 'pg';
import { MemoryRateLimiter } from '../../src/rate-limit/memory-rate-limiter.js';
import { PgRateLimiter } from '../../src/rate-limit/pg-rate-limiter.js';
import { migrate } from '../../src/store/pg/pg-migrations.js';
import { openPgPool } from '../../src/store/pg/pg-pool.js';
import { freshSchema, type TestSchema } from '../fixtures/pg.js';
import { rateLimiterConformance } from './rate-limiter.conformance.js';

rateLimiterConformance('memory', { open: (what, perMin) => new MemoryRateLimiter(perMin, what) });

let schema: TestSchema | undefined;
let pool: pg.Pool | undefined;
rateLimiterConformance('postgres', {
  async before() {
    schema = await freshSchema();
    pool = openPgPool(schema.url, { max: 2 });
    await migrate(pool);
  },
  async after() {
    await pool?.end();
    await schema?.drop();
  },
  open: (what, perMin) => new PgRateLimiter(pool!, perMin, what),
});
