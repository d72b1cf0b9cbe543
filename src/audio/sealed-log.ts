/**
 * A sealed append-only log: audio that must be durable as it arrives (a live call's recording,
 * src/live/call-recording.ts) and sealed at rest like every other recording (sealed-file.ts). A sealed
 * file's fixed 64 KiB chunks would hold up to a chunk of audio in memory until it is full (seconds of
 * a call lost to a kill -9); here each append is its own record, written at once:
 *
 *   header    `VXSLOG01` (8 bytes) | salt (24 random bytes)        file key = HMAC-SHA256(key, salt)
 *   record k  length (u32 LE) | AES-256-GCM(file key, nonce = k as 11 bytes big-endian | 0x4C, bytes) | tag (16)
 *
 * A record's number is in its nonce, so records cannot be dropped or reordered unnoticed; the log is
 * read up to its first record that is cut short or does not open (what a crash mid-write leaves).
 * A finished log is converted into a sealed file (AudioSeal.sealFile of readSealedLog's bytes).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { AudioSeal } from './sealed-file.js';

export const LOG_MAGIC = Buffer.from('VXSLOG01', 'ascii');
const SALT_BYTES = 24;
const HEADER_BYTES = LOG_MAGIC.length + SALT_BYTES;
const TAG_BYTES = 16;
/** Records larger than this are refused on write and taken as damage on read. */
const MAX_RECORD_BYTES = 64 << 20;

export function isSealedLog(head: Uint8Array): boolean {
  return head.length >= LOG_MAGIC.length && LOG_MAGIC.equals(head.subarray(0, LOG_MAGIC.length));
}

function nonce(k: number): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(Math.floor(k / 2 ** 40), 0, 3);
  n.writeUIntBE(k % 2 ** 40, 3, 5);
  n[11] = 0x4c;
  return n;
}

/** Appends records to a log in a file handle the caller owns (it writes, fsyncs and closes). */
export class SealedLogWriter {
  readonly #fh: FileHandle;
  readonly #key: Buffer;
  #k = 0;
  #offset = HEADER_BYTES;

  private constructor(fh: FileHandle, key: Buffer) {
    this.#fh = fh;
    this.#key = key;
  }

  /** Writes the log's header into an empty file. */
  static async start(fh: FileHandle, seal: AudioSeal): Promise<SealedLogWriter> {
    const salt = randomBytes(SALT_BYTES);
    await fh.write(Buffer.concat([LOG_MAGIC, salt]), 0, HEADER_BYTES, 0);
    return new SealedLogWriter(fh, seal.fileKey(salt));
  }

  /** Seals `bytes` as the next record and writes it after the last one. */
  async append(bytes: Uint8Array): Promise<void> {
    if (bytes.length > MAX_RECORD_BYTES) throw new RangeError(`a sealed log record holds at most ${MAX_RECORD_BYTES} bytes`);
    const c = createCipheriv('aes-256-gcm', this.#key, nonce(this.#k++));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length, 0);
    const record = Buffer.concat([length, c.update(bytes), c.final(), c.getAuthTag()]);
    const at = this.#offset;
    this.#offset += record.length;
    await this.#fh.write(record, 0, record.length, at);
  }
}

/** The records of a log that open, in order, up to the first that is cut short or damaged (read one at a time). */
export function* readSealedLog(seal: AudioSeal, path: string): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const read = (at: number, n: number) => {
      const b = Buffer.alloc(Math.max(0, Math.min(n, size - at)));
      return b.subarray(0, b.length ? readSync(fd, b, 0, b.length, at) : 0);
    };
    const header = read(0, HEADER_BYTES);
    if (header.length < HEADER_BYTES || !isSealedLog(header)) return;
    const key = seal.fileKey(header.subarray(LOG_MAGIC.length));
    for (let at = HEADER_BYTES, k = 0; at + 4 <= size; k++) {
      const length = read(at, 4).readUInt32LE(0);
      if (length > MAX_RECORD_BYTES || at + 4 + length + TAG_BYTES > size) break;
      const body = read(at + 4, length + TAG_BYTES);
      let record: Buffer;
      try {
        const d = createDecipheriv('aes-256-gcm', key, nonce(k));
        d.setAuthTag(body.subarray(length));
        record = Buffer.concat([d.update(body.subarray(0, length)), d.final()]);
      } catch {
        return;
      }
      at += 4 + length + TAG_BYTES;
      yield record;
    }
  } finally {
    closeSync(fd);
  }
}
