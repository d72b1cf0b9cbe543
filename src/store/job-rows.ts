/**
 * Rows of the `jobs` and `items` tables as both SQL adapters read them, and their mapping to Job and
 * JobItem: one mapping for SQLite and PostgreSQL. Times are ISO 8601 text in SQLite and `Date` from
 * PostgreSQL's timestamptz; both come out as ISO strings.
 */
import type { ErrorInfo } from '../errors.js';
import type { RequestOptions } from '../types.js';
import type { Job, JobItem, JobState } from './job-store.js';

type Time = string | Date;

export interface JobRow {
  seq: number;
  id: string;
  company: string;
  org: string;
  folder: string;
  model: string;
  output: string;
  callback: string | null;
  callback_error: string | null;
  metadata: string | null;
  datetime: string;
  source: string;
  kind: string;
  upload_path: string;
  zpass: string | null;
  warning: string | null;
  size_bytes: number;
  state: string;
  created: Time;
  started: Time | null;
  finished: Time | null;
  progress: number;
  attempts: number;
  error: string | null;
  result_path: string | null;
  options: string | null;
  content_hash: string | null;
  priority: number;
}

export interface ItemRow {
  request_id: string;
  member: string;
  idx: number;
  state: string;
  attempts: number;
  error: string | null;
  tid: string | null;
  audiosecs: number | null;
  transcript_path: string | null;
}

const iso = (t: Time): string => (typeof t === 'string' ? t : t.toISOString());

export function toJob(r: JobRow): Job {
  const job: Job = {
    id: r.id,
    seq: r.seq,
    destination: { company: r.company, org: r.org, folder: r.folder },
    model: r.model,
    output: r.output as Job['output'],
    datetime: r.datetime,
    source: r.source,
    kind: r.kind as Job['kind'],
    uploadPath: r.upload_path,
    sizeBytes: r.size_bytes,
    state: r.state as JobState,
    created: iso(r.created),
    progress: r.progress,
    attempts: r.attempts,
  };
  if (r.callback !== null) job.callback = r.callback;
  if (r.callback_error !== null) job.callbackError = r.callback_error;
  if (r.metadata !== null) job.metadata = JSON.parse(r.metadata) as Record<string, unknown>;
  if (r.zpass !== null) job.zpass = r.zpass;
  if (r.warning !== null) job.warning = r.warning;
  if (r.started !== null) job.started = iso(r.started);
  if (r.finished !== null) job.finished = iso(r.finished);
  if (r.error !== null) job.error = JSON.parse(r.error) as ErrorInfo;
  if (r.result_path !== null) job.resultPath = r.result_path;
  if (r.options !== null) job.options = JSON.parse(r.options) as RequestOptions;
  if (r.content_hash !== null && r.content_hash !== undefined) job.contentHash = r.content_hash;
  if (r.priority) job.priority = r.priority;
  return job;
}

export function toItem(r: ItemRow): JobItem {
  const item: JobItem = { requestId: r.request_id, member: r.member, idx: r.idx, state: r.state as JobItem['state'], attempts: r.attempts };
  if (r.error !== null) item.error = JSON.parse(r.error) as ErrorInfo;
  if (r.tid !== null) item.tid = r.tid;
  if (r.audiosecs !== null) item.audiosecs = r.audiosecs;
  if (r.transcript_path !== null) item.transcriptPath = r.transcript_path;
  return item;
}
