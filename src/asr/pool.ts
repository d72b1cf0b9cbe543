/**
 * The ASR worker pool (piscina): a fixed number of threads, each holding its own recognizers.
 * Receives one utterance per task; the PCM buffer is transferred, not copied.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina, queueOptionsSymbol } from 'piscina';
import { toVoxdexError, voxdexError, type VoxdexError } from '../errors.js';
import { toEngineDesc, toNativeDesc, vetModel, type NativeWord } from './binding.js';
import type { ModelSpec } from './models.js';
import { PriorityTaskQueue } from './priority-queue.js';
import type { WorkerResult, WorkerTask } from './worker.js';

export interface DecodedSegment {
  words: NativeWord[];
  frames: number;
  decodeMs: number;
  threadId: number;
  /** What the engine's safeguards did (Moonshine: "forced-past-eos", "resegmented-empty", ...). */
  notes: string[];
}

export interface DecodeOptions {
  /** PocketSphinx reference mode: the whole utterance in one native call. */
  wholeUtterance?: boolean;
  /** For a text-only engine: the model that aligns its words (ModelRegistry.aligner()). */
  aligner?: ModelSpec;
  /** Custom vocabulary (phrases) to bias the decoder towards (Moonshine). */
  vocab?: string[];
  /** A live call's utterance: queued ahead of batch work (priority-queue.ts). */
  live?: boolean;
}

/** How long after a live task the pool counts as serving live calls (pool.liveRecently). */
const LIVE_RECENT_MS = 10_000;

export interface AsrPool {
  readonly threads: number;
  /** Vets the models, then loads every one of them in every thread. Rejects with MODEL_LOAD_FAILED. */
  ready(models: ModelSpec[]): Promise<void>;
  /**
   * Decodes one utterance. `samples` must own its whole ArrayBuffer: it is transferred (and so
   * detached here). `abort` is an Int32Array over a SharedArrayBuffer; set [0] to 1 to cancel.
   */
  decode(model: ModelSpec, samples: Int16Array, abort: Int32Array, opts?: DecodeOptions): Promise<DecodedSegment>;
  /**
   * Decodes several utterances in one thread, together (Moonshine batches their decoder steps).
   * Each Int16Array must own its whole ArrayBuffer (transferred). Results in the same order.
   */
  decodeBatch(model: ModelSpec, samples: Int16Array[], abort: Int32Array, opts?: DecodeOptions): Promise<DecodedSegment[]>;
  /** Tasks waiting for a thread. */
  readonly queued: number;
  /** Live tasks waiting for a thread. */
  readonly liveQueued: number;
  /** A live task was submitted in the last few seconds: batch work keeps its tasks small (transcriber.ts). */
  readonly liveRecently: boolean;
  close(): Promise<void>;
}

/** The worker module next to this one: worker.ts under tsx, worker.js once compiled. */
function workerFile(): string {
  const self = fileURLToPath(import.meta.url);
  return self.replace(/pool\.(ts|js)$/, (_m, ext: string) => `worker.${ext}`);
}

export function createAsrPool(opts: { threads?: number } = {}): AsrPool {
  const threads = opts.threads ?? availableParallelism();
  const queue = new PriorityTaskQueue();
  let liveAt = -Infinity;
  const pool = new Piscina<WorkerTask, WorkerResult>({
    taskQueue: queue,
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 2 ** 31 - 1, // keep threads (and their loaded models) for the life of the pool
    concurrentTasksPerWorker: 1,
  });
  let closed = false;
  /** The model loads under way (ready()), settled: close() waits for them. */
  let loading: Promise<unknown> = Promise.resolve();
  // Decodes in a thread, with their abort flags: close() stops them and waits for them, because
  // terminating a thread inside the native decode call aborts the whole process.
  const inflight = new Map<Promise<WorkerResult>, Int32Array>();

  const unwrap = (r: WorkerResult): DecodedSegment[] => {
    if (!r.ok) throw toVoxdexError(r.error);
    // decodeMs is the whole task's: shared out by the segments' frames.
    const frames = r.segments.reduce((n, s) => n + s.frames, 0);
    return r.segments.map((s) => ({ ...s, decodeMs: frames ? (r.decodeMs * s.frames) / frames : r.decodeMs / r.segments.length, threadId: r.threadId }));
  };
  const failed = (err: unknown): VoxdexError => {
    const e = toVoxdexError(err);
    return e.code === 'INTERNAL' ? voxdexError('ASR_FAILED', `ASR worker failed: ${e.message}`, err) : e;
  };

  const decodeBatch: AsrPool['decodeBatch'] = async (model, samples, abort, o = {}) => {
    if (closed) throw voxdexError('NOT_READY', 'the ASR pool is closed');
    await vetModel(model);
    if (o.aligner) await vetModel(o.aligner);
    const task: WorkerTask = {
      type: 'decode',
      model: toEngineDesc(model),
      samples,
      abort,
      wholeUtterance: o.wholeUtterance,
      aligner: o.aligner ? toNativeDesc(o.aligner) : undefined,
      vocab: o.vocab?.length ? o.vocab : undefined,
    };
    if (o.live) {
      (task as unknown as Record<symbol, unknown>)[queueOptionsSymbol] = { live: true };
      liveAt = performance.now();
    }
    const running = pool.run(task, { transferList: samples.map((s) => s.buffer as ArrayBuffer) });
    inflight.set(running, abort);
    let r: WorkerResult;
    try {
      r = await running;
    } catch (err) {
      throw failed(err);
    } finally {
      inflight.delete(running);
    }
    return unwrap(r);
  };

  return {
    threads,
    get queued() {
      return pool.queueSize;
    },
    get liveQueued() {
      return queue.liveSize;
    },
    get liveRecently() {
      return performance.now() - liveAt < LIVE_RECENT_MS;
    },
    async ready(models) {
      for (const m of models) await vetModel(m);
      const barrier = new Int32Array(new SharedArrayBuffer(4));
      const task: WorkerTask = { type: 'load', models: models.map(toEngineDesc), barrier, count: threads };
      const run = Promise.all(Array.from({ length: threads }, () => pool.run(task)));
      loading = run.catch(() => undefined);
      for (const r of await run) unwrap(r);
    },
    async decode(model, samples, abort, o = {}) {
      return (await decodeBatch(model, [samples], abort, o))[0]!;
    },
    decodeBatch,
    async close() {
      if (closed) return;
      closed = true;
      for (const abort of inflight.values()) Atomics.store(abort, 0, 1);
      await Promise.allSettled(inflight.keys());
      // A thread terminated while ONNX Runtime is creating a session aborts the whole process (a
      // SIGTERM in the first seconds after start did): let model loads finish before destroying.
      await loading;
      await pool.destroy();
    },
  };
}
