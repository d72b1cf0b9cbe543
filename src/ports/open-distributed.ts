/**
 * The distributed mode (VOXDEX_DATABASE_URL; with S3 and Elasticsearch): jobs, callback outbox,
 * ledger, tenancy and rate-limit buckets in PostgreSQL (migrated at start), shared by every node;
 * the root token's hash and the link key shared through it. Workers claim jobs from the shared
 * queue under a lease and wake on PostgreSQL's notifications (new jobs, cancels from other nodes).
 */
import type { Config } from '../config.js';
import { PgRateLimiter } from '../rate-limit/pg-rate-limiter.js';
import { openPgCategoryStore } from '../store/pg/category-store.js';
import { migrate } from '../store/pg/pg-migrations.js';
import { openPgPool } from '../store/pg/pg-pool.js';
import { openPgStores } from '../store/pg/pg-stores.js';
import { PgTenancy, sharedRootToken, sharedUrlSecret } from '../tenancy/pg-tenancy.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { openBlobStore, openIndex } from './adapters.js';
import type { OpenOptions, Ports } from './ports.js';

/** Tenancy from PostgreSQL for one admin command: its own small pool, ended by close(). */
export async function openDistributedTenancy(config: Readonly<Config>, url: string): Promise<Tenancy> {
  const pool = openPgPool(url, { max: 2, applicationName: 'voxdex admin' });
  try {
    await migrate(pool);
    return await PgTenancy.open({ pool, keyFile: config.secretsKeyFile, ownsPool: true });
  } catch (err) {
    await pool.end();
    throw err;
  }
}

export async function openDistributed(config: Readonly<Config>, url: string, { node, log }: OpenOptions): Promise<Ports> {
  const inflightLeaseMs = config.callback.connectTimeoutMs + config.callback.responseTimeoutMs + config.leaseMs;
  const pg = await openPgStores(url, { owner: node, log, inflightLeaseMs });
  let tenancy: PgTenancy | undefined;
  try {
    tenancy = await PgTenancy.open({ pool: pg.pool, notifier: pg.notifier, log, keyFile: config.secretsKeyFile });
    const { blobs, removeUnacknowledged } = await openBlobStore(config);
    const index = openIndex(config);
    const categories = await openPgCategoryStore(pg.pool);
    const t = tenancy;
    return {
      storage: 'postgres',
      jobs: pg.jobs,
      outbox: pg.outbox,
      ledger: pg.ledger,
      audit: pg.audit,
      tenancy: t,
      categories,
      blobs,
      index,
      rateLimiter: (what) => new PgRateLimiter(pg.pool, config.rateLimitPerMin, what),
      work: {
        owner: node,
        recoverEveryMs: config.leaseMs,
        connect(runner) {
          const offs = [pg.notifier.on('voxdex_jobs', () => runner.wake()), pg.notifier.on('voxdex_cancel', (id) => runner.cancelLocal(id))];
          return () => offs.forEach((off) => off());
        },
        queueDepth: () => pg.jobs.countQueued(),
      },
      async installation() {
        const root = await sharedRootToken(pg.pool, config.rootTokenFile, log);
        t.setRootTokenHash(root.sha256);
        if (root.created) log.info({ path: config.rootTokenFile }, 'created the installation’s root token file (mode 0600); read the token from there');
        else if (root.local) log.info({ path: config.rootTokenFile }, 'root token file');
        else log.info('the root token file is on the node that started first; its hash is shared through the database');
        return { urlSecret: await sharedUrlSecret(pg.pool) };
      },
      removeUnacknowledged: () => removeUnacknowledged(pg.jobs, log),
      async close() {
        await index.close().catch((err) => log.warn({ err }, 'closing the index failed'));
        await t.close();
        await pg.close();
        await blobs.close();
      },
    };
  } catch (err) {
    await tenancy?.close();
    await pg.close();
    throw err;
  }
}
