/**
 * The drop folder (docs/drop-folder.md): watches `<dropDir>/<CO>/<ORG>/<FOLDER>/` and submits every complete
 * audio file or archive there exactly once by content, then moves it to `.done/` or, with a
 * `<name>.error.json`, to `.failed/` in the same folder. Nothing is deleted.
 *
 * Complete = its size has not changed for `stableMs` (chokidar awaitWriteFinish); `*.part` files,
 * hidden entries (`.done`, `.failed`, dot-files) and `.json` sidecars are never taken on their own.
 */
import { watch, type FSWatcher } from 'chokidar';
import path from 'node:path';
import { voxdexError } from '../errors.js';
import { isShortName } from '../is.js';
import { silentLogger, type Logger } from '../log.js';
import type { SubmissionLedger } from '../store/ledger.js';
import { NO_REDACTION, type ClientText } from '../redact/client-policy.js';
import type { Destination } from '../types.js';
import { exists, isCandidateName, moveInto, writeJson } from './files.js';
import { intakeFile, type IntakeResult } from './submit-once.js';
import type { Submitter } from './submitter.js';

export const DONE_DIR = '.done';
export const FAILED_DIR = '.failed';

export interface DropFolderOptions {
  dropDir: string;
  /** The ledger of submitted hashes (in the service's store). */
  ledger: SubmissionLedger;
  submitter: Submitter;
  log?: Logger;
  /** How long a file's size must stay unchanged before it is taken (default 2000 ms). */
  stableMs?: number;
  /** Wait before retrying a file the service was too busy to take (default 5000 ms). */
  busyRetryMs?: number;
  /** Poll instead of inotify (network shares). */
  usePolling?: boolean;
  /** Called after each file is handled (observability and tests). */
  onSettled?: (event: DropEvent) => void;
}

export interface DropEvent {
  file: string;
  destination?: Destination;
  result: IntakeResult;
  /** Where the file went (absent when it stayed: busy, or the watcher was stopping). */
  movedTo?: string;
}

export class DropFolderWatcher {
  readonly #o: DropFolderOptions;
  readonly #log: Logger;
  readonly #ledger: SubmissionLedger;
  readonly #queued = new Set<string>();
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  #chain: Promise<void> = Promise.resolve();
  #watcher: FSWatcher | undefined;
  #closing = false;

  constructor(options: DropFolderOptions) {
    this.#o = options;
    this.#log = options.log ?? silentLogger;
    this.#ledger = options.ledger;
  }

  /** Starts watching; files already there are handled too. Resolves once the initial scan is done. */
  start(): Promise<void> {
    const root = path.resolve(this.#o.dropDir);
    const stableMs = this.#o.stableMs ?? 2000;
    this.#watcher = watch(root, {
      depth: 3,
      ignoreInitial: false,
      usePolling: this.#o.usePolling ?? false,
      interval: 500,
      awaitWriteFinish: { stabilityThreshold: stableMs, pollInterval: Math.max(10, Math.min(100, Math.floor(stableMs / 4))) },
      ignored: (p: string) => {
        const rel = path.relative(root, p);
        if (rel === '') return false;
        const parts = rel.split(path.sep);
        return parts.some((x) => x.startsWith('.')) || parts.length > 4 || (parts.length === 4 && !isCandidateName(parts[3]!));
      },
    });
    const take = (p: string) => this.#enqueue(p);
    this.#watcher.on('add', take).on('change', take);
    this.#watcher.on('error', (err) => this.#log.error({ err }, 'drop folder watcher error'));
    return new Promise((resolve) => this.#watcher!.once('ready', () => resolve()));
  }

