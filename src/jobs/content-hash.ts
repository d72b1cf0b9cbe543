/**
 * The sha256 of a recording's bytes (hex): the drop folder's ledger key, and each job's `contentHash`
 * (the jobs page tells the same recording sent twice). A sealed upload is hashed through its seal,
 * so a browser upload and a drop-folder file of the same recording get the same hash.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { fileSource } from '../audio/byte-source.js';

export async function sha256Of(src: { stream(): Readable }): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of src.stream()) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function sha256File(file: string): Promise<string> {
  const src = fileSource(file);
  return sha256Of(src).finally(() => src.close());
}
