/**
 * Configuration is read once, here, from the environment (and an optional JSON file named by
 * VOXDEX_CONFIG), validated with precise messages, frozen and passed down. Nothing else reads process.env.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalidParameter } from './is.js';

const HERE = fileURLToPath(import.meta.url);
const ABOVE_SRC = path.resolve(path.dirname(HERE), '..');
/** The package's root: above src/, or above dist/src/ for the compiled build (not any checkout that happens to be named dist). */
export const PACKAGE_ROOT = HERE.endsWith('.js') && path.basename(ABOVE_SRC) === 'dist' ? path.dirname(ABOVE_SRC) : ABOVE_SRC;

/** Who cuts channels into utterances (src/asr/segmenter.ts): the energy segmenter (the default, by measurement), or the Silero VAD. */
export const SEGMENTER_NAMES = ['energy', 'silero'] as const;
export type SegmenterName = (typeof SEGMENTER_NAMES)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  rootTokenFile: string;
  /** The key that seals callback secrets (default: `secrets.key` beside the root token file); every node of an installation needs the same one. */
  secretsKeyFile: string;
  dropDir: string | undefined;
  /** How long a dropped file's size must stay unchanged before it is taken. */
  dropStableMs: number;
  esUrl: string | undefined;
  esIndexPrefix: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  modelsFile: string;
  asrThreads: number;
  maxUploadBytes: number;
  /**
   * Limits decided before anything is extracted or queued. `maxAudioSec` holds for every request
   * (archive or single file), counting each channel.
   */
  archive: { maxMembers: number; maxTotalBytes: number; maxRatio: number; maxAudioSec: number };
  queue: { maxQueuedJobs: number; minFreeDiskBytes: number };
  segment: { maxUtteranceSec: number; segmenter: SegmenterName };
  callback: { attempts: number; baseDelayMs: number; maxDelayMs: number; connectTimeoutMs: number; responseTimeoutMs: number };
  resultUrlTtlSec: number;
  /** VOXDEX_PUBLIC_URL: the origin (and path prefix) of the links voxdex hands out; undefined = the request's Host. */
  publicUrl: string | undefined;
  shutdownGraceMs: number;
  /** Requests per minute per company (and for the root token) on POST /transcribe and on /search; 0 = no limit. */
  rateLimitPerMin: number;
  /** Uploads in progress at once per company (and for the root token); 0 = no limit. */
  maxConcurrentUploads: number;
  /** The longest a client may take to send one whole request (headers and body), ms. */
  requestTimeoutMs: number;
  /** The longest a client may take to send the request headers, ms. */
  headersTimeoutMs: number;
  /** What this process does (voxdex serve --role): all = today's single process; api = HTTP only; worker = ASR and callbacks. */
  role: Role;
  /** PostgreSQL for jobs, outbox, ledger, tenancy and rate limits (several nodes); undefined = the embedded SQLite files. */
  databaseUrl: string | undefined;
  /** S3-compatible object storage for uploads, transcripts and results; undefined = the data dir. */
  s3: S3Config | undefined;
  /** How long a worker's claim on a running job lasts without a heartbeat (distributed mode). */
  leaseMs: number;
  /** Other audio formats (MP3, FLAC, Ogg, M4A, AMR, GSM WAV, WebM) through ffmpeg (src/audio/transcode.ts). */
  transcode: TranscodeConfig;
  /** Live calls (docs/live.md): limits, and how they are run. */
  live: LiveConfig;
  /** CPU budgets (src/search/budget.ts): one search; one category's rule on one call. */
  search: { budgetMs: number; categoryBudgetMs: number };
}

export interface LiveConfig {
  /** Live calls at once on this node (OVERLOADED, 503, beyond). */
  maxCalls: number;
  /** Live calls at once per company on this node (RATE_LIMITED, 429, beyond); 0 = only the node's limit. */
  maxCallsPerCompany: number;
  /** Longest call, seconds of audio. */
  maxCallSec: number;
  /** A call with no message for this long is ended, seconds. */
  idleSec: number;
  /** Audio received but not yet decoded beyond which the server stops reading (back-pressure), seconds. */
  maxBacklogSec: number;
  /** Fastest a call's audio is taken, as a multiple of real time: reading pauses beyond it (src/live/intake-pace.ts). */
  maxSpeed: number;
  /** Least time between two partial decodes of one channel, seconds. */
  partialEverySec: number;
  /** Largest binary message, bytes. */
  maxMessageBytes: number;
}

