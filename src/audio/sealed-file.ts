/**
 * Audio at rest, sealed: every recording voxdex keeps — the accepted upload, the members extracted
 * from an archive, the audio kept for playback — is written encrypted under a key derived from the
 * installation's secrets key (the one that seals callback secrets, src/tenancy/secret-box.ts), so a
 * copy of the disk or of the bucket holds no playable call. Readers open a sealed file as a
 * ByteSource and decrypt in memory, one chunk at a time: nothing is written back out in plain form.
 *
 * Format (docs/redaction.md, "Audio at rest"): a streaming AEAD in the shape of age / Tink's
 * streaming AEAD —
 *   header   `VXSEAL01` (8 bytes) | salt (24 random bytes)         file key = HMAC-SHA256(key, salt)
 *   chunk k  AES-256-GCM(file key, nonce = k as 11 bytes big-endian | last-chunk flag, ≤ 64 KiB) | tag (16)
 * Chunks are independent, so any byte range is read by decrypting only the chunks it touches (HTTP
 * range requests, block-wise decoding). The flag on the last chunk, with every chunk's position in
 * its nonce, makes a truncated, reordered or spliced file fail to open instead of reading short.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileHead, fileSource, streamOf, type ByteSource } from './byte-source.js';
import { voxdexError } from '../errors.js';

const SEAL_MAGIC = Buffer.from('VXSEAL01', 'ascii');
const SALT_BYTES = 24;
export const SEAL_HEADER_BYTES = SEAL_MAGIC.length + SALT_BYTES;
/** Plaintext bytes per chunk. */
export const SEAL_CHUNK_BYTES = 64 * 1024;
const TAG_BYTES = 16;
const SEALED_CHUNK_BYTES = SEAL_CHUNK_BYTES + TAG_BYTES;

/** Whether `head` (the first bytes of a file) is a sealed file's. */
export function isSealed(head: Uint8Array): boolean {
  return head.length >= SEAL_MAGIC.length && SEAL_MAGIC.equals(head.subarray(0, SEAL_MAGIC.length));
}

/** The plaintext size of a sealed file of `sealedSize` bytes; undefined when no sealed file has that size. */
export function plainSize(sealedSize: number): number | undefined {
  const body = sealedSize - SEAL_HEADER_BYTES;
  if (body < TAG_BYTES) return undefined;
  const chunks = Math.ceil(body / SEALED_CHUNK_BYTES);
  const last = body - (chunks - 1) * SEALED_CHUNK_BYTES - TAG_BYTES;
  return last < 0 ? undefined : (chunks - 1) * SEAL_CHUNK_BYTES + last;
}

function nonce(k: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  n.writeUIntBE(Math.floor(k / 2 ** 40), 0, 3);
  n.writeUIntBE(k % 2 ** 40, 3, 5);
  n[11] = last ? 1 : 0;
  return n;
}

