/**
 * createService(config): wires the job store, tenancy, transcript index (SQLite, or Elasticsearch
 * when VOXDEX_ES_URL is set), transcriber, scheduler, HTTP app, callbacks and the drop folder, and
 * resumes every job and callback a previous process left unfinished. close() is the graceful stop
 * (API.md §9): stop accepting, let running work finish within the grace period, checkpoint the rest.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createTranscriber, type Transcriber } from './asr/transcriber.js';
import { CallbackDispatcher } from './callbacks/dispatcher.js';
import type { Config } from './config.js';
import { DropFolderWatcher } from './drop/drop-folder.js';
import type { Submitter } from './drop/submitter.js';
import { voxdexError } from './errors.js';
import { RateLimiter } from './http/rate-limit.js';
import { tenancyAccess } from './http/auth.js';
import { mountSearchRoutes } from './http/search-routes.js';
import { createHttpApp, sendJson, sendText, type Req, type Res } from './http/server.js';
import { mountTranscribeRoutes } from './http/transcribe-routes.js';
import { JobIntake } from './jobs/intake.js';
import { JobRunner } from './jobs/runner.js';
import { requestStatus } from './jobs/status.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { elasticsearchIndexFromConfig } from './search/elasticsearch-index.js';
import { SqliteTranscriptIndex } from './search/sqlite-index.js';
import type { TranscriptIndex } from './search/transcript-index.js';
import type { JobStore } from './store/job-store.js';
import type { CallbackOutbox } from './store/outbox.js';
import { JobPaths } from './store/paths.js';
import { jobStorePath } from './store/sqlite-job-store.js';
import { openSqliteStores } from './store/sqlite-stores.js';
import type { Stores } from './store/stores.js';
import { ensureRootToken, Tenancy } from './tenancy/tenancy.js';

export interface Service {
  config: Readonly<Config>;
  log: Logger;
  server: Server;
  /** http://host:port the server listens on (the real port when config.port is 0). */
  url: string;
  port: number;
  store: JobStore;
  tenancy: Tenancy;
  index: TranscriptIndex;
  transcriber: Transcriber;
  intake: JobIntake;
  runner: JobRunner;
  metrics: Metrics;
  outbox: CallbackOutbox;
  /** Resolves when the models are loaded (rejects if they cannot be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log?: Logger;
  /** Start the HTTP listener (default true). */
  listen?: boolean;
}

