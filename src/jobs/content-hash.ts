/** The sha256 of a file's content (hex): the drop folder's ledger key, and each job's `contentHash` (the same recording sent twice). */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
