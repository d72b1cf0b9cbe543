/**
 * createService(config): wires one voxdex node — job store, tenancy, blob store, transcript index,
 * transcriber, runner, HTTP app, callbacks, drop folder — for its role (config.role):
 *   all     one process does everything (the default; with the embedded stores, today's single node);
 *   api     accepts uploads, answers results, status and search; runs no ASR;
 *   worker  claims jobs from the shared queue, transcribes them, delivers callbacks; its HTTP
 *           listener answers only /status, /health and /metrics.
 * Storage: the embedded SQLite files and the data dir (zero configuration), or PostgreSQL
 * (VOXDEX_DATABASE_URL: jobs, outbox, ledger, tenancy, rate limits) with S3 object storage
 * (VOXDEX_S3_URL) and Elasticsearch (VOXDEX_ES_URL) shared by any number of nodes.
 * close() is the graceful stop (docs/service.md, "Graceful stop (SIGTERM)"): stop accepting, let running work finish within the grace
 * period, give the rest back (embedded: resumed after the next start; distributed: by any worker).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from './asr/models.js';
import { createTranscriber, type Transcriber } from './asr/transcriber.js';
import type { BlobStore } from './blobs/blob-store.js';
import { LocalBlobStore } from './blobs/local-blob-store.js';
import { S3BlobStore } from './blobs/s3-blob-store.js';
import { CallbackDispatcher } from './callbacks/dispatcher.js';
import { PACKAGE_ROOT, type Config } from './config.js';
import { DropFolderWatcher } from './drop/drop-folder.js';
import type { Submitter } from './drop/submitter.js';
import { voxdexError } from './errors.js';
import { mountAccountRoutes } from './http/account-routes.js';
import { mountAudioRoutes } from './http/audio-routes.js';
import { mountCategoryRoutes } from './http/category-routes.js';
import { CategoryBackfill } from './analytics/backfill.js';
import { categorizer } from './analytics/categories.js';
import type { CategoryStore } from './store/category-store.js';
import { openPgCategoryStore } from './store/pg/category-store.js';
import { SqliteCategoryStore } from './store/sqlite/category-store.js';
import { COMPAT_PARAMS } from './http/upload-form.js';
import { UploadSlots } from './http/upload-slots.js';
import { tenancyAccess } from './http/auth.js';
import { PgRateLimiter } from './http/pg-rate-limit.js';
import { RateLimiter, type Limiter } from './http/rate-limit.js';
import { mountSearchRoutes } from './http/search-routes.js';
import { createHttpApp, sendJson, sendText, type Req, type Res } from './http/server.js';
import { mountTranscribeRoutes } from './http/transcribe-routes.js';
import { mountUiRoutes } from './http/ui-routes.js';
import { JobIntake } from './jobs/job-intake.js';
import { JobRunner } from './jobs/runner.js';
import { requestStatus } from './jobs/status.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { elasticsearchIndexFromConfig } from './search/elasticsearch-index.js';
import { SqliteTranscriptIndex } from './search/sqlite-index.js';
import type { TranscriptIndex } from './search/transcript-index.js';
import { lockDataDir } from './store/data-dir-lock.js';
import type { Job, JobStore } from './store/job-store.js';
import type { CallbackOutbox } from './store/outbox.js';
import { JobPaths } from './store/paths.js';
import { openPgStores, type PgStores } from './store/pg-stores.js';
import { jobStorePath } from './store/sqlite-job-store.js';
import { openSqliteStores } from './store/sqlite-stores.js';
import type { Stores } from './store/stores.js';
import { PgTenancy, sharedRootToken, sharedUrlSecret } from './tenancy/pg-tenancy.js';
import { ensureRootToken, Tenancy } from './tenancy/tenancy.js';

export interface Service {
  config: Readonly<Config>;
  log: Logger;
  server: Server;
  /** http://host:port the server listens on (the real port when config.port is 0). */
  url: string;
  port: number;
  /** This process's name in leases (distributed mode) and logs. */
  node: string;
  store: JobStore;
  tenancy: Tenancy;
  blobs: BlobStore;
  index: TranscriptIndex;
  categories: CategoryStore;
  /** Absent on an API node. */
  transcriber: Transcriber | undefined;
  /** Absent on a worker node. */
  intake: JobIntake | undefined;
  runner: JobRunner;
  metrics: Metrics;
  outbox: CallbackOutbox;
  /** The HTTP routes mounted (methods and polka patterns), e.g. to check them against docs/openapi.json. */
  routes: Array<{ methods: string[]; pattern: string }>;
  /** Resolves when the node can work: models loaded where it runs ASR (rejects if they cannot be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log?: Logger;
  /** Start the HTTP listener (default true). */
  listen?: boolean;
}

/**
 * Starts the service on its data dir, which it locks for its life (one server per data dir; see
 * store/data-dir-lock.ts) and keeps private (0700).
 */
