/**
 * A recording's bytes, wherever they are kept: a plain file (the files `voxdex transcribe` is given,
 * a drop-folder file), a sealed blob (src/audio/sealed-file.ts: uploads, archive members and kept
 * audio at rest, opened in memory block by block) or memory. The stages that read audio — probe,
 * unpack, decode, the audio route — take a ByteSource, never a path, so that no stage can write a
 * sealed recording out in plain form, and a transcoder reads it from a pipe (`stream()`).
 *
 * A source opens what it needs on first read and holds it until `close()`; reading again after
 * close reopens it. Positional reads are independent (no cursor), so one source can serve a decode
 * and an HTTP range at once.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';

export interface ByteSource {
  /** Total bytes. */
  readonly size: number;
  /** The plain file that holds exactly these bytes, when there is one (a tool that needs a path may use it); absent for sealed and in-memory sources. */
  readonly plainPath?: string;
  /** Copies up to `into.length` bytes from `position` into `into`; resolves to how many (0 at the end). */
  read(into: Uint8Array, position: number): Promise<number>;
  /** The same, synchronously (header parsing: a few small reads). */
  readSync(into: Uint8Array, position: number): number;
  /** Bytes [start, end) as a stream (default: all of them), e.g. for a child process's stdin. */
  stream(start?: number, end?: number): Readable;
  /** Releases what the source holds open. */
  close(): Promise<void>;
}

/** Blocks a stream reads at a time. */
const STREAM_BLOCK = 1 << 20;

/** `stream()` for any source: positional reads of STREAM_BLOCK bytes. */
export function streamOf(src: Pick<ByteSource, 'size' | 'read'>, start = 0, end = src.size): Readable {
  const stop = Math.min(end, src.size);
  let at = Math.max(0, start);
  return new Readable({
    highWaterMark: STREAM_BLOCK,
    read() {
      if (at >= stop) {
        this.push(null);
        return;
      }
      const block = Buffer.allocUnsafe(Math.min(STREAM_BLOCK, stop - at));
      src.read(block, at).then(
        (n) => {
          if (n === 0) {
            this.push(null);
            return;
          }
          at += n;
          this.push(block.subarray(0, n));
        },
        (err: Error) => this.destroy(err),
      );
    },
  });
}

/** A plain file, read where it lies. */
export function fileSource(path: string): ByteSource {
  let fd: number | undefined;
  const size = statSync(path).size;
  const handle = () => (fd ??= openSync(path, 'r'));
  const src: ByteSource = {
    size,
    plainPath: path,
    readSync: (into, position) => (into.length === 0 || position >= size ? 0 : readSync(handle(), into, 0, into.length, position)),
    read: async (into, position) => src.readSync(into, position),
    stream: (start, end) => streamOf(src, start, end),
    close: async () => {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
  return src;
}

/** Bytes held in memory. */
export function bufferSource(bytes: Uint8Array): ByteSource {
  const readSync = (into: Uint8Array, position: number) => {
    if (position >= bytes.length) return 0;
    const n = Math.min(into.length, bytes.length - position);
    into.set(bytes.subarray(position, position + n));
    return n;
  };
  const src: ByteSource = {
    size: bytes.length,
    readSync,
    read: async (into, position) => readSync(into, position),
    stream: (start = 0, end = bytes.length) => Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, Math.min(end, bytes.length) - start))]),
    close: async () => {},
  };
  return src;
}

/** Up to `length` bytes from `position` (fewer at the end), read synchronously. */
export function readAtSync(src: ByteSource, position: number, length: number): Buffer {
  const buf = Buffer.alloc(Math.max(0, Math.min(length, src.size - position)));
  let got = 0;
  while (got < buf.length) {
    const n = src.readSync(buf.subarray(got), position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Fills `into` from `position` as far as the source goes; resolves to the bytes read. */
export async function readFully(src: ByteSource, into: Uint8Array, position: number): Promise<number> {
  let got = 0;
  while (got < into.length) {
    const n = await src.read(into.subarray(got), position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

/** Every byte of the source, in memory. */
export async function readAll(src: ByteSource): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(src.size);
  return buf.subarray(0, await readFully(src, buf, 0));
}

/** A path is read as a plain file; a source is used as it is. `owned`: the caller opened it here and closes it. */
export function asSource(input: string | ByteSource): { src: ByteSource; owned: boolean } {
  return typeof input === 'string' ? { src: fileSource(input), owned: true } : { src: input, owned: false };
}

/** Runs `fn` on `input` as a source, closing it afterwards when it was opened here (a path). */
export async function withSource<T>(input: string | ByteSource, fn: (src: ByteSource) => Promise<T> | T): Promise<T> {
  const { src, owned } = asSource(input);
  try {
    return await fn(src);
  } finally {
    if (owned) await src.close();
  }
}

/** The same, synchronously (a path's file is closed before returning: fileSource closes synchronously). */
export function withSourceSync<T>(input: string | ByteSource, fn: (src: ByteSource) => T): T {
  const { src, owned } = asSource(input);
  try {
    return fn(src);
  } finally {
    if (owned) void src.close();
  }
}

/** The first `n` bytes of a file (fewer when it is shorter). */
export function fileHead(path: string, n: number): Buffer {
  return withSourceSync(path, (src) => readAtSync(src, 0, n));
}
