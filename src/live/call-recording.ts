/**
 * A live call's recording, written as it arrives and sealed at rest like every recording voxdex
 * keeps (src/audio/sealed-file.ts): the call's folder in the data dir's `live/` holds `format.json`
 * (the audio's shape, no audio) and a journal of records, one per audio message, each a whole sealed
 * buffer, written as the message arrives and fsynced at least every `syncMs` (a kill -9 loses
 * nothing received; a power cut at most that much). Nothing of the audio is on disk in plain form.
 *
 * When the call ends (or, after a crash, when it is recovered), assembleRecording() writes the
 * records, behind a WAV header with the real lengths, into one sealed file: the request's upload. A
 * record torn by a crash does not open (cut short, or its last-chunk flag missing) and ends the audio.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AudioSeal } from '../audio/sealed-file.js';
import type { AudioFormat } from '../types.js';
import { writeFileDurably } from './durable-file.js';

const HEADER_BYTES = 44;
/** The recording: one sealed record per audio message, each `length (u32 LE) | sealed bytes`. */
const JOURNAL = 'journal';

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
  readonly dir: string;
  readonly #seal: AudioSeal;
  readonly #syncMs: number;
  #fh: FileHandle | undefined;
  #at = 0;
  #bytes = 0;
  #syncedAt = Date.now();
  #writing: Promise<void> = Promise.resolve();
  #failed: unknown;

  private constructor(dir: string, seal: AudioSeal, syncMs: number) {
    this.dir = dir;
    this.#seal = seal;
    this.#syncMs = syncMs;
  }

  /** Creates the call's folder and its journal (no audio until start() and append()). */
  static async create(dir: string, seal: AudioSeal, syncMs = 1000): Promise<CallRecording> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const r = new CallRecording(dir, seal, syncMs);
    r.#fh = await open(path.join(dir, JOURNAL), 'wx', 0o600);
    syncDir(dir);
    return r;
  }

  /** Bytes of audio received so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Records the audio's shape: from here on the folder assembles into a WAV. */
  start(format: AudioFormat): Promise<void> {
    return this.#enqueue(() => writeFileDurably(path.join(this.dir, 'format.json'), JSON.stringify(format)));
  }

  /** Appends frames (in order) as one sealed record; fsynced once syncMs has passed. */
  append(bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return this.#writing;
    this.#bytes += bytes.length;
    const sealed = this.#seal.sealBuffer(bytes);
    const record = Buffer.alloc(4 + sealed.length);
    record.writeUInt32LE(sealed.length, 0);
    sealed.copy(record, 4);
    const at = this.#at;
    this.#at += record.length;
    return this.#enqueue(async () => {
      await this.#fh!.write(record, 0, record.length, at);
      if (Date.now() - this.#syncedAt >= this.#syncMs) {
        this.#syncedAt = Date.now();
        await this.#fh!.sync();
      }
    });
  }

  /** Everything written is fsynced; the journal is closed. */
  async finish(): Promise<void> {
    await this.#enqueue(() => this.#fh!.sync());
    const fh = this.#fh;
    this.#fh = undefined;
    await fh?.close();
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

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The plain bytes of one sealed record. */
async function openRecord(seal: AudioSeal, sealed: Buffer): Promise<Buffer> {
  const src = seal.openBuffer(sealed, 'a live call record');
  try {
    const buf = Buffer.alloc(src.size);
    for (let k = 0; k < buf.length; ) {
      const got = await src.read(buf.subarray(k), k);
      if (got === 0) throw new Error('short record');
      k += got;
    }
    return buf;
  } finally {
    await src.close();
  }
}

/**
 * The recording in `dir` as one sealed WAV at `out` (the header with the real lengths, then every
 * record that opens, in order); resolves to its plain size, or undefined when it holds no audio.
 */
export async function assembleRecording(dir: string, seal: AudioSeal, out: string): Promise<number | undefined> {
  if (!existsSync(path.join(dir, 'format.json'))) return undefined;
  const format = JSON.parse(readFileSync(path.join(dir, 'format.json'), 'utf8')) as AudioFormat;
  const parts: Buffer[] = [];
  const journal = existsSync(path.join(dir, JOURNAL)) ? readFileSync(path.join(dir, JOURNAL)) : Buffer.alloc(0);
  for (let at = 0; at + 4 <= journal.length; ) {
    const n = journal.readUInt32LE(at);
    if (at + 4 + n > journal.length) break; // torn by a crash
    try {
      parts.push(await openRecord(seal, journal.subarray(at + 4, at + 4 + n)));
    } catch {
      break; // a record that does not open: nothing after it was acknowledged either
    }
    at += 4 + n;
  }
  const blockAlign = format.channels * (format.bitsPerSample / 8);
  const all = Buffer.concat(parts);
  const data = all.subarray(0, Math.floor(all.length / blockAlign) * blockAlign);
  if (data.length === 0) return undefined;
  rmSync(out, { force: true });
  await pipeline(Readable.from([recordingHeader(format, data.length), data]), seal.writer(out));
  return HEADER_BYTES + data.length;
}