export async function createService(config: Readonly<Config>, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config);
  makePrivateDir(config.dataDir, log);
  const lock = lockDataDir(config.dataDir);
  try {
    const service = await startService(config, options, log);
    const close = service.close;
    let released: Promise<void> | undefined;
    service.close = () => (released ??= close().finally(() => lock.release()));
    lock.describe({ url: service.url });
    return service;
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startService(config: Readonly<Config>, options: ServiceOptions, log: Logger): Promise<Service> {
  const role = config.role;
  const runsJobs = role !== 'api';
  const acceptsJobs = role !== 'worker';
  const node = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const paths = new JobPaths(config.dataDir);
  mkdirSync(paths.incoming, { recursive: true });
  for (const stale of safeReaddir(paths.incoming)) rmSync(path.join(paths.incoming, stale), { recursive: true, force: true });

  const { stores, pg, tenancy, pgTenancy, urlSecret } = await openStorage(config, node, log);
  const { jobs: store, outbox, ledger } = stores;
  // Callback secrets live sealed in tenancy only; rows written by earlier versions carried a copy.
  const dropped = await outbox.dropSecrets();
  if (dropped > 0) log.info({ rows: dropped }, 'removed callback secrets copied into the callback outbox by an earlier version');
  const blobs: BlobStore = config.s3
    ? new S3BlobStore({ endpoint: config.s3.url, region: config.s3.region, bucket: config.s3.bucket, prefix: config.s3.prefix, credentials: config.s3.credentials })
    : new LocalBlobStore(config.dataDir);
  if (acceptsJobs) {
    if (blobs instanceof LocalBlobStore) await removeOrphanJobDirs(paths, store, log);
    else void removeOrphanUploads(blobs, store, log);
  }
  const index: TranscriptIndex = config.esUrl ? elasticsearchIndexFromConfig(config) : new SqliteTranscriptIndex({ file: path.join(config.dataDir, 'search.sqlite') });
  await index.init();
  // Categories (issue 20): rules beside tenancy, backfilled over the index by one node per company.
  const categories: CategoryStore = pg ? await openPgCategoryStore(pg.pool) : new SqliteCategoryStore(tenancy.db);
  const backfill = new CategoryBackfill({ store: categories, index, log, owner: node });
  const transcriber = runsJobs ? createTranscriber({ config, log }) : undefined;
  const registry = transcriber?.registry ?? loadModelRegistry(config.modelsFile);

  const metrics = createMetrics({ queueDepth: () => (pg ? store.countQueued() : runner.queued), jobsByState: () => store.countByState() });

  let ready = Promise.resolve();
  let modelsReady = !transcriber;
  if (transcriber) {
    ready = transcriber.ready().then(() => {
      modelsReady = true;
    });
  }
  let stopping = false;
  ready.catch((err) => {
    if (!stopping) log.error({ err }, 'ASR models failed to load; /health stays 503');
  });

  const installedModels = () => [...registry.list(), ...registry.specs().filter((s) => registry.isAvailable(s)).flatMap((s) => s.aliases)];

  const runner = new JobRunner({ config, log, store, outbox, tenancy, index, transcriber, blobs, paths, metrics, owner: pg ? node : undefined, runJobs: runsJobs, categorize: categorizer(categories) });
  const intake = acceptsJobs ? new JobIntake({ config, store, tenancy, blobs, paths, installedModels, onAccepted: (job) => runner.enqueue(job) }) : undefined;
  const offNotifications = pg
    ? [pg.notifier.on('voxdex_jobs', () => runner.wake()), pg.notifier.on('voxdex_cancel', (id) => runner.cancelLocal(id))]
    : [];

  const dispatcher = runsJobs
    ? new CallbackDispatcher({
        outbox,
        config,
        log,
        secretFor: (company) => (tenancy.hasCompany(company) ? tenancy.callbackSecret(company) : undefined),
        pollMs: 5_000,
        readBody: (key) => blobs.get(key),
        recoverEveryMs: pg ? config.leaseMs : undefined,
        onAttempt: (e) => metrics.callbackAttempts.inc({ outcome: e.state }),
      })
    : undefined;

  // Rate limits (docs/service.md, "Rate limits (429)"): per company and for the root token, taken once the token is known good;
  // in PostgreSQL when several nodes share them.
  const limiter = (what: string): Limiter => (pg ? new PgRateLimiter(pg.pool, config.rateLimitPerMin, what) : new RateLimiter(config.rateLimitPerMin, what));
  const access = tenancyAccess(tenancy);
  const app = createHttpApp(log, (routes) => {
    routes.add('GET', '/status', (_req, res) => sendText(res, 200, 'OK'));
    routes.add('GET', '/health', async (_req, res) => {
      if (!modelsReady) throw voxdexError('NOT_READY', 'The ASR models are still loading; retry in a few seconds');
      if (!(await store.ping())) throw voxdexError('NOT_READY', 'The job store is not reachable');
      if (!(await blobs.ping())) throw voxdexError('NOT_READY', 'The object storage is not reachable');
      sendJson(res, 200, { status: 'ok', role, models: registry.list() });
    });
    routes.add('GET', '/openapi.json', (_req, res) => sendText(res, 200, openApiDocument(), 'application/json; charset=utf-8'));
    routes.add('GET', '/metrics', async (_req, res) => {
      sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
    if (!intake) return;
    const status = (job: Job) => requestStatus(job, { config, store, outbox, metrics });
    mountTranscribeRoutes(routes, {
      intake,
      runner,
      status,
      store,
      blobs,
      access,
      tenancy,
      urlSecret,
      resultUrlTtlSec: config.resultUrlTtlSec,
      maxUploadBytes: config.maxUploadBytes,
      incomingDir: paths.incoming,
      rateLimit: limiter('POST /transcribe'),
      uploadSlots: new UploadSlots(config.maxConcurrentUploads),
    });
    mountSearchRoutes(routes, { index, access, rateLimit: limiter('/search'), log });
    // The web UI and what it needs beyond the contract (docs/ui.md).
    mountAccountRoutes(routes, { access, tenancy, store, status, installedModels: () => registry.list() });
    mountAudioRoutes(routes, { access, store, blobs, scratchDir: paths.incoming, urlSecret, linkTtlSec: config.resultUrlTtlSec });
    mountUiRoutes(routes);
    mountCategoryRoutes(routes, { access, store: categories, index, onChange: () => backfill.kick() });
  });

  // Slow clients: a connection that sends a byte every few seconds is closed (408) once the request
  // has taken requestTimeoutMs in all, or its headers headersTimeoutMs; checked every few seconds.
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, config.headersTimeoutMs / 4)),
    },
    (req, res) => {
      const route = (req.url ?? '/').split(/[/?]/)[1] || 'root';
      res.on('finish', () => metrics.httpRequests.inc({ route: KNOWN_ROUTES.has(route) ? route : 'other', status: String(res.statusCode) }));
      (app.handler as unknown as (q: Req, s: Res) => void)(req as Req, res as Res);
    },
  );

  if (runsJobs) await runner.start();
  backfill.start();
  await dispatcher?.start();

  let drop: DropFolderWatcher | undefined;
  if (config.dropDir && intake) {
    mkdirSync(config.dropDir, { recursive: true });
    drop = new DropFolderWatcher({ dropDir: config.dropDir, ledger, submitter: serviceSubmitter(intake), log, stableMs: config.dropStableMs });
    await drop.start();
    log.info({ dropDir: config.dropDir }, 'watching the drop folder');
  }

  let port = config.port;
  if (options.listen !== false) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    log.info({ host: config.host, port, role, node, store: pg ? 'postgres' : 'sqlite', blobs: blobs.kind }, 'voxdex listening');
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const t0 = Date.now();
      stopping = true;
      log.info('stopping: no new requests; finishing running work');
      server.close();
      server.closeIdleConnections();
      await drop?.close();
      intake?.stopAccepting();
      for (const off of offNotifications) off();
      const grace = Math.max(0, config.shutdownGraceMs - 3_000);
      await runner.stop(grace);
      await dispatcher?.stop(Math.max(500, Math.min(3_000, config.shutdownGraceMs - (Date.now() - t0))));
      server.closeAllConnections();
      await transcriber?.close().catch((err) => log.warn({ err }, 'closing the ASR pool failed'));
      await backfill.stop();
      await index.close().catch((err) => log.warn({ err }, 'closing the index failed'));
      pgTenancy?.close();
      await stores.close();
      await blobs.close();
      if (!pgTenancy) tenancy.close();
      log.info({ ms: Date.now() - t0 }, 'stopped');
    })());

  return {
    config,
    log,
    server,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    port,
    node,
    store,
    tenancy,
    blobs,
    index,
    categories,
    transcriber,
    intake,
    runner,
    metrics,
    outbox,
    routes: app.routeList(),
    ready,
    close,
  };
}

