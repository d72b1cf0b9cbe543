/**
 * createService(config): wires one voxdex node's roles (config.role) to the ports of its deployment
 * mode (src/ports/: job store, outbox, ledger, tenancy, blob store, transcript index, rate limits,
 * the source of work):
 *   all     one process does everything (the default; with the embedded stores, today's single node);
 *   api     accepts uploads, answers results, status and search; runs no ASR;
 *   worker  claims jobs from the shared queue, transcribes them, delivers callbacks; its HTTP
 *           listener answers only /status, /health and /metrics.
 * close() is the graceful stop (docs/service.md, "Graceful stop (SIGTERM)"): stop accepting, let running work finish within the grace
 * period, give the rest back (embedded: resumed after the next start; distributed: by any worker).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry, type ModelRegistry } from './asr/models.js';
import { createTranscriber, type Transcriber } from './asr/transcriber.js';
import type { BlobStore } from './blobs/blob-store.js';
import { CallbackDispatcher } from './callbacks/dispatcher.js';
import { PACKAGE_ROOT, type Config } from './config.js';
import { DropFolderWatcher } from './drop/drop-folder.js';
import type { Submitter } from './drop/submitter.js';
import { voxdexError } from './errors.js';
import { mountAccountRoutes } from './http/account-routes.js';
import { mountAudioRoutes } from './http/audio-routes.js';
import { mountAuditRoutes } from './http/audit-routes.js';
import { AudioSeal } from './audio/sealed-file.js';
import { auditTrail, type AuditTrail } from './http/audit-trail.js';
import { tenancyAccess } from './http/auth.js';
import { COMPAT_PARAMS } from './http/upload-form.js';
import { mountSearchRoutes } from './http/search-routes.js';
import { createHttpApp, sendJson, sendText, type Req, type Res, type RouteTable } from './http/server.js';
import { mountTranscribeRoutes } from './http/transcribe-routes.js';
import { mountUiRoutes } from './http/ui-routes.js';
import { liveUpgrade, mountLiveRoutes, realtimePost, type LiveRouteDeps } from './http/live-routes.js';
import { LiveCalls } from './jobs/live-calls.js';
import { mountCategoryRoutes } from './http/category-routes.js';
import { mountAnalyticsRoutes } from './http/analytics-routes.js';
import { CategoryBackfill } from './analytics/backfill.js';
import { categorizer } from './analytics/categories.js';
import type { CategoryStore } from './store/category-store.js';
import { UploadSlots } from './http/upload-slots.js';
import { JobIntake } from './jobs/job-intake.js';
import { JobRunner } from './jobs/runner.js';
import { requestStatus } from './jobs/status.js';
import { createLogger, type Logger } from './log.js';
import { createMetrics, type Metrics } from './metrics.js';
import { safeReaddir } from './ports/adapters.js';
import { openPorts, type Ports } from './ports/ports.js';
import type { TranscriptIndex } from './search/transcript-index.js';
import { lockDataDir } from './store/data-dir-lock.js';
import type { Job, JobStore } from './store/job-store.js';
import type { CallbackOutbox } from './store/outbox.js';
import { JobPaths } from './store/paths.js';
import type { Tenancy } from './tenancy/tenancy.js';

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
  /** Category rules and their backfill progress. */
  categories: CategoryStore;
  blobs: BlobStore;
  index: TranscriptIndex;
  /** Absent on an API node. */
  transcriber: Transcriber | undefined;
  /** Absent on a worker node. */
  intake: JobIntake | undefined;
  /** Live calls: on a node with role all only. */
  live: LiveCalls | undefined;
  runner: JobRunner;
  metrics: Metrics;
  outbox: CallbackOutbox;
  /** The HTTP routes mounted (methods and polka patterns), e.g. to check them against docs/openapi.json. */
  routes: Array<{ methods: string[]; pattern: string }>;
  /** Resolves when the node can work: models loaded where it runs ASR (rejects if they cannot be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

interface ServiceOptions {
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
  const node = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const paths = new JobPaths(config.dataDir);
  mkdirSync(paths.incoming, { recursive: true });
  for (const stale of safeReaddir(paths.incoming)) rmSync(path.join(paths.incoming, stale), { recursive: true, force: true });
  const ports = await openPorts(config, { node, log });
  try {
    return await wireRoles(config, options.listen !== false, log, node, paths, ports);
  } catch (err) {
    await ports.close();
    throw err;
  }
}

/** The node's roles over `ports`: ASR and callbacks where it runs jobs, intake and the API where it accepts them. */
async function wireRoles(config: Readonly<Config>, listen: boolean, log: Logger, node: string, paths: JobPaths, ports: Ports): Promise<Service> {
  const runsJobs = config.role !== 'api';
  const acceptsJobs = config.role !== 'worker';
  const { urlSecret } = await ports.installation();
  if (acceptsJobs) await ports.removeUnacknowledged();
  await ports.index.init();
  const transcriber = runsJobs ? createTranscriber({ config, log }) : undefined;
  const registry = transcriber?.registry ?? loadModelRegistry(config.modelsFile);
  const models = modelReadiness(transcriber, log);
  const metrics = createMetrics({ queueDepth: () => ports.work.queueDepth(() => runner.queued), jobsByState: () => ports.jobs.countByState() });
  const { jobs: store, outbox, tenancy, index, blobs } = ports;
  const seal = AudioSeal.of(tenancy);
  const categorize = categorizer(ports.categories, { budgetMs: config.search.categoryBudgetMs, log });
  let live: LiveCalls | undefined;
  const runner = new JobRunner({ config, log, store, outbox, tenancy, index, transcriber, blobs, seal, paths, metrics, owner: ports.work.owner, runJobs: runsJobs, categorize, liveTranscript: (id) => live?.liveTranscript(id) });
  // Categories: rules beside tenancy, backfilled over the index by one node per company (a lease in the category store).
  const backfill = new CategoryBackfill({ store: ports.categories, index, log, owner: node, budgetMs: config.search.categoryBudgetMs });
  const installedModels = () => [...registry.list(), ...registry.specs().filter((s) => registry.isAvailable(s)).flatMap((s) => s.aliases)];
  const intake = acceptsJobs ? new JobIntake({ config, store, tenancy, blobs, seal, paths, installedModels, onAccepted: (job) => runner.enqueue(job) }) : undefined;
  // Live calls run where the ASR is and are accepted where requests are: on a node with role all (docs/live.md).
  if (intake && transcriber) live = new LiveCalls({ config, log: log.child({ live: true }), intake, runner, store, blobs, transcriber, categorize, seal });
  const disconnect = ports.work.connect(runner);
  const dispatcher = runsJobs ? callbackDispatcher(config, log, ports, metrics) : undefined;
  const trail = auditTrail(ports.audit, ports.tenancy, urlSecret);
  const app = createHttpApp(log, (routes) => mountRoutes(routes, { config, log, ports, registry, models, metrics, runner, intake, live, paths, urlSecret, backfill, trail }), trail);
  const server = httpServer(config, app.handler, metrics);
  if (intake) server.on('upgrade', liveUpgrade(liveRouteDeps({ log, ports, intake, live, config, trail })));

  await live?.recover();
  if (runsJobs) await runner.start();
  await dispatcher?.start();
  backfill.start();
  const drop = intake ? await watchDropFolder(config, intake, ports, log) : undefined;
  const port = listen ? await startListening(server, config, log, { node, storage: ports.storage, blobs: blobs.kind }) : config.port;

  const close = gracefulStop({ config, log, server, models, drop, intake, live, disconnect, runner, dispatcher, transcriber, backfill, ports });

  return {
    config,
    log,
    server,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    port,
    node,
    store,
    tenancy,
    categories: ports.categories,
    blobs,
    index,
    transcriber,
    intake,
    live,
    runner,
    metrics,
    outbox,
    routes: app.routeList(),
    ready: models.ready,
    close,
  };
}

