/**
 * The SQLite index's read thread (docs/search.md, "Off the event loop"): searches and the dashboard's
 * figures (/analytics) are answered by a
 * worker thread (piscina) with its own connection to the index file, which only reads
 * (opened read-only); the event loop hands the request over and writes the rendered bytes back. Writes
 * (indexing, deletes, category lists) stay on the main connection; SQLite's WAL lets the thread read
 * what was committed meanwhile, and its wildcard cache is dropped whenever another connection wrote
 * (`data_version`).
 * One thread by default, started on the first search and ended after a minute idle.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { toVoxdexError, type ErrorInfo } from '../errors.js';
import type { AggregateAnswer, SearchAnswer, SearchAnswers, SearchRequest } from './search-answer.js';
import type { RawOptions } from './search-options.js';
import type { AggregateScope } from './transcript-index.js';

/** What the thread is given: the index file to read, and a search or the dashboard's figures. */
export type SearchTask = { file: string } & ({ kind: 'search'; request: SearchRequest } | { kind: 'aggregate'; scope: AggregateScope; raw: RawOptions });

export type SearchTaskResult = { ok: true; answer: SearchAnswer | AggregateAnswer } | { ok: false; error: ErrorInfo };

function workerFile(): string {
  return fileURLToPath(import.meta.url).replace(/search-thread\.(ts|js)$/, (_m, ext: string) => `search-thread-worker.${ext}`);
}

/** Answers searches of the SQLite index in `file` on `threads` worker threads (default 1). */
export function searchThread(file: string, opts: { threads?: number; idleMs?: number } = {}): SearchAnswers {
  const pool = new Piscina<SearchTask, SearchTaskResult>({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: opts.threads ?? 1,
    idleTimeout: opts.idleMs ?? 60_000,
    // A search awaits between its slices (budget.ts pace()): others share the thread meanwhile.
    concurrentTasksPerWorker: 4,
  });
  const run = async (task: SearchTask) => {
    const r = await pool.run(task);
    if (!r.ok) throw toVoxdexError(r.error);
    return r.answer;
  };
  return {
    answer: async (request) => (await run({ file, kind: 'search', request })) as SearchAnswer,
    aggregate: async (scope, raw) => (await run({ file, kind: 'aggregate', scope, raw })) as AggregateAnswer,
    close: () => pool.destroy(),
  };
}