/**
 * The stores of this node: the embedded SQLite files in the data dir, or PostgreSQL (migrated at
 * start) with tenancy kept in memory from it; the root token and the url secret are the node's files,
 * or shared through PostgreSQL.
 */
async function openStorage(config: Readonly<Config>, node: string, log: Logger) {
  if (!config.databaseUrl) {
    const { tenancy, rootTokenCreated } = Tenancy.open(config);
    if (rootTokenCreated) log.info({ path: config.rootTokenFile }, 'created the root token file (mode 0600); read the token from there');
    else log.info({ path: config.rootTokenFile }, 'root token file');
    const urlSecret = ensureRootToken(path.join(config.dataDir, 'url.secret')).token;
    const stores: Stores = openSqliteStores(jobStorePath(config.dataDir));
    return { stores, pg: undefined, tenancy, pgTenancy: undefined, urlSecret };
  }
  const inflightLeaseMs = config.callback.connectTimeoutMs + config.callback.responseTimeoutMs + config.leaseMs;
  const pg: PgStores = await openPgStores(config.databaseUrl, { owner: node, log, inflightLeaseMs });
  try {
    const pgTenancy = await PgTenancy.open({ pool: pg.pool, notifier: pg.notifier, log, keyFile: config.secretsKeyFile });
    const root = await sharedRootToken(pg.pool, config.rootTokenFile, log);
    pgTenancy.tenancy.setRootTokenHash(root.sha256);
    if (root.created) log.info({ path: config.rootTokenFile }, 'created the installation’s root token file (mode 0600); read the token from there');
    else if (root.local) log.info({ path: config.rootTokenFile }, 'root token file');
    else log.info('the root token file is on the node that started first; its hash is shared through the database');
    return { stores: pg as Stores, pg, tenancy: pgTenancy.tenancy, pgTenancy, urlSecret: await sharedUrlSecret(pg.pool) };
  } catch (err) {
    await pg.close();
    throw err;
  }
}

