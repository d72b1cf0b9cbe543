/**
 * An archive as the 7z CLI reads it. 7z needs a seekable file (it cannot read a zip or 7z from a
 * pipe: E_NOTIMPL), and an upload is kept sealed (src/audio/sealed-file.ts): so the archive's
 * plaintext goes into an anonymous file in memory (memfd_create, through the native addon), handed
 * to 7z as its descriptor 3, which it opens as /proc/self/fd/3. No plain copy touches the disk; the
 * memory is given back when the input is closed. A plain file (the CLI's own input) is opened in place.
 */
import { closeSync, openSync, write } from 'node:fs';
import { promisify } from 'node:util';
import { memoryFile } from '../addon/native.js';
import { readFully, type ByteSource } from './byte-source.js';

const writeAt = promisify(write);
const COPY_BLOCK = 1 << 20;

/** The path 7z is given: its own descriptor 3. */
export const ARCHIVE_FD_PATH = '/proc/self/fd/3';

export interface ArchiveInput {
  /** This process's descriptor of the archive, passed to 7z as its descriptor 3. */
  fd: number;
  close(): void;
}

async function openArchiveInput(src: ByteSource): Promise<ArchiveInput> {
  if (src.plainPath !== undefined) return descriptor(openSync(src.plainPath, 'r'));
  const fd = memoryFile('voxdex-archive');
  try {
    const block = Buffer.allocUnsafe(Math.min(COPY_BLOCK, Math.max(1, src.size)));
    for (let at = 0; at < src.size; ) {
      const n = await readFully(src, block, at);
      if (n === 0) break;
      for (let done = 0; done < n; ) done += (await writeAt(fd, block, done, n - done, at + done)).bytesWritten;
      at += n;
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return descriptor(fd);
}

function descriptor(fd: number): ArchiveInput {
  let open = true;
  return {
    fd,
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** Runs `fn` with the archive open for 7z, closing it afterwards. */
export async function withArchiveInput<T>(src: ByteSource, fn: (input: ArchiveInput) => Promise<T>): Promise<T> {
  const input = await openArchiveInput(src);
  try {
    return await fn(input);
  } finally {
    input.close();
  }
}