interface Running {
  config: Readonly<Config>;
  log: Logger;
  server: Server;
  models: { stopping: boolean };
  drop: DropFolderWatcher | undefined;
  intake: JobIntake | undefined;
  live: LiveCalls | undefined;
  disconnect: () => void;
  runner: JobRunner;
  dispatcher: CallbackDispatcher | undefined;
  transcriber: Transcriber | undefined;
  backfill: CategoryBackfill;
  ports: Ports;
}

/**
 * The graceful stop (once, however often it is called): no new requests or drops, running jobs
 * finish within the grace period (the rest are given back), callbacks in flight get what is left,
 * then the ASR pool and the ports close.
 */
function gracefulStop(r: Running): () => Promise<void> {
  const { config, log } = r;
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      const t0 = Date.now();
      r.models.stopping = true;
      log.info('stopping: no new requests; finishing running work');
      r.server.close();
      r.server.closeIdleConnections();
      await r.drop?.close();
      r.intake?.stopAccepting();
      await r.live?.stop();
      r.disconnect();
      await r.runner.stop(Math.max(0, config.shutdownGraceMs - 3_000));
      await r.dispatcher?.stop(Math.max(500, Math.min(3_000, config.shutdownGraceMs - (Date.now() - t0))));
      r.server.closeAllConnections();
      await r.transcriber?.close().catch((err) => log.warn({ err }, 'closing the ASR pool failed'));
      await r.backfill.stop();
      await r.ports.close();
      log.info({ ms: Date.now() - t0 }, 'stopped');
    })());
}