const KNOWN_ROUTES = new Set(['transcribe', 'search', 'status', 'health', 'metrics', 'openapi.json', 'account', 'ui', 'categories']);

/** The OpenAPI 3.1 document of the HTTP API (docs/openapi.json), read once. */
let openApiText: string | undefined;
export function openApiDocument(): string {
  return (openApiText ??= readFileSync(path.join(PACKAGE_ROOT, 'docs', 'openapi.json'), 'utf8'));
}

/** The drop folder's and `voxdex import`'s way into the service. */
export function serviceSubmitter(intake: JobIntake): Submitter {
  return {
    async submit(input) {
      const requestid = await intake.submit({
        destination: input.destination,
        file: { path: input.path, name: input.originalName, size: statSync(input.path).size },
        move: false,
        metadata: input.metadata,
        options: input.options,
        ignored: Object.keys(input.options ?? {}).filter((n) => (COMPAT_PARAMS as readonly string[]).includes(n)),
      });
      return { requestid };
    },
  };
}

/**
 * Removes `uploads/<id>-<name>` files and `jobs/<id>` folders that have no job row: uploads moved into place by a process that died
 * before committing the row, i.e. never acknowledged. Only folders older than a minute, so that a
 * concurrent `voxdex import` between its move and its commit is left alone.
 */
async function removeOrphanJobDirs(paths: JobPaths, store: JobStore, log: Logger): Promise<void> {
  const cutoff = Date.now() - 60_000;
  for (const name of safeReaddir(paths.uploads)) {
    const file = path.join(paths.uploads, name);
    if (statSync(file).mtimeMs > cutoff || (await store.get(name.slice(0, 36)))) continue;
    rmSync(file, { force: true });
    log.info({ file }, 'removed an upload that was never acknowledged');
  }
  for (const id of safeReaddir(paths.jobsDir)) {
    const dir = paths.job(id);
    if (statSync(dir).mtimeMs > cutoff || (await store.get(id))) continue;
    rmSync(dir, { recursive: true, force: true });
    log.info({ dir }, 'removed an upload that was never acknowledged');
  }
}

/**
 * The data dir holds recordings, transcripts and secrets: created 0700, and made 0700 when an earlier
 * version left it readable by others (only when this user owns it).
 */
function makePrivateDir(dir: string, log: Logger): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if ((st.mode & 0o077) !== 0 && st.uid === process.getuid?.()) {
    chmodSync(dir, 0o700);
    log.warn({ dir, was: (st.mode & 0o777).toString(8) }, 'made the data dir private (mode 0700)');
  }
}

/**
 * Object storage: uploads of the last two days (keys uploads/<date>/…) older than a minute that have no
 * job row — stored by an API node that died before committing, never acknowledged — are removed. In
 * the background at start; a failure is only logged.
 */
async function removeOrphanUploads(blobs: BlobStore, store: JobStore, log: Logger): Promise<void> {
  try {
    const cutoff = Date.now() - 60_000;
    for (const daysAgo of [1, 0]) {
      const day = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      for (const b of await blobs.list(`uploads/${day}/`)) {
        const id = b.key.slice(`uploads/${day}/`.length, `uploads/${day}/`.length + 36);
        if (b.modified.getTime() > cutoff || (await store.get(id))) continue;
        await blobs.delete(b.key);
        log.info({ key: b.key }, 'removed an upload that was never acknowledged');
      }
    }
  } catch (err) {
    log.warn({ err }, 'looking for uploads that were never acknowledged failed');
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
