/**
 * A live call's recording, written as it arrives and sealed at rest like every recording
 * (docs/redaction.md, "Audio at rest"): a sealed log (src/audio/sealed-log.ts) whose first record is
 * the WAV header in the call's own encoding (data length 0xFFFFFFFF: "to the end of the file") and
 * whose next records are the frames in order, each written at once and fsynced at least every
 * `syncMs` (a kill -9 loses nothing written; a power cut at most that much). finish() turns the log
 * into a sealed WAV with the real lengths in its header, in place; a crash leaves a log that
 * finishCrashedRecording() turns into one (live-calls.ts, recover). No frame is ever on disk in plain form.
 *
 * The recording is unredacted audio, like an accepted upload: it lives in the data dir's `live/`
 * folder (private, 0700) and becomes the job's upload when the call ends.
 */
import { statSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { fileHead } from '../audio/byte-source.js';
import { isSealed, plainSize, type AudioSeal } from '../audio/sealed-file.js';
import { isSealedLog, readSealedLog, SealedLogWriter } from '../audio/sealed-log.js';
import { parseWavHeader } from '../audio/wav-header.js';
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
  readonly #seal: AudioSeal;
  #fh: FileHandle | undefined;
  #log: SealedLogWriter | undefined;
  #format: AudioFormat | undefined;
  #bytes = 0;
  #writing: Promise<void> = Promise.resolve();
  #syncedAt = 0;
  #failed: unknown;
  readonly #syncMs: number;

  private constructor(path: string, seal: AudioSeal, syncMs: number) {
    this.path = path;
    this.#seal = seal;
    this.#syncMs = syncMs;
  }

  /** Creates the file with the log's header (no audio until the format is known: start()). */
  static async create(path: string, seal: AudioSeal, syncMs = 1000): Promise<CallRecording> {
    const r = new CallRecording(path, seal, syncMs);
    r.#fh = await open(path, 'wx', 0o600);
    r.#log = await SealedLogWriter.start(r.#fh, seal);
    return r;
  }

  /** Bytes of audio written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Writes the header record: from here on the log holds a WAV that decodes. */
  start(format: AudioFormat): void {
    this.#format = format;
    this.#enqueue(() => this.#log!.append(recordingHeader(format, 0xffffffff)));
  }

  /** Appends frames (in order); resolves once they are written (and fsynced when syncMs has passed). */
  append(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return this.#writing;
    this.#bytes += bytes.length;
    return this.#enqueue(async () => {
      await this.#log!.append(bytes);
      if (Date.now() - this.#syncedAt >= this.#syncMs) {
        this.#syncedAt = Date.now();
        await this.#fh!.sync();
      }
    });
  }

  /** fsyncs and closes the log, then turns it into the sealed WAV with the real lengths, in place. */
  async finish(): Promise<void> {
    await this.#enqueue(() => this.#fh!.sync());
    await this.close();
    if (this.#format) await sealRecording(this.#seal, this.path);
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

/**
 * A recording's log as a sealed WAV, in place (written beside it, fsynced, renamed over it): its
 * header record with the real data length (whole frames of what the log holds), then the frames.
 * Resolves to the audio bytes; 0 when the log holds no header or no frame.
 */
async function sealRecording(seal: AudioSeal, path: string): Promise<number> {
  const records = readSealedLog(seal, path);
  const first = records.next();
  if (first.done) return 0;
  // The header record alone: parsed as the start of a longer file (its data runs "to the end").
  const header = parseWavHeader((at, n) => first.value.subarray(at, at + n), first.value.length + 0xffff);
  let data = 0;
  for (const r of readSealedLog(seal, path)) data += r.length;
  data = Math.floor((data - first.value.length) / header.blockAlign) * header.blockAlign;
  if (data <= 0) return 0;
  const tmp = `${path}.sealing`;
  await rm(tmp, { force: true });
  const writer = seal.writer(tmp);
  const written = new Promise<void>((resolve, reject) => (writer.once('finish', resolve), writer.once('error', reject)));
  const write = (b: Buffer) => new Promise<void>((resolve, reject) => writer.write(b, (err) => (err ? reject(err) : resolve())));
  await write(recordingHeader(header.format, data));
  let left = data;
  for (const r of records) {
    if (left === 0) break;
    const part = r.subarray(0, Math.min(r.length, left));
    left -= part.length;
    await write(part);
  }
  writer.end();
  await written;
  const fh = await open(tmp, 'r');
  await fh.sync().finally(() => fh.close());
  await rename(tmp, path);
  return data;
}

/**
 * A recording a crash left, ready to be the job's upload: a log is sealed into a WAV (header lengths
 * from what it holds), a WAV finished before the crash is kept. False when it holds no audio.
 */
export async function finishCrashedRecording(seal: AudioSeal, path: string): Promise<boolean> {
  const head = fileHead(path, 8);
  if (isSealed(head)) return (plainSize(statSync(path).size) ?? 0) > HEADER_BYTES;
  if (!isSealedLog(head)) return false;
  try {
    return (await sealRecording(seal, path)) > 0;
  } catch {
    return false; // a header that does not parse: nothing that decodes was recorded
  }
}
