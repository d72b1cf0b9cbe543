/**
 * The PostgreSQL connection pool every PostgreSQL adapter shares (`pg`), and the one transaction
 * helper. BIGINT columns (sequence numbers, sizes, epoch milliseconds) are read as JS numbers: every
 * value voxdex keeps there is below 2^53. A connection URL may carry `?options=-c search_path=…`
 * (the tests use a schema per run).
 */
import pg from 'pg';
import { voxdexError } from '../../errors.js';

const INT8_OID = 20;

interface PgPoolOptions {
  /** Connections at most (default 10). */
  max?: number;
  /** Name shown in pg_stat_activity (e.g. `voxdex worker`). */
  applicationName?: string;
}

export function openPgPool(url: string, options: PgPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'voxdex',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw isServerError(err) ? err : unreachable(err);
  });
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** pool.query with connection failures reported as STORAGE_UNAVAILABLE (errors from the server itself pass through). */
export async function pgQuery<R extends pg.QueryResultRow>(pool: pg.Pool, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
  try {
    return await pool.query<R>(text, values);
  } catch (err) {
    throw isServerError(err) ? err : unreachable(err);
  }
}

/** An error the server reported for a statement (it has a SQLSTATE), as opposed to a connection that failed. */
function isServerError(err: unknown): boolean {
  const e = err as { severity?: string; code?: string };
  return typeof e.severity === 'string' && typeof e.code === 'string' && !/^(08|57P)/.test(e.code);
}

/** The database did not answer: STORAGE_UNAVAILABLE (503, retryable), without the URL's password. */
export function unreachable(err: unknown) {
  const e = err as Error & { code?: string };
  return voxdexError('STORAGE_UNAVAILABLE', `The database is not reachable (${e.code ?? e.name}: ${e.message}); check VOXDEX_DATABASE_URL and that PostgreSQL runs.`, err);
}
