/** The audit trail's storage on PostgreSQL (scripts/postgres.sh: VOXDEX_TEST_DATABASE_URL); two pools = two nodes. */
import type pg from 'pg';
import { openPgPool } from '../src/store/pg/pg-pool.js';
import { openPgAuditLog } from '../src/store/pg/audit-log.js';
import { auditLogConformance } from './conformance/audit-log.conformance.js';
import { freshSchema, type TestSchema } from './fixtures/pg.js';

let schema: TestSchema | undefined;
const pools: pg.Pool[] = [];
const pool = () => {
  const p = openPgPool(schema!.url, { max: 3 });
  pools.push(p);
  return p;
};
auditLogConformance('postgres', {
  fresh: async () => {
    schema = await freshSchema();
  },
  open: async () => openPgAuditLog(pool()),
  sql: async (text) => pool().query(text),
  dispose: async () => {
    for (const p of pools.splice(0)) await p.end();
    await schema?.drop();
    schema = undefined;
  },
});