  /** Stops watching and waits for the file being handled. A submitted file not yet moved is moved on the next start. */
  async close(): Promise<void> {
    this.#closing = true;
    for (const t of this.#retryTimers) clearTimeout(t);
    this.#retryTimers.clear();
    await this.#watcher?.close();
    await this.#chain;
  }

  /** How a file's path may be logged: redacted under its company's policy (the company is the path's first folder). */
  #clientText(file: string): ClientText {
    const company = path.relative(path.resolve(this.#o.dropDir), file).split(path.sep)[0] ?? '';
    return (isShortName(company) && this.#o.submitter.clientText?.(company, {})) || NO_REDACTION;
  }

  #shown(file: string): string {
    return this.#clientText(file).text(file);
  }

  #shownError(file: string, err: unknown): unknown {
    const client = this.#clientText(file);
    return client.active ? client.error({ message: err instanceof Error ? err.message : String(err) }) : err;
  }

  #enqueue(file: string): void {
    if (this.#closing || this.#queued.has(file)) return;
    this.#queued.add(file);
    this.#chain = this.#chain
      .then(() => this.#handle(file))
      .catch((err) => this.#log.error({ err: this.#shownError(file, err), file: this.#shown(file) }, 'drop folder: could not handle file'))
      .finally(() => this.#queued.delete(file));
  }

  async #handle(file: string): Promise<void> {
    if (this.#closing || !(await exists(file))) return;
    const root = path.resolve(this.#o.dropDir);
    const parts = path.relative(root, file).split(path.sep);
    if (parts.length !== 4) {
      this.#log.warn({ file: this.#shown(file) }, 'drop folder: files belong in <dropDir>/<company>/<org>/<folder>/; left where it is');
      return;
    }
    const [company, org, folder] = parts as [string, string, string, string];
    const dir = path.dirname(file);
    let result: IntakeResult;
    let destination: Destination | undefined;
    if (![company, org, folder].every(isShortName)) {
      const e = voxdexError('NOT_FOUND', `No folder ${company}/${org}/${folder}: drop files into <company>/<org>/<folder>/ of an existing folder`);
      result = { kind: 'failed', error: { code: e.code, message: e.message }, shown: file };
    } else {
      destination = { company, org, folder };
      result = await intakeFile(file, destination, 'drop', { ledger: this.#ledger, submitter: this.#o.submitter });
    }
    const event: DropEvent = { file, result, ...(destination ? { destination } : {}) };
    if (this.#closing && result.kind !== 'failed') {
      this.#o.onSettled?.(event); // stopping: the ledger has it; the next start moves it
      return;
    }
    const sidecar = 'sidecar' in result ? result.sidecar : undefined;
    switch (result.kind) {
      case 'busy': {
        this.#log.info({ file: result.shown, error: result.error }, 'drop folder: service busy; will retry');
        const t = setTimeout(() => {
          this.#retryTimers.delete(t);
          this.#enqueue(file);
        }, this.#o.busyRetryMs ?? 5000);
        this.#retryTimers.add(t);
        break;
      }
      case 'submitted':
      case 'resumed':
        event.movedTo = await moveInto(file, path.join(dir, DONE_DIR));
        if (sidecar) await moveInto(sidecar, path.join(dir, DONE_DIR));
        this.#log.info({ file: result.shown, requestid: result.requestid }, 'drop folder: submitted');
        break;
      case 'duplicate':
        event.movedTo = await moveInto(file, path.join(dir, DONE_DIR));
        if (sidecar) await moveInto(sidecar, path.join(dir, DONE_DIR));
        await writeJson(`${event.movedTo}.duplicate.json`, {
          duplicateOf: result.requestid,
          sha256: result.sha256,
          firstPath: result.firstPath,
          note: 'same content as a file submitted before; not submitted again',
        });
        this.#log.info({ file: result.shown, requestid: result.requestid }, 'drop folder: duplicate content; not submitted again');
        break;
      case 'failed':
        event.movedTo = await moveInto(file, path.join(dir, FAILED_DIR));
        if (sidecar && (await exists(sidecar))) await moveInto(sidecar, path.join(dir, FAILED_DIR));
        await writeJson(`${event.movedTo}.error.json`, result.error);
        this.#log.warn({ file: result.shown, error: result.error }, 'drop folder: file failed');
        break;
    }
    this.#o.onSettled?.(event);
  }
}