export interface TranscodeConfig {
  /** VOXDEX_TRANSCODE=off turns transcoding off; on (the default) uses ffmpeg when it is installed. */
  enabled: boolean;
  /** The ffmpeg program (a name looked up in PATH, or a path). */
  ffmpeg: string;
  /** Audio one file may decode to, every channel counted (the decoded samples are held in memory). */
  maxAudioSec: number;
  /** CPU seconds one ffmpeg run may use (RLIMIT_CPU); its wall-clock limit is three times this. */
  cpuSec: number;
  /** Address space of one ffmpeg run (RLIMIT_AS), bytes. */
  memoryBytes: number;
}

export type Role = 'all' | 'api' | 'worker';

export interface S3Config {
  /** Endpoint URL (path-style requests). */
  url: string;
  bucket: string;
  /** Prepended to every key ('' or ending with '/'). */
  prefix: string;
  region: string;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN; undefined = the AWS SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined;
}

type Env = Record<string, string | undefined>;

/** Every setting: its environment name, its default, and how to read it. */
const SETTINGS = {
  port: { env: 'VOXDEX_PORT', def: 8017, read: int(0, 65535) },
  host: { env: 'VOXDEX_HOST', def: '127.0.0.1', read: str },
  dataDir: { env: 'VOXDEX_DATA_DIR', def: './data', read: str },
  rootTokenFile: { env: 'VOXDEX_ROOT_TOKEN_FILE', def: '', read: str },
  secretsKeyFile: { env: 'VOXDEX_SECRETS_KEY_FILE', def: '', read: str },
  dropDir: { env: 'VOXDEX_DROP_DIR', def: '', read: str },
  dropStableMs: { env: 'VOXDEX_DROP_STABLE_MS', def: 2000, read: int(50, 3_600_000) },
  esUrl: { env: 'VOXDEX_ES_URL', def: '', read: url },
  esIndexPrefix: { env: 'VOXDEX_ES_INDEX_PREFIX', def: 'voxdex', read: str },
  logLevel: { env: 'VOXDEX_LOG_LEVEL', def: 'info', read: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent') },
  modelsFile: { env: 'VOXDEX_MODELS_FILE', def: path.join(PACKAGE_ROOT, 'models', 'registry.json'), read: str },
  asrThreads: { env: 'VOXDEX_ASR_THREADS', def: availableParallelism(), read: int(1, 256) },
  maxUploadMiB: { env: 'VOXDEX_MAX_UPLOAD_MIB', def: 250, read: int(1, 1 << 20) },
  archiveMaxMembers: { env: 'VOXDEX_ARCHIVE_MAX_MEMBERS', def: 2000, read: int(1, 1_000_000) },
  archiveMaxTotalMiB: { env: 'VOXDEX_ARCHIVE_MAX_TOTAL_MIB', def: 4096, read: int(1, 1 << 24) },
  archiveMaxRatio: { env: 'VOXDEX_ARCHIVE_MAX_RATIO', def: 200, read: int(1, 1_000_000) },
  maxRequestAudioSec: { env: 'VOXDEX_MAX_REQUEST_AUDIO_SEC', def: 86_400, read: int(1, 100 * 86_400) },
  maxQueuedJobs: { env: 'VOXDEX_MAX_QUEUED_JOBS', def: 10_000, read: int(1, 10_000_000) },
  minFreeDiskMiB: { env: 'VOXDEX_MIN_FREE_DISK_MIB', def: 512, read: int(0, 1 << 30) },
  maxUtteranceSec: { env: 'VOXDEX_MAX_UTTERANCE_SEC', def: 25, read: int(2, 120) },
  segmenter: { env: 'VOXDEX_SEGMENTER', def: 'energy', read: oneOf(...SEGMENTER_NAMES) },
  callbackAttempts: { env: 'VOXDEX_CALLBACK_ATTEMPTS', def: 10, read: int(1, 100) },
  callbackBaseDelayMs: { env: 'VOXDEX_CALLBACK_BASE_DELAY_MS', def: 30_000, read: int(1, 86_400_000) },
  callbackMaxDelayMs: { env: 'VOXDEX_CALLBACK_MAX_DELAY_MS', def: 8 * 3_600_000, read: int(1, 7 * 86_400_000) },
  callbackConnectTimeoutMs: { env: 'VOXDEX_CALLBACK_CONNECT_TIMEOUT_MS', def: 10_000, read: int(1, 600_000) },
  callbackResponseTimeoutMs: { env: 'VOXDEX_CALLBACK_RESPONSE_TIMEOUT_MS', def: 30_000, read: int(1, 600_000) },
  resultUrlTtlSec: { env: 'VOXDEX_RESULT_URL_TTL_SEC', def: 3600, read: int(1, 30 * 86_400) },
  publicUrl: { env: 'VOXDEX_PUBLIC_URL', def: '', read: publicUrl },
  shutdownGraceMs: { env: 'VOXDEX_SHUTDOWN_GRACE_MS', def: 25_000, read: int(0, 600_000) },
  rateLimitPerMin: { env: 'VOXDEX_RATE_LIMIT_PER_MIN', def: 600, read: int(0, 1_000_000) },
  maxConcurrentUploads: { env: 'VOXDEX_MAX_CONCURRENT_UPLOADS', def: 16, read: int(0, 100_000) },
  requestTimeoutSec: { env: 'VOXDEX_REQUEST_TIMEOUT_SEC', def: 1800, read: int(1, 86_400) },
  headersTimeoutSec: { env: 'VOXDEX_HEADERS_TIMEOUT_SEC', def: 30, read: int(1, 3600) },
  role: { env: 'VOXDEX_ROLE', def: 'all', read: oneOf('all', 'api', 'worker') },
  databaseUrl: { env: 'VOXDEX_DATABASE_URL', def: '', read: postgresUrl },
  s3Url: { env: 'VOXDEX_S3_URL', def: '', read: url },
  s3Bucket: { env: 'VOXDEX_S3_BUCKET', def: '', read: bucketName },
  s3Prefix: { env: 'VOXDEX_S3_PREFIX', def: '', read: keyPrefix },
  awsRegion: { env: 'AWS_REGION', def: 'us-east-1', read: str },
  awsAccessKeyId: { env: 'AWS_ACCESS_KEY_ID', def: '', read: str },
  awsSecretAccessKey: { env: 'AWS_SECRET_ACCESS_KEY', def: '', read: str },
  awsSessionToken: { env: 'AWS_SESSION_TOKEN', def: '', read: str },
  leaseSec: { env: 'VOXDEX_LEASE_SEC', def: 30, read: int(2, 3600) },
  transcode: { env: 'VOXDEX_TRANSCODE', def: 'on', read: oneOf('on', 'off') },
  ffmpeg: { env: 'VOXDEX_FFMPEG', def: 'ffmpeg', read: str },
  transcodeMaxAudioSec: { env: 'VOXDEX_TRANSCODE_MAX_AUDIO_SEC', def: 14_400, read: int(1, 100 * 86_400) },
  transcodeCpuSec: { env: 'VOXDEX_TRANSCODE_CPU_SEC', def: 300, read: int(1, 86_400) },
  transcodeMemoryMiB: { env: 'VOXDEX_TRANSCODE_MEMORY_MIB', def: 1024, read: int(64, 1 << 20) },
  liveMaxCalls: { env: 'VOXDEX_LIVE_MAX_CALLS', def: 8, read: int(0, 100_000) },
  liveMaxCallsPerCompany: { env: 'VOXDEX_LIVE_MAX_CALLS_PER_COMPANY', def: 0, read: int(0, 100_000) },
  liveMaxCallSec: { env: 'VOXDEX_LIVE_MAX_CALL_SEC', def: 4 * 3600, read: int(1, 7 * 86_400) },
  liveIdleSec: { env: 'VOXDEX_LIVE_IDLE_SEC', def: 30, read: int(1, 86_400) },
  liveMaxBacklogSec: { env: 'VOXDEX_LIVE_MAX_BACKLOG_SEC', def: 20, read: int(2, 3600) },
  liveMaxSpeed: { env: 'VOXDEX_LIVE_MAX_SPEED', def: 4, read: int(1, 1000) },
  livePartialMs: { env: 'VOXDEX_LIVE_PARTIAL_MS', def: 1000, read: int(100, 60_000) },
  searchBudgetMs: { env: 'VOXDEX_SEARCH_BUDGET_MS', def: 2000, read: int(50, 600_000) },
  categoryBudgetMs: { env: 'VOXDEX_CATEGORY_BUDGET_MS', def: 100, read: int(10, 60_000) },
} as const;

type Settings = typeof SETTINGS;
type Values = { [K in keyof Settings]: Settings[K]['def'] extends number ? number : string };

/** Environment names a deployment may use; also the keys accepted in the VOXDEX_CONFIG JSON file. */
export const CONFIG_ENV_NAMES: readonly string[] = Object.values(SETTINGS).map((s) => s.env);

export function loadConfig(env: Env = process.env): Readonly<Config> {
  const file = env.VOXDEX_CONFIG ? readConfigFile(env.VOXDEX_CONFIG) : {};
  const v = {} as Record<string, unknown>;
  for (const [key, s] of Object.entries(SETTINGS)) {
    const raw = env[s.env] ?? file[s.env];
    v[key] = raw === undefined || raw === '' ? s.def : (s.read as (n: string, r: string) => unknown)(s.env, String(raw));
  }
  const x = v as Values;
  const dataDir = path.resolve(x.dataDir);
  const rootTokenFile = x.rootTokenFile ? path.resolve(x.rootTokenFile) : path.join(dataDir, 'root.token');
  const config: Config = {
    port: x.port,
    host: x.host,
    dataDir,
    rootTokenFile,
    secretsKeyFile: x.secretsKeyFile ? path.resolve(x.secretsKeyFile) : path.join(path.dirname(rootTokenFile), 'secrets.key'),
    dropDir: x.dropDir ? path.resolve(x.dropDir) : undefined,
    dropStableMs: x.dropStableMs,
    esUrl: x.esUrl || undefined,
    esIndexPrefix: x.esIndexPrefix,
    logLevel: x.logLevel as Config['logLevel'],
    modelsFile: path.resolve(x.modelsFile),
    asrThreads: x.asrThreads,
    maxUploadBytes: x.maxUploadMiB * 1024 * 1024,
    archive: { maxMembers: x.archiveMaxMembers, maxTotalBytes: x.archiveMaxTotalMiB * 1024 * 1024, maxRatio: x.archiveMaxRatio, maxAudioSec: x.maxRequestAudioSec },
    queue: { maxQueuedJobs: x.maxQueuedJobs, minFreeDiskBytes: x.minFreeDiskMiB * 1024 * 1024 },
    segment: { maxUtteranceSec: x.maxUtteranceSec, segmenter: x.segmenter as SegmenterName },
    callback: {
      attempts: x.callbackAttempts,
      baseDelayMs: x.callbackBaseDelayMs,
      maxDelayMs: x.callbackMaxDelayMs,
      connectTimeoutMs: x.callbackConnectTimeoutMs,
      responseTimeoutMs: x.callbackResponseTimeoutMs,
    },
    resultUrlTtlSec: x.resultUrlTtlSec,
    publicUrl: x.publicUrl || undefined,
    shutdownGraceMs: x.shutdownGraceMs,
    rateLimitPerMin: x.rateLimitPerMin,
    maxConcurrentUploads: x.maxConcurrentUploads,
    requestTimeoutMs: x.requestTimeoutSec * 1000,
    // Node requires headersTimeout <= requestTimeout.
    headersTimeoutMs: Math.min(x.headersTimeoutSec, x.requestTimeoutSec) * 1000,
    role: x.role as Role,
    databaseUrl: x.databaseUrl || undefined,
    s3: s3Config(x),
    leaseMs: x.leaseSec * 1000,
    transcode: {
      enabled: x.transcode === 'on',
      ffmpeg: x.ffmpeg,
      maxAudioSec: x.transcodeMaxAudioSec,
      cpuSec: x.transcodeCpuSec,
      memoryBytes: x.transcodeMemoryMiB * 1024 * 1024,
    },
    live: {
      maxCalls: x.liveMaxCalls,
      maxCallsPerCompany: x.liveMaxCallsPerCompany,
      maxCallSec: x.liveMaxCallSec,
      idleSec: x.liveIdleSec,
      maxBacklogSec: x.liveMaxBacklogSec,
      maxSpeed: x.liveMaxSpeed,
      partialEverySec: x.livePartialMs / 1000,
      maxMessageBytes: 1 << 20,
    },
    search: { budgetMs: x.searchBudgetMs, categoryBudgetMs: x.categoryBudgetMs },
  };
  if (config.role !== 'all' && !config.databaseUrl) {
    throw invalidParameter('VOXDEX_DATABASE_URL', `a postgres:// URL (role ${config.role} shares its jobs with other nodes; only role all runs on the embedded store)`, '');
  }
  if (config.databaseUrl && !config.esUrl) {
    throw invalidParameter('VOXDEX_ES_URL', 'an http:// or https:// URL with VOXDEX_DATABASE_URL (every node must search the same transcripts)', '');
  }
  if (config.databaseUrl && !config.s3) {
    throw invalidParameter('VOXDEX_S3_URL', 'an http:// or https:// URL with VOXDEX_DATABASE_URL (every node must reach the uploads and results)', '');
  }
  return deepFreeze(config);
}

/** The transcoding settings of an empty environment (on, ffmpeg from PATH): for callers without a Config. */
export function defaultTranscodeConfig(): TranscodeConfig {
  return loadConfig({}).transcode;
}

function s3Config(x: Values): S3Config | undefined {
  if (!x.s3Url) {
    if (x.s3Bucket) throw invalidParameter('VOXDEX_S3_URL', 'an http:// or https:// URL when VOXDEX_S3_BUCKET is set', '');
    return undefined;
  }
  if (!x.s3Bucket) throw invalidParameter('VOXDEX_S3_BUCKET', 'a bucket name with VOXDEX_S3_URL', '');
  if (!!x.awsAccessKeyId !== !!x.awsSecretAccessKey) {
    throw invalidParameter(x.awsAccessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID', 'both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither', '');
  }
  const credentials = x.awsAccessKeyId
    ? { accessKeyId: x.awsAccessKeyId, secretAccessKey: x.awsSecretAccessKey, ...(x.awsSessionToken ? { sessionToken: x.awsSessionToken } : {}) }
    : undefined;
  return { url: x.s3Url, bucket: x.s3Bucket, prefix: x.s3Prefix, region: x.awsRegion, credentials };
}

function readConfigFile(file: string): Record<string, string | number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw invalidParameter('VOXDEX_CONFIG', 'a readable JSON file', `${file} (${(err as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidParameter('VOXDEX_CONFIG', 'a JSON object of VOXDEX_* settings', file);
  }
  for (const key of Object.keys(parsed)) {
    if (!CONFIG_ENV_NAMES.includes(key)) throw invalidParameter(`${file} key`, `one of ${CONFIG_ENV_NAMES.join(', ')}`, key);
  }
  return parsed as Record<string, string | number>;
}

function int(min: number, max: number) {
  return (name: string, raw: string): number => {
    const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw invalidParameter(name, `an integer between ${min} and ${max}`, raw);
    return n;
  };
}

function str(_name: string, raw: string): string {
  return raw;
}

function url(name: string, raw: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol === 'http:' || u.protocol === 'https:') return raw.replace(/\/+$/, '');
  } catch {
    /* reported below */
  }
  throw invalidParameter(name, 'an http:// or https:// URL', raw);
}

/** An http(s) origin with an optional path prefix; no credentials, query or fragment. */
function publicUrl(name: string, raw: string): string {
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.search || u.hash || raw.includes('?') || raw.includes('#')) {
    throw invalidParameter(name, 'an http:// or https:// URL without credentials, query or fragment (e.g. https://voxdex.example.org)', raw);
  }
  return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
}

function postgresUrl(name: string, raw: string): string {
  try {
    const u = new URL(raw);
    if ((u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname) return raw;
  } catch {
    /* reported below */
  }
  throw invalidParameter(name, 'a postgres://user:password@host:port/database URL', raw.replace(/:[^:@/]*@/, ':***@'));
}

/** S3 bucket names: 3-63 lower-case letters, digits, dots and hyphens. */
function bucketName(name: string, raw: string): string {
  if (/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(raw)) return raw;
  throw invalidParameter(name, 'an S3 bucket name (3-63 characters a-z 0-9 . -)', raw);
}

/** A key prefix: '' or path segments ending with '/'. */
function keyPrefix(name: string, raw: string): string {
  if (/^(?:[A-Za-z0-9_.-]+\/)+$/.test(raw) && !raw.split('/').some((s) => s === '.' || s === '..')) return raw;
  throw invalidParameter(name, "a key prefix such as voxdex/ (segments of A-Z a-z 0-9 _ . -, each ending with '/')", raw);
}

function oneOf(...values: string[]) {
  return (name: string, raw: string): string => {
    if (values.includes(raw)) return raw;
    throw invalidParameter(name, `one of ${values.join(', ')}`, raw);
  };
}

function deepFreeze<T>(value: T): Readonly<T> {
  for (const child of Object.values(value as object)) if (child && typeof child === 'object') deepFreeze(child);
  return Object.freeze(value);
}
