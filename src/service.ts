/**
 * createService(config): wires the job store, tenancy, transcript index (SQLite, or Elasticsearch
 * when VOXDEX_ES_URL is set), transcriber, scheduler, HTTP app, callbacks and the drop folder, and
 * resumes every job and callback a previous process left unfinished. close() is the graceful stop
 * (API.md §9): stop accepting, let running work finish within the grace period, checkpoint the rest.
 */
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createTranscriber, type Transcriber } from './asr/transcriber.js';
import { CallbackDispatcher } from './callbacks/dispatcher.js';
import { CallbackOutbox } from './callbacks/outbox.js';
import { PACKAGE_ROOT, type Config } from './config.js';
import { DropFolderWatcher } from './drop/drop-folder.js';
import type { Submitter } from './drop/submitter.js';
import { voxdexError } from './errors.js';
import { RateLimiter } from './http/rate-limit.js';
import { createSearchHandler, tenancyAuth, type SearchAuth } from './http/search-routes.js';
import { createHttpApp, sendJson, sendText, type Req, type Res } from './http/server.js';
import { mountTranscribeRoutes } from './http/transcribe-routes.js';
import { JobService } from './jobs/job-service.js';
import { JobPaths } from './jobs/paths.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { elasticsearchIndexFromConfig } from './search/elasticsearch-index.js';
import { SqliteTranscriptIndex } from './search/sqlite-index.js';
import type { TranscriptIndex } from './search/transcript-index.js';
import { probeUpload } from './stages/probe.js';
import { isFailedItem, unpack } from './stages/unpack.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { SqliteJobStore, jobStorePath } from './store/sqlite-job-store.js';
import { ensureRootToken, Tenancy } from './tenancy/tenancy.js';

export interface Service {
  config: Readonly<Config>;
  log: Logger;
  server: Server;
  /** http://host:port the server listens on (the real port when config.port is 0). */
  url: string;
  port: number;
  store: SqliteJobStore;
  tenancy: Tenancy;
  index: TranscriptIndex;
  transcriber: Transcriber;
  jobs: JobService;
  metrics: Metrics;
  outbox: CallbackOutbox;
  /** The HTTP routes mounted (methods and polka patterns), e.g. to check them against docs/openapi.json. */
  routes: Array<{ methods: string[]; pattern: string }>;
  /** Resolves when the models are loaded (rejects if they cannot be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOptions {
  log?: Logger;
  /** Start the HTTP listener (default true). */
  listen?: boolean;
}

