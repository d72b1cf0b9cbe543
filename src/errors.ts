/**
 * The one error table. Every error voxdex reports has a stable `code`, the HTTP status it maps to,
 * a message that tells the caller what to do, and whether retrying the same work can succeed.
 * Errors cross worker threads as plain objects ({ code, message }), never as classes.
 */
export const ERRORS = {
  // 400 — the request itself is wrong
  BAD_ARGUMENT: { status: 400, retryable: false },
  UNKNOWN_PARAMETER: { status: 400, retryable: false },
  BAD_NAME: { status: 400, retryable: false },
  BAD_CALLBACK_URL: { status: 400, retryable: false },
  BAD_SAMPLE_RATE: { status: 400, retryable: false },
  BAD_AUDIO: { status: 400, retryable: false },
  BAD_ARCHIVE: { status: 400, retryable: false },
  BAD_ZPASS: { status: 400, retryable: false },
  UNSAFE_ARCHIVE_MEMBER: { status: 400, retryable: false },
  ARCHIVE_LIMIT: { status: 413, retryable: false },
  NO_AUDIO_MEMBERS: { status: 400, retryable: false },
  NESTED_ARCHIVE: { status: 400, retryable: false },
  NOT_AUDIO: { status: 415, retryable: false },
  BAD_QUERY: { status: 400, retryable: false },
  /** A search (or a category's rule) that would use more CPU than its budget: refused, narrow it. */
  QUERY_TOO_EXPENSIVE: { status: 400, retryable: false },
  IDLE_TIMEOUT: { status: 400, retryable: false },
  // 401 / 403 — who is asking
  BAD_TOKEN: { status: 401, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  MODEL_NOT_AUTHORIZED: { status: 403, retryable: false },
  // 404 / 405 / 413 / 415 / 416
  NOT_FOUND: { status: 404, retryable: false },
  UNKNOWN_MODEL: { status: 400, retryable: false },
  /** A search's `category=` names no category of the company. */
  UNKNOWN_CATEGORY: { status: 400, retryable: false },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false },
  ALREADY_FINISHED: { status: 409, retryable: false },
  /** A callback resend for a request with none to send (no URL, not finished yet, or being sent right now). */
  NO_CALLBACK: { status: 409, retryable: false },
  TOO_LARGE: { status: 413, retryable: false },
  UNSUPPORTED_AUDIO: { status: 415, retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false },
  RANGE_NOT_SATISFIABLE: { status: 416, retryable: false },
  // 422 / 429 / 503 — no result, slow down, come back later
  REQUEST_FAILED: { status: 422, retryable: false },
  CANCELLED: { status: 422, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  OVERLOADED: { status: 503, retryable: true },
  NOT_READY: { status: 503, retryable: true },
  // engine and internals
  MODEL_LOAD_FAILED: { status: 500, retryable: false },
  ASR_FAILED: { status: 500, retryable: true },
  INDEX_UNAVAILABLE: { status: 503, retryable: true },
  STORAGE_UNAVAILABLE: { status: 503, retryable: true },
  /** A transcript about to be written unredacted for a company under a text policy: refused, nothing written (src/redact/at-write.ts). */
  UNREDACTED_WRITE: { status: 500, retryable: true },
  INTERNAL: { status: 500, retryable: false },
  // the installation (reported at start, by the CLI)
  DATA_DIR_IN_USE: { status: 500, retryable: false },
  SECRET_KEY_INVALID: { status: 500, retryable: false },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERRORS;

/** What crosses threads, stores and HTTP bodies. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/** How an error is answered over HTTP beyond its status; set where the error is made, rendered by the one onError. */
interface HttpHints {
  /** Retry-After seconds of a 429 or 503 (default 30). */
  retryAfterSec?: number;
  /** The Allow header of a 405. */
  allow?: string;
  /** Answer with `Connection: close` (the request body was not read). */
  closeConnection?: boolean;
  /** The Content-Range header of a 416 (`bytes *\/<size>`). */
  contentRange?: string;
  /**
   * A status other than the table's, where the contract gives one code two meanings: NOT_READY is 503
   * for the service (`/health` while models load) and 409 for a resource not made yet (the redacted
   * recording of a running scrubaudio job).
   */
  status?: 409;
}

interface VoxdexErrorOptions extends HttpHints {
  cause?: unknown;
}

export class VoxdexError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterSec: number | undefined;
  readonly allow: string | undefined;
  readonly contentRange: string | undefined;
  closeConnection: boolean;

  constructor(code: ErrorCode, message: string, options: VoxdexErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'VoxdexError';
    this.code = code;
    this.status = options.status ?? ERRORS[code].status;
    this.retryable = ERRORS[code].retryable;
    this.retryAfterSec = options.retryAfterSec;
    this.allow = options.allow;
    this.contentRange = options.contentRange;
    this.closeConnection = options.closeConnection ?? false;
  }

  toJSON(): ErrorInfo {
    return { code: this.code, message: this.message };
  }
}

export function voxdexError(code: ErrorCode, message: string, cause?: unknown): VoxdexError {
  return new VoxdexError(code, message, cause === undefined ? {} : { cause });
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** How long a voxdex SQLite connection waits for another's write lock before SQLITE_BUSY (src/store/sqlite/sqlite.ts). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** Turns anything thrown (also a structured-cloned error from a worker) into a VoxdexError. */
export function toVoxdexError(err: unknown): VoxdexError {
  if (err instanceof VoxdexError) return err;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e && isErrorCode(e.code)) return new VoxdexError(e.code, String(e.message ?? e.code));
  if (e && typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) {
    // Another process (the running service, another admin command) held the write lock past the busy timeout.
    return new VoxdexError(
      'STORAGE_UNAVAILABLE',
      `The database was locked by another voxdex process (the running service or another command) for longer than ${SQLITE_BUSY_TIMEOUT_MS / 1000} s; nothing was changed. Try again.`,
      { cause: err },
    );
  }
  const message = e && typeof e.message === 'string' ? e.message : String(err);
  // The message reaches clients (HTTP bodies, per-file errors): file names stay, server folders do not.
  return new VoxdexError('INTERNAL', `internal error: ${withoutFolders(message)}`, { cause: err });
}

/** `open '/srv/voxdex/data/incoming/abc'` → `open 'abc'`: every absolute path reduced to its last name. */
export function withoutFolders(text: string): string {
  return text.replace(/(^|[\s'"(=,:])\/(?:[^\s'"()/,:]+\/)*([^\s'"()/,:]*)/g, (_m, before: string, name: string) => `${before}${name || '/'}`);
}
