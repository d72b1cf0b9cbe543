/**
 * A live call's recording, written as it arrives: a WAV file in the call's own encoding, its header
 * first (data length 0xFFFFFFFF: "to the end of the file", which the decoder reads as such), the
 * frames appended in order, fsynced at least every `syncMs` (a kill -9 loses nothing written; a
 * power cut at most that much). finish() writes the real lengths into the header. A crash leaves a
 * file the upload pipeline decodes as it is (recover-calls.ts).
 *
 * The recording is unredacted audio at rest, like an accepted upload: it lives in the data dir's
 * `live/` folder (private, 0700) and becomes the job's upload when the call ends.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { AudioFormat } from '../types.js';

const HEADER_BYTES = 44;

/** The canonical 44-byte header (PCM, or G.711 with its format tag) for `dataBytes` of frames. */
export function recordingHeader(format: AudioFormat, dataBytes: number): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const tag = format.encoding === 'mulaw' ? 7 : format.encoding === 'alaw' ? 6 : format.encoding === 'pcm_f32' ? 3 : 1;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(dataBytes === 0xffffffff ? 0xffffffff : Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(tag, 20);
  h.writeUInt16LE(format.channels, 22);
  h.writeUInt32LE(format.sampleRate, 24);
  h.writeUInt32LE(format.sampleRate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(format.bitsPerSample, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export class CallRecording {
  readonly path: string;
  #fh: FileHandle | undefined;
  #format: AudioFormat | undefined;
  #bytes = 0;
  #writing: Promise<void> = Promise.resolve();
  #syncedAt = 0;
  #failed: unknown;
  readonly #syncMs: number;

  private constructor(path: string, syncMs: number) {
    this.path = path;
    this.#syncMs = syncMs;
  }

  /** Creates the file (nothing in it until the format is known: start()). */
  static async create(path: string, syncMs = 1000): Promise<CallRecording> {
    const r = new CallRecording(path, syncMs);
    r.#fh = await open(path, 'wx', 0o600);
    return r;
  }

  /** Bytes of audio written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Writes the header: from here on the file is a WAV that decodes. */
  start(format: AudioFormat): void {
    this.#format = format;
    this.#enqueue(() => this.#fh!.write(recordingHeader(format, 0xffffffff), 0, HEADER_BYTES, 0).then(() => undefined));
  }

  /** Appends frames (in order); resolves once they are written (and fsynced when syncMs has passed). */
  append(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return this.#writing;
    const at = HEADER_BYTES + this.#bytes;
    this.#bytes += bytes.length;
    return this.#enqueue(async () => {
      await this.#fh!.write(bytes, 0, bytes.length, at);
      if (Date.now() - this.#syncedAt >= this.#syncMs) {
        this.#syncedAt = Date.now();
        await this.#fh!.sync();
      }
    });
  }

  /** Writes the real lengths into the header, fsyncs and closes. */
  async finish(): Promise<void> {
    await this.#enqueue(async () => {
      if (this.#format) await this.#fh!.write(recordingHeader(this.#format, this.#bytes), 0, HEADER_BYTES, 0);
      await this.#fh!.sync();
    });
    await this.close();
  }

  async close(): Promise<void> {
    const fh = this.#fh;
    this.#fh = undefined;
    await this.#writing.catch(() => undefined);
    await fh?.close().catch(() => undefined);
  }

  #enqueue(write: () => Promise<void>): Promise<void> {
    this.#writing = this.#writing.then(() => {
      if (this.#failed !== undefined) throw this.#failed;
      if (!this.#fh) throw new Error('the call recording is closed');
      return write().catch((err: unknown) => {
        this.#failed = err;
        throw err;
      });
    });
    return this.#writing;
  }
}

/** Fixes the header of a recording a crash left (lengths from the file's size), synchronously; false when it has no header. */
export function sealCrashedRecording(path: string, format: AudioFormat, size: number): boolean {
  if (size < HEADER_BYTES) return false;
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const data = Math.floor((size - HEADER_BYTES) / blockAlign) * blockAlign;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, recordingHeader(format, data), 0, HEADER_BYTES, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return data > 0;
}