/** Whether the ASR models are loaded (at once where no ASR runs); a failure to load is logged unless the node is stopping. */
function modelReadiness(transcriber: Transcriber | undefined, log: Logger) {
  const state = { loaded: !transcriber, stopping: false, ready: Promise.resolve() };
  if (transcriber) {
    state.ready = transcriber.ready().then(() => {
      state.loaded = true;
    });
  }
  state.ready.catch((err) => {
    if (!state.stopping) log.error({ err }, 'ASR models failed to load; /health stays 503');
  });
  return state;
}

function callbackDispatcher(config: Readonly<Config>, log: Logger, ports: Ports, metrics: Metrics): CallbackDispatcher {
  const { tenancy, blobs } = ports;
  return new CallbackDispatcher({
    outbox: ports.outbox,
    config,
    log,
    secretFor: (company) => (tenancy.hasCompany(company) ? tenancy.callbackSecret(company) : undefined),
    pollMs: 5_000,
    readBody: (key) => blobs.get(key),
    recoverEveryMs: ports.work.recoverEveryMs,
    onAttempt: (e) => metrics.callbackAttempts.inc({ outcome: e.state }),
  });
}

interface RouteDeps {
  config: Readonly<Config>;
  log: Logger;
  ports: Ports;
  registry: ModelRegistry;
  models: { loaded: boolean };
  metrics: Metrics;
  runner: JobRunner;
  intake: JobIntake | undefined;
  live: LiveCalls | undefined;
  paths: JobPaths;
  urlSecret: string;
  backfill: CategoryBackfill;
  trail: AuditTrail;
}

/** What the live-call routes need (the WebSocket upgrade, realtime=true, the web page's API). */
function liveRouteDeps(d: { log: Logger; ports: Ports; intake: JobIntake; live: LiveCalls | undefined; config: Readonly<Config>; trail: AuditTrail }): LiveRouteDeps {
  const { tenancy } = d.ports;
  return { access: tenancyAccess(tenancy, d.trail), tenancy, live: d.live, intake: d.intake, rateLimit: d.ports.rateLimiter('POST /transcribe'), log: d.log };
}

/** Every node: /status, /health, /openapi.json, /metrics; a node that accepts jobs: the API and the web UI. */
function mountRoutes(routes: RouteTable, d: RouteDeps): void {
  const { config, ports, metrics } = d;
  routes.add('GET', '/status', (_req, res) => sendText(res, 200, 'OK'));
  routes.add('GET', '/health', async (_req, res) => {
    if (!d.models.loaded) throw voxdexError('NOT_READY', 'The ASR models are still loading; retry in a few seconds');
    if (!(await ports.jobs.ping())) throw voxdexError('NOT_READY', 'The job store is not reachable');
    if (!(await ports.blobs.ping())) throw voxdexError('NOT_READY', 'The object storage is not reachable');
    sendJson(res, 200, { status: 'ok', role: config.role, models: d.registry.list() });
  });
  routes.add('GET', '/openapi.json', (_req, res) => sendText(res, 200, openApiDocument(), 'application/json; charset=utf-8'));
  routes.add('GET', '/metrics', async (_req, res) => {
    sendText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
  });
  if (d.intake) mountApiRoutes(routes, d, d.intake);
}

