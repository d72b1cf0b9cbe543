/**
 * The speakers worker pool (piscina): diarization is seconds of CPU on a long call, so it runs off the
 * event loop. One thread by default (the stage costs about a twentieth of the ASR); threads start on
 * the first task and end after a minute idle, so a process that never diarizes never loads the encoder.
 * Each recording's channels are copied into the task (the caller keeps its audio) and transferred.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { toVoxdexError } from '../errors.js';
import type { DiarizeChannel } from './diarize.js';
import type { RecordingOptions, RecordingSpeakers } from './recording.js';
import type { SpeakersResult, SpeakersTask } from './worker.js';

export interface SpeakersPool {
  diarize(channels: DiarizeChannel[], options: RecordingOptions): Promise<Omit<RecordingSpeakers, 'turns'> & { cpuMs: number }>;
  close(): Promise<void>;
}

function workerFile(): string {
  return fileURLToPath(import.meta.url).replace(/pool\.(ts|js)$/, (_m, ext: string) => `worker.${ext}`);
}

export function createSpeakersPool(opts: { threads?: number; idleMs?: number } = {}): SpeakersPool {
  const pool = new Piscina<SpeakersTask, SpeakersResult>({
    filename: workerFile(),
    minThreads: 0,
    maxThreads: opts.threads ?? 1,
    idleTimeout: opts.idleMs ?? 60_000,
    concurrentTasksPerWorker: 1,
  });
  return {
    async diarize(channels, options) {
      const copies = channels.map((c) => ({ ...c, samples: c.samples.slice() }));
      const r = await pool.run({ channels: copies, options }, { transferList: copies.map((c) => c.samples.buffer as ArrayBuffer) });
      if (!r.ok) throw toVoxdexError(r.error);
      return r;
    },
    close: () => pool.destroy(),
  };
}

let shared: SpeakersPool | undefined;

/** The process's pool, made on first use. */
export function speakersPool(): SpeakersPool {
  shared ??= createSpeakersPool();
  return shared;
}
