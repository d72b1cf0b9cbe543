/**
 * An archive member's audio is kept for playback (GET /transcribe/{id}/audio): the extracted file is
 * hard-linked to `jobs/<id>/audio/<n>.wav` before its item is marked done, so it outlives the work
 * folder at no copying cost. Idempotent (a rerun after a crash links the re-extracted file again).
 */
import { copyFileSync, linkSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';

export function keepAudio(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  rmSync(to, { force: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to); // a file system without hard links
  }
}
