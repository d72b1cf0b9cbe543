/**
 * The seam (src/ports/): each deployment mode opens every port, and the two differ only where the
 * mode says so — the embedded one on the data dir's SQLite files and the runner's own scheduler, the
 * distributed one on PostgreSQL (scripts/postgres.sh), MinIO and Elasticsearch with a lease owner.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { openPorts, openTenancy, type Ports } from '../src/ports/ports.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import type { Tenancy } from '../src/tenancy/tenancy.js';
import { cardDocument } from './fixtures/redaction-call.js';
import { freshSchema } from './fixtures/pg.js';

const ports = suite('ports');
let dir = '';
ports.before.each(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vx-ports-'));
});
ports.after.each(() => rmSync(dir, { recursive: true, force: true }));

const root = { kind: 'root' } as const;

/**
 * The index a node writes through refuses an unredacted transcript of a company under a text policy
 * (src/ports/guarded-index.ts), with nothing written; the policy set through `admin` (maybe another node's tenancy).
 */
async function refusesUnredacted(p: Ports, admin: Tenancy): Promise<void> {
  await admin.change((t) => t.setCompanySettings('acme', { scrub: ['text'] }));
  for (let i = 0; i < 100 && !p.tenancy.companySettings('acme').scrub; i++) await new Promise((r) => setTimeout(r, 20));
  await p.index.init();
  const entry = { tid: 'a'.repeat(32), company: 'acme', org: 'sales', folder: 'calls', datetime: '2026-01-01T00:00:00Z', document: cardDocument('r1') };
  const refused = await p.index.index([entry]).then(() => undefined, (e: { code?: string }) => e.code);
  assert.is(refused, 'UNREDACTED_WRITE');
  assert.is(await p.index.count({ company: 'acme', org: 'sales', folder: 'calls' }, parseSearchOptions({ terms: 'card' }).query), 0);
}

ports('embedded: SQLite in the data dir, in-memory rate limits, the runner’s own scheduler; the root token is a file of the data dir', async () => {
  const config = loadConfig({ VOXDEX_DATA_DIR: dir, VOXDEX_RATE_LIMIT_PER_MIN: '1' });
  const admin = await openTenancy(config);
  await admin.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));
  await admin.close();
  const p = await openPorts(config, { node: 'n1', log: silentLogger });
  try {
    assert.is(p.storage, 'sqlite');
    assert.is(p.blobs.kind, 'local');
    assert.is(p.work.owner, undefined);
    assert.is(p.work.recoverEveryMs, undefined);
    assert.is(await p.work.queueDepth(() => 7), 7);
    assert.ok(p.tenancy.hasCompany('acme'));
    const { urlSecret } = await p.installation();
    assert.is(urlSecret, readFileSync(path.join(dir, 'url.secret'), 'utf8').trim());
    assert.equal(p.tenancy.authenticate(readFileSync(config.rootTokenFile, 'utf8').trim()), root);
    const limit = p.rateLimiter('/search');
    await limit.take(root);
    assert.throws(() => limit.take(root), /Too many \/search requests for the root token/);
    assert.ok(existsSync(path.join(dir, 'jobs.sqlite')) && existsSync(path.join(dir, 'tenancy.sqlite')));
    await refusesUnredacted(p, p.tenancy);
  } finally {
    await p.close();
  }
});

ports('distributed: PostgreSQL, S3 and Elasticsearch shared by every node; the root token and link key shared through the database', async () => {
  const schema = await freshSchema();
  const env = {
    VOXDEX_DATA_DIR: path.join(dir, 'a'),
    VOXDEX_DATABASE_URL: schema.url,
    VOXDEX_S3_URL: process.env.VOXDEX_TEST_S3_URL ?? '',
    VOXDEX_S3_BUCKET: process.env.VOXDEX_TEST_S3_BUCKET ?? 'voxdex-test',
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? '',
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? '',
    VOXDEX_ES_URL: process.env.VOXDEX_TEST_ES_URL ?? '',
    VOXDEX_SECRETS_KEY_FILE: path.join(dir, 'secrets.key'),
    VOXDEX_RATE_LIMIT_PER_MIN: '1',
  };
  const a = await openPorts(loadConfig(env), { node: 'node-a', log: silentLogger });
  const b = await openPorts(loadConfig({ ...env, VOXDEX_DATA_DIR: path.join(dir, 'b') }), { node: 'node-b', log: silentLogger });
  try {
    assert.is(a.storage, 'postgres');
    assert.is(a.blobs.kind, 's3');
    assert.is(a.work.owner, 'node-a');
    assert.is(typeof a.work.recoverEveryMs, 'number');
    assert.is(await a.work.queueDepth(() => 7), 0);
    const [sa, sb] = [await a.installation(), await b.installation()];
    assert.is(sa.urlSecret, sb.urlSecret);
    const token = readFileSync(path.join(dir, 'a', 'root.token'), 'utf8').trim();
    assert.equal(b.tenancy.authenticate(token), root);
    await a.rateLimiter('/search').take(root);
    // The bucket is shared: node b finds it empty.
    const refused = await Promise.resolve(b.rateLimiter('/search').take(root)).then(() => 'ok', (e: Error) => e.message);
    assert.match(refused, /^Too many \/search requests for the root token/);
    const admin = await openTenancy(loadConfig(env));
    await admin.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));
    for (let i = 0; i < 100 && !b.tenancy.hasCompany('acme'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(b.tenancy.hasCompany('acme'), 'node b sees a company the admin CLI added');
    await refusesUnredacted(b, admin).finally(() => admin.close());
  } finally {
    await a.close();
    await b.close();
    await schema.drop();
  }
});

ports.run();
