/**
 * Versioned schema migrations for PostgreSQL, applied at start by every node (`migrate`).
 *
 * Each migration is one SQL text with a version; `schema_migrations` records which ones ran. All
 * nodes may start at once: the runner holds a transaction-level advisory lock while it looks and
 * applies, so exactly one applies each migration and the others then see it applied. Each
 * migration commits in its own transaction together with its record (PostgreSQL DDL is
 * transactional), so a crash mid-migration leaves the previous version intact. A database at a
 * newer version than this voxdex knows is refused: an older node must not write into a newer schema.
 *
 * Migrations are append-only: never edit one that has shipped; add the next version.
 */
import type pg from 'pg';
import { voxdexError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { PG_SCHEMA } from './pg-schema.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Any constant: the advisory lock all voxdex nodes take while migrating. */
const MIGRATION_LOCK = 0x766f7864; // 'voxd'

export async function appliedVersion(client: pg.ClientBase): Promise<number> {
  const exists = await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`);
  if (!exists.rows[0].ok) return 0;
  const r = await client.query('SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_migrations');
  return r.rows[0].v as number;
}

/**
 * Brings the database to the newest version in `migrations` (default: voxdex's schema). Resolves to
 * the versions it applied (empty when the schema was current).
 */
export async function migrate(pool: pg.Pool, log?: Logger, migrations: readonly Migration[] = PG_SCHEMA): Promise<number[]> {
  checkList(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  const applied: number[] = [];
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    await client.query('COMMIT');
    for (const m of migrations) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        const current = await appliedVersion(client);
        if (current > newest) {
          throw voxdexError(
            'STORAGE_UNAVAILABLE',
            `The database schema is at version ${current}, newer than this voxdex knows (${newest}); upgrade this node before starting it.`,
          );
        }
        if (current >= m.version) {
          await client.query('COMMIT');
          continue;
        }
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
        applied.push(m.version);
        log?.info({ version: m.version, name: m.name }, 'applied a database migration');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    }
    return applied;
  } finally {
    client.release();
  }
}

function checkList(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1} (versions are 1, 2, 3, …)`);
  });
}