function sealChunk(fileKey: Buffer, k: number, last: boolean, plain: Uint8Array): Buffer {
  const c = createCipheriv('aes-256-gcm', fileKey, nonce(k, last));
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

/** The installation's key for audio at rest, and the sealed files written and read with it. */
export class AudioSeal {
  readonly #key: Buffer;
  /** Where the key came from, for messages. */
  readonly source: string;

  constructor(key: Buffer, source: string) {
    if (key.length !== 32) throw new Error('AudioSeal: the key must be 32 bytes');
    this.#key = key;
    this.source = source;
  }

  /** The installation's audio key (derived from its secrets key: the same on every node). */
  static of(tenancy: { derivedKey(purpose: 'audio'): Buffer }, source = 'the secrets key'): AudioSeal {
    return new AudioSeal(tenancy.derivedKey('audio'), source);
  }

  /** A key that lives only in this process: files sealed with it are unreadable once it ends (`voxdex transcribe`'s scratch files, tests). */
  static ephemeral(): AudioSeal {
    return new AudioSeal(randomBytes(32), 'memory');
  }

  /** The key of one file, from its random salt. */
  #fileKey(salt: Uint8Array): Buffer {
    return createHmac('sha256', this.#key).update(salt).digest();
  }

  #header(): { header: Buffer; fileKey: Buffer } {
    const salt = randomBytes(SALT_BYTES);
    return { header: Buffer.concat([SEAL_MAGIC, salt]), fileKey: this.#fileKey(salt) };
  }

  /** `plain` sealed, in memory (small blobs: the kept audio of one file). */
  sealBuffer(plain: Uint8Array): Buffer {
    const { header, fileKey } = this.#header();
    const parts = [header];
    const chunks = Math.max(1, Math.ceil(plain.length / SEAL_CHUNK_BYTES));
    for (let k = 0; k < chunks; k++) parts.push(sealChunk(fileKey, k, k === chunks - 1, plain.subarray(k * SEAL_CHUNK_BYTES, (k + 1) * SEAL_CHUNK_BYTES)));
    return Buffer.concat(parts);
  }

  /**
   * A Writable that seals what is written to it into a new file at `path` (created 0600; an existing
   * file is an error). 'finish' fires once every byte is written and the file closed; destroying it
   * before then removes the file.
   */
  writer(path: string): Writable {
    const { header, fileKey } = this.#header();
    let fh: FileHandle | undefined;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let k = 0;
    let finished = false;
    const writeChunk = async (plain: Buffer, last: boolean) => {
      await fh!.write(sealChunk(fileKey, k++, last, plain));
    };
    /** Seals every full chunk but the last (held back: only `final` knows which chunk is the last). */
    const flushFull = async () => {
      if (pendingBytes <= SEAL_CHUNK_BYTES) return;
      let all = Buffer.concat(pending);
      while (all.length > SEAL_CHUNK_BYTES) {
        await writeChunk(all.subarray(0, SEAL_CHUNK_BYTES), false);
        all = all.subarray(SEAL_CHUNK_BYTES);
      }
      pending = [all];
      pendingBytes = all.length;
    };
    return new Writable({
      highWaterMark: SEAL_CHUNK_BYTES,
      construct(cb) {
        open(path, 'wx', 0o600)
          .then(async (h) => {
            fh = h;
            await h.write(header);
          })
          .then(() => cb(), cb);
      },
      write(chunk: Buffer, _enc, cb) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        flushFull().then(() => cb(), cb);
      },
      final(cb) {
        writeChunk(Buffer.concat(pending), true)
          .then(() => fh!.close())
          .then(() => {
            finished = true;
            fh = undefined;
            cb();
          }, cb);
      },
      destroy(err, cb) {
        const closing = fh ? fh.close().catch(() => undefined) : Promise.resolve();
        void closing.then(async () => {
          if (!finished) await rm(path, { force: true });
          cb(err);
        });
      },
    });
  }

  /** Seals the plain file `from` into a new file `to`. */
  async sealFile(from: ByteSource, to: string): Promise<void> {
    await pipeline(streamOf(from), this.writer(to));
  }

  /** A sealed file's plaintext, read in place (SECRET_KEY_INVALID when it does not open with this key). */
  open(path: string): ByteSource {
    let fd: number | undefined;
    let reader: ChunkReader | undefined;
    const chunks = () => {
      if (!reader) {
        fd = openSync(path, 'r');
        reader = new ChunkReader(this.#keyOf, fstatSync(fd).size, (into, at) => readSync(fd!, into, 0, into.length, at), path);
      }
      return reader;
    };
    const size = chunks().size;
    const src: ByteSource = {
      size,
      readSync: (into, position) => chunks().read(into, position),
      read: async (into, position) => chunks().read(into, position),
      stream: (start, end) => streamOf(src, start, end),
      close: async () => {
        if (fd !== undefined) closeSync(fd);
        fd = undefined;
        reader = undefined;
      },
    };
    return src;
  }

  /**
   * A stored recording: sealed (everything this version writes), or a plain WAV kept by a version
   * before audio was sealed (read as it is; `voxdex redact` and a job's end replace or remove it).
   */
  openStored(path: string): ByteSource {
    return isSealed(fileHead(path, SEAL_MAGIC.length)) ? this.open(path) : fileSource(path);
  }

  /** Sealed bytes held in memory, as their plaintext. */
  openBuffer(sealed: Buffer, what: string): ByteSource {
    const reader = new ChunkReader(this.#keyOf, sealed.length, (into, at) => sealed.copy(into, 0, at, at + into.length), what);
    const src: ByteSource = {
      size: reader.size,
      readSync: (into, position) => reader.read(into, position),
      read: async (into, position) => reader.read(into, position),
      stream: (start, end) => streamOf(src, start, end),
      close: async () => {},
    };
    return src;
  }

  /** The file key of a sealed file, from its header. */
  #keyOf = (header: Uint8Array): Buffer => this.#fileKey(header.subarray(SEAL_MAGIC.length, SEAL_HEADER_BYTES));
}

/** Random access to a sealed file's plaintext: decrypts the chunks a read touches (the last one is cached). */
class ChunkReader {
  readonly size: number;
  readonly #sealedSize: number;
  readonly #readAt: (into: Buffer, at: number) => number;
  readonly #what: string;
  readonly #fileKey: Buffer;
  readonly #chunks: number;
  #cached: { k: number; plain: Buffer } | undefined;

  constructor(keyOf: (header: Uint8Array) => Buffer, sealedSize: number, readAt: (into: Buffer, at: number) => number, what: string) {
    this.#sealedSize = sealedSize;
    this.#readAt = readAt;
    this.#what = what;
    const header = this.#bytes(0, SEAL_HEADER_BYTES);
    const size = plainSize(sealedSize);
    if (!isSealed(header) || size === undefined) throw damaged(what, 'it is not a sealed file');
    this.size = size;
    this.#chunks = Math.ceil((sealedSize - SEAL_HEADER_BYTES) / SEALED_CHUNK_BYTES);
    this.#fileKey = keyOf(header);
  }

  #bytes(at: number, length: number): Buffer {
    const buf = Buffer.alloc(Math.max(0, Math.min(length, this.#sealedSize - at)));
    let got = 0;
    while (got < buf.length) {
      const n = this.#readAt(buf.subarray(got), at + got);
      if (n === 0) throw damaged(this.#what, 'it is shorter than it was');
      got += n;
    }
    return buf;
  }

  #chunk(k: number): Buffer {
    if (this.#cached?.k === k) return this.#cached.plain;
    const sealed = this.#bytes(SEAL_HEADER_BYTES + k * SEALED_CHUNK_BYTES, SEALED_CHUNK_BYTES);
    let plain: Buffer;
    try {
      const d = createDecipheriv('aes-256-gcm', this.#fileKey, nonce(k, k === this.#chunks - 1));
      d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      plain = Buffer.concat([d.update(sealed.subarray(0, sealed.length - TAG_BYTES)), d.final()]);
    } catch {
      throw damaged(this.#what, 'a chunk does not open with this installation\'s key');
    }
    this.#cached = { k, plain };
    return plain;
  }

  /** Copies plaintext from `position` into `into`; returns the bytes copied (0 at the end). */
  read(into: Uint8Array, position: number): number {
    let done = 0;
    while (done < into.length && position + done < this.size) {
      const at = position + done;
      const k = Math.floor(at / SEAL_CHUNK_BYTES);
      const plain = this.#chunk(k);
      const from = at - k * SEAL_CHUNK_BYTES;
      const n = Math.min(into.length - done, plain.length - from);
      into.set(plain.subarray(from, from + n), done);
      done += n;
    }
    return done;
  }
}

function damaged(what: string, why: string) {
  return voxdexError(
    'SECRET_KEY_INVALID',
    `A stored recording (${what.split('/').slice(-2).join('/')}) cannot be opened: ${why}. It was sealed with another installation's secrets key, or damaged; restore the secrets.key that belongs to this data dir.`,
  );
}
