/**
 * The piscina worker: one recognizer per model per thread, loaded on first use (or by a `load`
 * task) and reused. Decoding is a synchronous native call on this thread. Results and errors go back
 * as plain objects ({ code, message }), never as classes.
 */
import { threadId } from 'node:worker_threads';
import type { ErrorInfo } from '../errors.js';
import { loadBinding, type NativeModelDesc, type NativeRecognizer, type NativeWord } from './binding.js';

export interface LoadTask {
  type: 'load';
  models: NativeModelDesc[];
  /** Barrier: each load task waits until `count` tasks have arrived, so each lands on its own thread. */
  barrier: Int32Array;
  count: number;
}

export interface DecodeTask {
  type: 'decode';
  model: NativeModelDesc;
  samples: Int16Array;
  /** Int32 over a SharedArrayBuffer; non-zero means stop. */
  abort: Int32Array;
  wholeUtterance?: boolean;
}

export type WorkerTask = LoadTask | DecodeTask;

export type WorkerResult =
  | { ok: true; words: NativeWord[]; frames: number; decodeMs: number; threadId: number }
  | { ok: false; error: ErrorInfo };

const recognizers = new Map<string, NativeRecognizer>();

function recognizer(desc: NativeModelDesc): NativeRecognizer {
  const key = JSON.stringify(desc);
  let r = recognizers.get(key);
  if (!r) {
    const { Recognizer } = loadBinding();
    r = new Recognizer(desc);
    recognizers.set(key, r);
  }
  return r;
}

function failure(err: unknown): WorkerResult {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'ASR_FAILED';
  return { ok: false, error: { code, message: String(e?.message ?? err) } as ErrorInfo };
}

export default function run(task: WorkerTask): WorkerResult {
  if (task.type === 'load') {
    Atomics.add(task.barrier, 0, 1);
    const deadline = Date.now() + 60_000;
    while (Atomics.load(task.barrier, 0) < task.count && Date.now() < deadline) Atomics.wait(task.barrier, 0, Atomics.load(task.barrier, 0), 100);
    Atomics.notify(task.barrier, 0);
    try {
      for (const m of task.models) recognizer(m);
    } catch (err) {
      return failure(err);
    }
    return { ok: true, words: [], frames: 0, decodeMs: 0, threadId };
  }
  if (Atomics.load(task.abort, 0) !== 0) return { ok: false, error: { code: 'CANCELLED', message: 'cancelled' } };
  try {
    const r = recognizer(task.model);
    const t0 = performance.now();
    const out = r.decode(task.samples, task.abort, task.wholeUtterance === true);
    return { ok: true, words: out.words, frames: out.frames, decodeMs: performance.now() - t0, threadId };
  } catch (err) {
    return failure(err);
  }
}
