/**
 * The embedded mode (one node, zero configuration): jobs, callback outbox and drop-folder ledger in
 * `<dataDir>/jobs.sqlite`, tenancy in `<dataDir>/tenancy.sqlite`, the root token and the link key in
 * files of the data dir, rate limits in this process's memory; the runner's own scheduler runs the
 * jobs (a `voxdex import` in another process is seen by its poll).
 */
import path from 'node:path';
import type { Config } from '../config.js';
import { MemoryRateLimiter } from '../rate-limit/memory-rate-limiter.js';
import { jobStorePath } from '../store/sqlite/sqlite-job-store.js';
import { openSqliteStores } from '../store/sqlite/sqlite-stores.js';
import { SqliteCategoryStore } from '../store/sqlite/category-store.js';
import { SqliteTenancy } from '../tenancy/sqlite-tenancy.js';
import { ensureRootToken, tenancyDbPath } from '../tenancy/tenancy.js';
import { openBlobStore, openIndex } from './adapters.js';
import type { OpenOptions, Ports } from './ports.js';

/** Tenancy in the data dir, its callback secrets sealed with the installation's key file. */
export function openEmbeddedTenancy(config: Readonly<Config>): SqliteTenancy {
  return new SqliteTenancy(tenancyDbPath(config.dataDir), { keyFile: config.secretsKeyFile });
}

export async function openEmbedded(config: Readonly<Config>, { log }: OpenOptions): Promise<Ports> {
  const tenancy = openEmbeddedTenancy(config);
  const stores = openSqliteStores(jobStorePath(config.dataDir));
  let opened;
  try {
    opened = await openBlobStore(config);
  } catch (err) {
    await stores.close();
    tenancy.close();
    throw err;
  }
  const { blobs, removeUnacknowledged } = opened;
  const index = openIndex(config);
  return {
    storage: 'sqlite',
    jobs: stores.jobs,
    outbox: stores.outbox,
    ledger: stores.ledger,
    audit: stores.audit,
    tenancy,
    categories: new SqliteCategoryStore(tenancy.db),
    blobs,
    index,
    rateLimiter: (what) => new MemoryRateLimiter(config.rateLimitPerMin, what),
    work: {
      owner: undefined,
      recoverEveryMs: undefined,
      connect: () => () => undefined,
      queueDepth: (local) => local(),
    },
    async installation() {
      const { token, created } = ensureRootToken(config.rootTokenFile);
      tenancy.setRootToken(token);
      if (created) log.info({ path: config.rootTokenFile }, 'created the root token file (mode 0600); read the token from there');
      else log.info({ path: config.rootTokenFile }, 'root token file');
      return { urlSecret: ensureRootToken(path.join(config.dataDir, 'url.secret')).token };
    },
    removeUnacknowledged: () => removeUnacknowledged(stores.jobs, log),
    async close() {
      await index.close().catch((err) => log.warn({ err }, 'closing the index failed'));
      await stores.close();
      await blobs.close();
      tenancy.close();
    },
  };
}
