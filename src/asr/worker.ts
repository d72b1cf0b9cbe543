/**
 * The piscina worker: one engine per model per thread (PocketSphinx recognizers, Moonshine sessions,
 * aligners), loaded on first use (or by a `load` task) and reused. Results and errors go back as plain
 * objects ({ code, message }), never as classes.
 */
import { threadId } from 'node:worker_threads';
import type { ErrorInfo } from '../errors.js';
import type { NativeWord } from './binding.js';
import { descKey, type EngineDesc, type PocketSphinxDesc, type WorkerEngine } from './engines/engine.js';
import { loadMoonshineEngine } from './engines/moonshine.js';
import { loadPocketSphinx, type PocketSphinxEngine } from './engines/pocketsphinx.js';

export interface LoadTask {
  type: 'load';
  models: EngineDesc[];
  /** Barrier: each load task waits until `count` tasks have arrived, so each lands on its own thread. */
  barrier: Int32Array;
  count: number;
}

export interface DecodeTask {
  type: 'decode';
  model: EngineDesc;
  /** One utterance, or several decoded together (an engine with decodeBatch batches their steps). */
  samples: Int16Array[];
  /** Int32 over a SharedArrayBuffer; non-zero means stop. */
  abort: Int32Array;
  wholeUtterance?: boolean;
  /** The PocketSphinx model (no language model) that aligns a text-only engine's words. */
  aligner?: PocketSphinxDesc;
  /** Custom vocabulary the decoder is biased towards. */
  vocab?: string[];
}

export type WorkerTask = LoadTask | DecodeTask;

export interface WorkerSegment {
  words: NativeWord[];
  frames: number;
  notes: string[];
}

export type WorkerResult = { ok: true; segments: WorkerSegment[]; decodeMs: number; threadId: number } | { ok: false; error: ErrorInfo };

const engines = new Map<string, Promise<WorkerEngine>>();
const aligners = new Map<string, PocketSphinxEngine>();

function aligner(desc: PocketSphinxDesc): PocketSphinxEngine {
  const key = descKey(desc);
  let a = aligners.get(key);
  if (!a) aligners.set(key, (a = loadPocketSphinx(desc)));
  return a;
}

function engine(desc: EngineDesc): Promise<WorkerEngine> {
  const key = descKey(desc);
  let e = engines.get(key);
  if (!e) {
    e = desc.engine === 'moonshine' ? loadMoonshineEngine(desc, { aligner }) : Promise.resolve().then(() => loadPocketSphinx(desc));
    engines.set(key, e);
    e.catch(() => engines.delete(key)); // a fixed model can be retried
  }
  return e;
}

function failure(err: unknown): WorkerResult {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : 'ASR_FAILED';
  return { ok: false, error: { code, message: String(e?.message ?? err) } as ErrorInfo };
}

export default async function run(task: WorkerTask): Promise<WorkerResult> {
  if (task.type === 'load') {
    Atomics.add(task.barrier, 0, 1);
    const deadline = Date.now() + 60_000;
    while (Atomics.load(task.barrier, 0) < task.count && Date.now() < deadline) Atomics.wait(task.barrier, 0, Atomics.load(task.barrier, 0), 100);
    Atomics.notify(task.barrier, 0);
    try {
      for (const m of task.models) {
        if (m.engine === 'pocketsphinx' && !m.lm && !m.options.some(([k]) => /^-(jsgf|fsg|kws|keyphrase|allphone)$/.test(k))) aligner(m);
        else await engine(m);
      }
    } catch (err) {
      return failure(err);
    }
    return { ok: true, segments: [], decodeMs: 0, threadId };
  }
  if (Atomics.load(task.abort, 0) !== 0) return { ok: false, error: { code: 'CANCELLED', message: 'cancelled' } };
  try {
    const e = await engine(task.model);
    const t0 = performance.now();
    const reqs = task.samples.map((samples) => ({ samples, abort: task.abort, wholeUtterance: task.wholeUtterance, aligner: task.aligner, vocab: task.vocab }));
    const segments: WorkerSegment[] = [];
    if (e.decodeBatch && reqs.length > 1) segments.push(...(await e.decodeBatch(reqs)));
    else for (const r of reqs) segments.push(await e.decode(r));
    return { ok: true, segments: segments.map((s) => ({ words: s.words, frames: s.frames, notes: s.notes })), decodeMs: performance.now() - t0, threadId };
  } catch (err) {
    return failure(err);
  }
}
