/**
 * The storage conformance suite on the PostgreSQL adapter (against the real server scripts/postgres.sh
 * starts: VOXDEX_TEST_DATABASE_URL), then the job-lease suite that only a shared store offers. Each
 * test's directory maps to its own schema (reopening the same directory reopens the same schema);
 * every schema is dropped at the end.
 */
import { suite } from 'uvu';
import { randomUUID } from 'node:crypto';
import { openPgStores, type PgStores } from '../src/store/pg/pg-stores.js';
import type { Stores } from '../src/store/stores.js';
import { jobLeasesConformance } from './conformance/job-leases.conformance.js';
import { jobStoreConformance } from './conformance/job-store.conformance.js';
import { freshSchema, type TestSchema } from './fixtures/pg.js';

const schemas = new Map<string, TestSchema>();

async function schemaFor(key: string): Promise<TestSchema> {
  let s = schemas.get(key);
  if (!s) {
    s = await freshSchema();
    schemas.set(key, s);
  }
  return s;
}

const open = async (key: string) => openPgStores((await schemaFor(key)).url, { owner: `test-${randomUUID().slice(0, 8)}` });

jobStoreConformance('postgres', {
  open: (dir) => open(dir),
  // A trigger that refuses callback rows, as a constraint or a full disk would.
  failNextDelivery: async (stores: Stores) => {
    await (stores as PgStores).pool.query(`
      CREATE FUNCTION refuse_delivery() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
      CREATE TRIGGER refuse_delivery BEFORE INSERT ON callback_deliveries FOR EACH ROW EXECUTE FUNCTION refuse_delivery();`);
  },
});

let current = '';
jobLeasesConformance('postgres', {
  fresh: async () => {
    current = randomUUID();
    await schemaFor(current);
  },
  open: () => open(current),
  dispose: async () => {
    await schemas.get(current)?.drop();
    schemas.delete(current);
  },
});

// Not a test (it asserts nothing): a hook, after the suites above, that drops every test schema.
const cleanup = suite('pg job store: drop the test schemas');
cleanup.after(async () => {
  for (const s of schemas.values()) await s.drop();
  schemas.clear();
});
cleanup.run();