/** The API (rate limits, docs/service.md "Rate limits (429)": per company and for the root token, taken once the token is known good) and the web UI. */
function mountApiRoutes(routes: RouteTable, d: RouteDeps, intake: JobIntake): void {
  const { config, ports, paths, urlSecret } = d;
  const { jobs: store, outbox, tenancy, blobs, index } = ports;
  const access = tenancyAccess(tenancy, d.trail);
  const status = (job: Job) => requestStatus(job, { config, store, outbox, metrics: d.metrics });
  mountTranscribeRoutes(routes, {
    intake,
    runner: d.runner,
    status,
    outbox,
    log: d.log,
    store,
    blobs,
    access,
    tenancy,
    urlSecret,
    publicUrl: config.publicUrl,
    resultUrlTtlSec: config.resultUrlTtlSec,
    maxUploadBytes: config.maxUploadBytes,
    incomingDir: paths.incoming,
    seal: AudioSeal.of(tenancy),
    rateLimit: ports.rateLimiter('POST /transcribe'),
    uploadSlots: new UploadSlots(config.maxConcurrentUploads),
    realtime: realtimePost(liveRouteDeps({ log: d.log, ports, intake, live: d.live, config, trail: d.trail })),
  });
  mountLiveRoutes(routes, liveRouteDeps({ log: d.log, ports, intake, live: d.live, config, trail: d.trail }));
  mountSearchRoutes(routes, { index, access, rateLimit: ports.rateLimiter('/search'), log: d.log, categories: ports.categories, budgetMs: config.search.budgetMs });
  // The web UI and what it needs beyond the contract (docs/ui.md).
  mountAccountRoutes(routes, { access, tenancy, store, status, installedModels: () => d.registry.list() });
  mountAudioRoutes(routes, { access, trail: d.trail, store, blobs, seal: AudioSeal.of(ports.tenancy), tenancy: ports.tenancy, scratchDir: paths.incoming, urlSecret, linkTtlSec: config.resultUrlTtlSec, publicUrl: config.publicUrl });
  mountUiRoutes(routes);
  mountCategoryRoutes(routes, { access, store: ports.categories, index, onChange: () => d.backfill.kick() });
  mountAuditRoutes(routes, { access, log: ports.audit });
  mountAnalyticsRoutes(routes, { index, access, categories: ports.categories, rateLimit: ports.rateLimiter('/search'), log: d.log });
}

/**
 * The HTTP server. Slow clients: a connection that sends a byte every few seconds is closed (408)
 * once the request has taken requestTimeoutMs in all, or its headers headersTimeoutMs; checked
 * every few seconds.
 */
function httpServer(config: Readonly<Config>, handler: unknown, metrics: Metrics): Server {
  return createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, config.headersTimeoutMs / 4)),
    },
    (req, res) => {
      const route = (req.url ?? '/').split(/[/?]/)[1] || 'root';
      res.on('finish', () => metrics.httpRequests.inc({ route: KNOWN_ROUTES.has(route) ? route : 'other', status: String(res.statusCode) }));
      (handler as (q: Req, s: Res) => void)(req as Req, res as Res);
    },
  );
}

/** Watches VOXDEX_DROP_DIR where it is set. */
async function watchDropFolder(config: Readonly<Config>, intake: JobIntake, ports: Ports, log: Logger): Promise<DropFolderWatcher | undefined> {
  if (!config.dropDir) return undefined;
  mkdirSync(config.dropDir, { recursive: true });
  const drop = new DropFolderWatcher({ dropDir: config.dropDir, ledger: ports.ledger, submitter: serviceSubmitter(intake), log, stableMs: config.dropStableMs });
  await drop.start();
  log.info({ dropDir: config.dropDir }, 'watching the drop folder');
  return drop;
}

/** Listens on VOXDEX_HOST:VOXDEX_PORT; resolves to the port (the real one when config.port is 0). */
async function startListening(server: Server, config: Readonly<Config>, log: Logger, about: { node: string; storage: string; blobs: string }): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  log.info({ host: config.host, port, role: config.role, node: about.node, store: about.storage, blobs: about.blobs }, 'voxdex listening');
  return port;
}

const KNOWN_ROUTES = new Set(['transcribe', 'search', 'status', 'health', 'metrics', 'openapi.json', 'account', 'ui', 'categories', 'live', 'analytics']);

/** The OpenAPI 3.1 document of the HTTP API (docs/openapi.json), read once. */
let openApiText: string | undefined;
function openApiDocument(): string {
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
        ...(input.sha256 ? { sha256: input.sha256 } : {}),
        ignored: Object.keys(input.options ?? {}).filter((n) => (COMPAT_PARAMS as readonly string[]).includes(n)),
      });
      return { requestid };
    },
    clientText: (company, fields) => intake.clientText(company, fields),
  };
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