/** How often jobs queued by another process (voxdex import) are picked up. */
const SWEEP_MS = 2000;

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
  const paths = new JobPaths(config.dataDir);
  mkdirSync(paths.incoming, { recursive: true });
  for (const stale of safeReaddir(paths.incoming)) rmSync(path.join(paths.incoming, stale), { recursive: true, force: true });

  const { tenancy, rootTokenCreated } = Tenancy.open(config);
  if (rootTokenCreated) log.info({ path: config.rootTokenFile }, 'created the root token file (mode 0600); read the token from there');
  else log.info({ path: config.rootTokenFile }, 'root token file');
  const urlSecret = ensureRootToken(path.join(config.dataDir, 'url.secret')).token;

  const store = new SqliteJobStore(jobStorePath(config.dataDir));
  removeOrphanJobDirs(paths, store, log);
  const outbox = new CallbackOutbox(store.db);
  const index: TranscriptIndex = config.esUrl ? elasticsearchIndexFromConfig(config) : new SqliteTranscriptIndex({ file: path.join(config.dataDir, 'search.sqlite') });
  await index.init();
  const transcriber = createTranscriber({ config, log });

  let jobs: JobService | undefined;
  const metrics = createMetrics({ queueDepth: () => jobs?.scheduler.queued ?? 0, jobsByState: () => store.countByState() });

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

  jobs = new JobService({
    config,
    log,
    store,
    tenancy,
    index,
    transcriber,
    outbox,
    paths,
    metrics,
    installedModels,
    probe: async (file, _name, zpass) => {
      const r = await probeUpload(file, { zpass, disk: { dir: config.dataDir, reserveBytes: config.queue.minFreeDiskBytes } }, config.archive);
      return { kind: r.kind === 'wav' ? 'audio' : 'archive' };
    },
    unpack: async (job, ctx) => {
      const workDir = paths.workDir(job.id);
      rmSync(workDir, { recursive: true, force: true });
      mkdirSync(workDir, { recursive: true });
      const out = await unpack({ path: job.uploadPath, name: job.source, zpass: job.zpass, workDir }, ctx);
      return out.items.map((i) => (isFailedItem(i) ? { name: i.name, error: i.error } : { name: i.name, path: i.path, metadata: i.metadata }));
    },
  });

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
  const scopeAuth = tenancyAuth(tenancy);
  const searchAuth: SearchAuth = (token, company, org, folder) => {
    scopeAuth(token, company, org, folder);
    searchLimit.take(tenancy.authenticate(token));
  };
  const searchHandler = createSearchHandler({ index, auth: searchAuth, log });
  const app = createHttpApp(log, (routes) => {
    routes.add('GET', '/status', (_req, res) => sendText(res, 200, 'OK'));
    routes.add('GET', '/health', (_req, res) => {
      if (!modelsReady) throw voxdexError('NOT_READY', 'The ASR models are still loading; retry in a few seconds');
      if (!store.ping()) throw voxdexError('NOT_READY', 'The job store is not reachable');
      sendJson(res, 200, { status: 'ok', models: transcriber.registry.list() });
    });
    routes.add('GET', '/openapi.json', (_req, res) => sendText(res, 200, openApiDocument(), 'application/json; charset=utf-8'));
    routes.add('GET', '/metrics', async (_req, res) => {
      sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
    });
    mountTranscribeRoutes(routes, {
      jobs: jobs!,
      store,
      tenancy,
      urlSecret,
      resultUrlTtlSec: config.resultUrlTtlSec,
      maxUploadBytes: config.maxUploadBytes,
      incomingDir: paths.incoming,
      rateLimit: transcribeLimit,
    });
    routes.add(['GET', 'POST', 'DELETE'], '/search/*', (req, res) => searchHandler(req, res));
  });

  const server = createServer((req, res) => {
    const route = (req.url ?? '/').split(/[/?]/)[1] || 'root';
    res.on('finish', () => metrics.httpRequests.inc({ route: KNOWN_ROUTES.has(route) ? route : 'other', status: String(res.statusCode) }));
    (app.handler as unknown as (q: Req, s: Res) => void)(req as Req, res as Res);
  });
  server.requestTimeout = 0; // large uploads on slow links
  server.headersTimeout = 60_000;

  jobs.resume();
  dispatcher.start();
  const sweep = setInterval(() => {
    for (const j of store.listUnfinished()) if (j.state === 'queued' && !jobs!.scheduler.has(j.id)) jobs!.scheduler.enqueue(j);
  }, SWEEP_MS);
  sweep.unref();

  let drop: DropFolderWatcher | undefined;
  if (config.dropDir) {
    mkdirSync(config.dropDir, { recursive: true });
    drop = new DropFolderWatcher({ dropDir: config.dropDir, db: store.db, submitter: serviceSubmitter(jobs), log, stableMs: config.dropStableMs });
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
      clearInterval(sweep);
      server.close();
      server.closeIdleConnections();
      await drop?.close();
      const grace = Math.max(0, config.shutdownGraceMs - 3_000);
      await jobs!.stop(grace);
      await dispatcher.stop(Math.max(500, Math.min(3_000, config.shutdownGraceMs - (Date.now() - t0))));
      server.closeAllConnections();
      await transcriber.close().catch((err) => log.warn({ err }, 'closing the ASR pool failed'));
      await index.close().catch((err) => log.warn({ err }, 'closing the index failed'));
      store.close();
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
    jobs,
    metrics,
    outbox,
    routes: app.routeList(),
    ready,
    close,
  };
}

const KNOWN_ROUTES = new Set(['transcribe', 'search', 'status', 'health', 'metrics', 'openapi.json']);

/** The OpenAPI 3.1 document of the HTTP API (docs/openapi.json), read once. */
let openApiText: string | undefined;
export function openApiDocument(): string {
  return (openApiText ??= readFileSync(path.join(PACKAGE_ROOT, 'docs', 'openapi.json'), 'utf8'));
}

/** The drop folder's and `voxdex import`'s way into the service. */
export function serviceSubmitter(jobs: JobService): Submitter {
  return {
    async submit(input) {
      const requestid = await jobs.submit({
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
function removeOrphanJobDirs(paths: JobPaths, store: SqliteJobStore, log: Logger): void {
  const cutoff = Date.now() - 60_000;
  for (const name of safeReaddir(paths.uploads)) {
    const file = path.join(paths.uploads, name);
    if (store.get(name.slice(0, 36)) || statSync(file).mtimeMs > cutoff) continue;
    rmSync(file, { force: true });
    log.info({ file }, 'removed an upload that was never acknowledged');
  }
  for (const id of safeReaddir(paths.jobsDir)) {
    const dir = paths.job(id);
    if (store.get(id) || statSync(dir).mtimeMs > cutoff) continue;
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

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