export async function createService(config: Readonly<Config>, options: ServiceOptions = {}): Promise<Service> {
  const log = options.log ?? createLogger(config);
  mkdirSync(config.dataDir, { recursive: true });
  const paths = new JobPaths(config.dataDir);
  mkdirSync(paths.incoming, { recursive: true });
  for (const stale of safeReaddir(paths.incoming)) rmSync(path.join(paths.incoming, stale), { recursive: true, force: true });

  const { tenancy, rootTokenCreated } = Tenancy.open(config);
  if (rootTokenCreated) log.info({ path: config.rootTokenFile }, 'created the root token file (mode 0600); read the token from there');
  else log.info({ path: config.rootTokenFile }, 'root token file');
  const urlSecret = ensureRootToken(path.join(config.dataDir, 'url.secret')).token;

  const stores: Stores = openSqliteStores(jobStorePath(config.dataDir));
  const { jobs: store, outbox, ledger } = stores;
  await removeOrphanJobDirs(paths, store, log);
  const index: TranscriptIndex = config.esUrl ? elasticsearchIndexFromConfig(config) : new SqliteTranscriptIndex({ file: path.join(config.dataDir, 'search.sqlite') });
  await index.init();
  const transcriber = createTranscriber({ config, log });

  const metrics = createMetrics({ queueDepth: () => runner.scheduler.queued, jobsByState: () => store.countByState() });

  let modelsReady = false;
  const ready = transcriber.ready().then(() => {
    modelsReady = true;
  });
  let stopping = false;
  ready.catch((err) => {
    if (!stopping) log.error({ err }, 'ASR models failed to load; /health stays 503');
  });

  const installedModels = () => {
    const r = transcriber.registry;
    return [...r.list(), ...r.specs().filter((s) => r.isAvailable(s)).flatMap((s) => s.aliases)];
  };

  const runner = new JobRunner({ config, log, store, outbox, tenancy, index, transcriber, paths, metrics });
  const intake = new JobIntake({ config, store, tenancy, paths, installedModels, onAccepted: (job) => runner.enqueue(job) });

  const dispatcher = new CallbackDispatcher({
    outbox,
    config,
    log,
    secretFor: (company) => (tenancy.hasCompany(company) ? tenancy.callbackSecret(company) : undefined),
    pollMs: 5_000,
    onAttempt: (e) => metrics.callbackAttempts.inc({ outcome: e.state }),
  });

  // Rate limits (API.md §8): per company and for the root token, taken once the token is known good.
  const transcribeLimit = new RateLimiter(config.rateLimitPerMin, 'POST /transcribe');
  const searchLimit = new RateLimiter(config.rateLimitPerMin, '/search');
  const access = tenancyAccess(tenancy);
  const app = createHttpApp(log, (routes) => {
    routes.add('GET', '/status', (_req, res) => sendText(res, 200, 'OK'));
    routes.add('GET', '/health', async (_req, res) => {
      if (!modelsReady) throw voxdexError('NOT_READY', 'The ASR models are still loading; retry in a few seconds');
      if (!(await store.ping())) throw voxdexError('NOT_READY', 'The job store is not reachable');
      sendJson(res, 200, { status: 'ok', models: transcriber.registry.list() });
    });
    routes.add('GET', '/metrics', async (_req, res) => {
      sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
    mountTranscribeRoutes(routes, {
      intake,
      runner,
      status: (job) => requestStatus(job, { config, store, outbox, metrics }),
      store,
      access,
      tenancy,
      urlSecret,
      resultUrlTtlSec: config.resultUrlTtlSec,
      maxUploadBytes: config.maxUploadBytes,
      incomingDir: paths.incoming,
      rateLimit: transcribeLimit,
    });
    mountSearchRoutes(routes, { index, access, rateLimit: searchLimit, log });
  });

  const server = createServer((req, res) => {
    const route = (req.url ?? '/').split(/[/?]/)[1] || 'root';
    res.on('finish', () => metrics.httpRequests.inc({ route: KNOWN_ROUTES.has(route) ? route : 'other', status: String(res.statusCode) }));
    (app.handler as unknown as (q: Req, s: Res) => void)(req as Req, res as Res);
  });
  server.requestTimeout = 0; // large uploads on slow links
  server.headersTimeout = 60_000;

  await runner.start();
  await dispatcher.start();

  let drop: DropFolderWatcher | undefined;
  if (config.dropDir) {
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
    log.info({ host: config.host, port }, 'voxdex listening');
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
      intake.stopAccepting();
      const grace = Math.max(0, config.shutdownGraceMs - 3_000);
      await runner.stop(grace);
      await dispatcher.stop(Math.max(500, Math.min(3_000, config.shutdownGraceMs - (Date.now() - t0))));
      server.closeAllConnections();
      await transcriber.close().catch((err) => log.warn({ err }, 'closing the ASR pool failed'));
      await index.close().catch((err) => log.warn({ err }, 'closing the index failed'));
      await stores.close();
      tenancy.close();
      log.info({ ms: Date.now() - t0 }, 'stopped');
    })());

  return {
    config,
    log,
    server,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    port,
    store,
    tenancy,
    index,
    transcriber,
    intake,
    runner,
    metrics,
    outbox,
    ready,
    close,
  };
}

const KNOWN_ROUTES = new Set(['transcribe', 'search', 'status', 'health', 'metrics']);

/** The drop folder's and `voxdex import`'s way into the service. */
export function serviceSubmitter(intake: JobIntake): Submitter {
  return {
    async submit(input) {
      const requestid = await intake.submit({
        destination: input.destination,
        file: { path: input.path, name: input.originalName, size: statSync(input.path).size },
        move: false,
        metadata: input.metadata,
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

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
