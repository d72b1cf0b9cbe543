/**
 * Where a request's files live under the data dir, and the durable-write helpers:
 *   <dataDir>/incoming/                 uploads being received (removed when refused)
 *   <dataDir>/jobs/<id>/upload/<name>   the accepted upload (fsynced with its directories)
 *   <dataDir>/jobs/<id>/work/           members unpacked from an archive
 *   <dataDir>/jobs/<id>/transcripts/    one JSON document per finished member
 *   <dataDir>/jobs/<id>/result.<ext>    the result file
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class JobPaths {
  constructor(readonly dataDir: string) {}

  get incoming(): string {
    return path.join(this.dataDir, 'incoming');
  }
  get jobsDir(): string {
    return path.join(this.dataDir, 'jobs');
  }
  job(id: string): string {
    return path.join(this.jobsDir, id);
  }
  uploadDir(id: string): string {
    return path.join(this.job(id), 'upload');
  }
  workDir(id: string): string {
    return path.join(this.job(id), 'work');
  }
  transcript(id: string, idx: number): string {
    return path.join(this.job(id), 'transcripts', `${idx}.json`);
  }
  result(id: string, ext: string): string {
    return path.join(this.job(id), `result.${ext}`);
  }
}

export function fsyncPath(p: string): void {
  const fd = openSync(p, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Moves a received file into place and makes file, new name and parent directories durable. */
export function moveDurably(from: string, to: string, syncUpTo: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  fsyncPath(from);
  renameSync(from, to);
  let dir = path.dirname(to);
  for (;;) {
    fsyncPath(dir);
    if (path.resolve(dir) === path.resolve(syncUpTo) || path.dirname(dir) === dir) break;
    dir = path.dirname(dir);
  }
}

/** Writes a file atomically (temp, fsync, rename, fsync dir). */
export function writeDurably(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  fsyncPath(tmp);
  renameSync(tmp, file);
  fsyncPath(path.dirname(file));
}
