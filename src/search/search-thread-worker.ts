/**
 * The read thread's side of search-thread.ts: one read-only connection per index file, opened on the
 * first task; each task is answered by answerSearch (search-answer.ts) exactly as inline.
 */
import { toVoxdexError } from '../errors.js';
import { answerAggregate, answerSearch } from './search-answer.js';
import { SqliteTranscriptIndex } from './sqlite-index.js';
import type { SearchTask, SearchTaskResult } from './search-thread.js';

const indexes = new Map<string, Promise<SqliteTranscriptIndex>>();

function reader(file: string): Promise<SqliteTranscriptIndex> {
  let index = indexes.get(file);
  if (!index) {
    const opened = new SqliteTranscriptIndex({ file, readOnly: true });
    index = opened.init().then(() => opened);
    index.catch(() => indexes.delete(file));
    indexes.set(file, index);
  }
  return index;
}

export default async function answer(task: SearchTask): Promise<SearchTaskResult> {
  try {
    const index = await reader(task.file);
    return { ok: true, answer: task.kind === 'search' ? await answerSearch(index, task.request) : await answerAggregate(index, task.scope, task.raw) };
  } catch (err) {
    return { ok: false, error: toVoxdexError(err).toJSON() };
  }
}
