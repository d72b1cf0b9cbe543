/** A small file written whole or not at all, and durable before the promise resolves: temp file, fsync, rename, directory fsync. */
import { open, rename } from 'node:fs/promises';
import { closeSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';

export async function writeFileDurably(file: string, data: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  const dir = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
