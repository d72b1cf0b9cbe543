/**
 * Where a request's files live under the data dir, and the durable-write helpers:
 *   <dataDir>/incoming/                 uploads being received (removed when refused)
 *   <dataDir>/uploads/<id>-<name>       the accepted upload: fsynced, renamed into this one flat
 *                                       directory (made durable once per process) and the directory
 *                                       fsynced — 2 fsyncs per upload, the directory one shared by
 *                                       concurrent uploads (jobs before this layout kept
 *                                       theirs at jobs/<id>/upload/<name>; their stored path still works)
 *   <dataDir>/jobs/<id>/work/           members unpacked from an archive
 *   <dataDir>/jobs/<id>/transcripts/    one JSON document per finished member
 *   <dataDir>/jobs/<id>/result.<ext>    the result file
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import path from 'node:path';

export class JobPaths {
  constructor(readonly dataDir: string) {}

  get incoming(): string {
    return path.join(this.dataDir, 'incoming');
  }
  get uploads(): string {
    return path.join(this.dataDir, 'uploads');
  }
  /** Where an accepted upload is kept (`name` already reduced to a safe base name). */
  upload(id: string, name: string): string {
    return path.join(this.uploads, `${id}-${name}`);
  }
  get jobsDir(): string {
    return path.join(this.dataDir, 'jobs');
  }
  job(id: string): string {
    return path.join(this.jobsDir, id);
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

  #uploadsDurable = false;
  #dirWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  #dirSyncing = false;

  /**
   * Moves a received file into uploads/ durably with the least syncing: the file is fsynced, renamed
   * into place, and uploads/ fsynced (its own entry in the data dir is made durable once per process).
   * The fsyncs run on libuv's thread pool, so other requests go on meanwhile, and concurrent uploads
   * share one directory fsync (one started after their renames covers them all).
   */
  async placeUpload(from: string, to: string): Promise<void> {
    if (!this.#uploadsDurable) {
      mkdirSync(this.uploads, { recursive: true });
      fsyncPath(this.dataDir);
      fsyncPath(path.dirname(this.dataDir));
      this.#uploadsDurable = true;
    }
    await fsyncPathAsync(from);
    await rename(from, to);
    await new Promise<void>((resolve, reject) => {
      this.#dirWaiters.push({ resolve, reject });
      if (!this.#dirSyncing) void this.#syncUploadsDir();
    });
  }

  async #syncUploadsDir(): Promise<void> {
    this.#dirSyncing = true;
    while (this.#dirWaiters.length > 0) {
      const batch = this.#dirWaiters.splice(0);
      try {
        await fsyncPathAsync(this.uploads);
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.#dirSyncing = false;
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

export async function fsyncPathAsync(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Writes a file atomically (temp, fsync, rename, fsync dir; directories it had to create made durable too). */
export function writeDurably(file: string, data: string | Uint8Array): void {
  mkdirDurably(path.dirname(file));
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  fsyncPath(tmp);
  renameSync(tmp, file);
  fsyncPath(path.dirname(file));
}

/** mkdir -p, then fsyncs the parent of every directory it created (the new names are durable). */
export function mkdirDurably(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  const target = path.resolve(dir);
  for (let d = path.dirname(path.resolve(first)); ; d = path.join(d, path.relative(d, target).split(path.sep)[0]!)) {
    if (d === target) break;
    fsyncPath(d);
  }
}
