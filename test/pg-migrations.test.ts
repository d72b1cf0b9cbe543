/**
 * The PostgreSQL migrations runner against a real server (scripts/postgres.sh): applies the schema
 * once, is a no-op when current, lets nodes that start together apply each migration exactly once,
 * rolls a failing migration back whole, and refuses a database newer than this voxdex.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { appliedVersion, migrate, type Migration } from '../src/store/pg/pg-migrations.js';
import { openPgPool } from '../src/store/pg/pg-pool.js';
import { PG_SCHEMA } from '../src/store/pg/pg-schema.js';
import { freshSchema, type TestSchema } from './fixtures/pg.js';

const m = suite('pg-migrations');
let schema: TestSchema;
let pool: pg.Pool;

m.before.each(async () => {
  schema = await freshSchema();
  pool = openPgPool(schema.url);
});
m.after.each(async () => {
  await pool.end();
  await schema.drop();
});

const tables = async (p: pg.Pool) =>
  (await p.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`)).rows.map((r) => r.table_name);

m('applies voxdex schema to an empty database, then finds it current', async () => {
  assert.equal(await migrate(pool), PG_SCHEMA.map((x) => x.version));
  assert.equal(await tables(pool), [
    'callback_attempts',
    'callback_deliveries',
    'companies',
    'company_settings',
    'folders',
    'installation',
    'intake_files',
    'items',
    'jobs',
    'model_aliases',
    'orgs',
    'rate_buckets',
    'schema_migrations',
    'tokens',
  ]);
  assert.equal(await migrate(pool), []);
  const c = await pool.connect();
  try {
    assert.is(await appliedVersion(c), PG_SCHEMA.length);
  } finally {
    c.release();
  }
});

m('nodes starting together apply each migration exactly once', async () => {
  const pools = [0, 1, 2, 3].map(() => openPgPool(schema.url, { max: 2 }));
  try {
    const results = await Promise.all(pools.map((p) => migrate(p)));
    assert.equal(results.flat().sort(), PG_SCHEMA.map((x) => x.version));
    const rows = (await pool.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
    assert.equal(rows, PG_SCHEMA.map((x) => x.version));
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
});

m('a failing migration leaves the previous version and no half-made tables', async () => {
  const list: Migration[] = [
    { version: 1, name: 'one', sql: 'CREATE TABLE one (x INT)' },
    { version: 2, name: 'two', sql: 'CREATE TABLE two (x INT); INSERT INTO two VALUES (1); SELECT * FROM no_such_table' },
  ];
  try {
    await migrate(pool, undefined, list);
    assert.unreachable('migration 2 should fail');
  } catch (err) {
    assert.match((err as Error).message, /no_such_table/);
  }
  assert.equal(await tables(pool), ['one', 'schema_migrations']);
  assert.equal((await pool.query('SELECT version, name FROM schema_migrations')).rows, [{ version: 1, name: 'one' }]);
});

m('refuses a database whose schema is newer than this voxdex knows', async () => {
  const newer: Migration[] = [
    { version: 1, name: 'one', sql: 'CREATE TABLE one (x INT)' },
    { version: 2, name: 'two', sql: 'CREATE TABLE two (x INT)' },
  ];
  await migrate(pool, undefined, newer);
  try {
    await migrate(pool, undefined, newer.slice(0, 1));
    assert.unreachable('an older node must not start on a newer schema');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'STORAGE_UNAVAILABLE');
    assert.is((err as Error).message, 'The database schema is at version 2, newer than this voxdex knows (1); upgrade this node before starting it.');
  }
});

m('rejects a migration list with a gap in its versions', async () => {
  try {
    await migrate(pool, undefined, [{ version: 2, name: 'two', sql: 'SELECT 1' }]);
    assert.unreachable('versions must be 1, 2, 3, …');
  } catch (err) {
    assert.is((err as Error).message, 'migration two has version 2, expected 1 (versions are 1, 2, 3, …)');
  }
});

m.run();
