/** The category store conformance suite on PostgreSQL (scripts/postgres.sh: VOXDEX_TEST_DATABASE_URL); two pools = two nodes. */
import type pg from 'pg';
import { openPgPool } from '../src/store/pg/pg-pool.js';
import { PgCategoryStore } from '../src/store/pg/category-store.js';
import { categoryStoreConformance } from './conformance/category-store.conformance.js';
import { freshSchema, type TestSchema } from './fixtures/pg.js';

let schema: TestSchema | undefined;
const pools: pg.Pool[] = [];
categoryStoreConformance('postgres', {
  fresh: async () => {
    schema = await freshSchema();
  },
  open: async () => {
    const pool = openPgPool(schema!.url, { max: 2 });
    pools.push(pool);
    const st = new PgCategoryStore(pool);
    await st.init();
    return st;
  },
  dispose: async () => {
    for (const p of pools.splice(0)) await p.end();
    await schema?.drop();
    schema = undefined;
  },
});
