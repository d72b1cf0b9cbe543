/**
 * BlobStore over a local directory (the embedded default: the data dir itself, so keys are the
 * familiar `uploads/…` and `jobs/<id>/…` paths). Durability is the fsync ordering voxdex has always
 * used: a file is fsynced, renamed into place and its directory fsynced before a write resolves;
 * a directory this process has not made durable yet is created and its own entry fsynced first
 * (once per process). Concurrent writes into one directory share its fsync.
 *
 * Keys written before blob keys existed are absolute paths; they are read and deleted as they are.
 */
import { closeSync, createReadStream, fsyncSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { voxdexError } from '../errors.js';
import { blobKeys, checkKey, checkPrefix, type BlobInfo, type BlobStore, type LocalCopy } from './blob-store.js';

/** Directories known durable in this process; a cache, so bounded (forgetting only costs an fsync). */
const DURABLE_DIRS_MAX = 10_000;

export class LocalBlobStore implements BlobStore {
  readonly kind = 'local';

  uploadKey(id: string, safeName: string): string {
    return blobKeys.upload(id, safeName);
  }
  readonly root: string;
  readonly #durableDirs = new Set<string>();
  readonly #dirSyncs = new Map<string, { waiters: { resolve: () => void; reject: (e: unknown) => void }[]; running: boolean }>();

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** The file of a key (absolute keys are paths stored before blob keys existed). */
  pathOf(key: string): string {
    if (path.isAbsolute(key)) return key;
    return path.join(this.root, ...checkKey(key).split('/'));
  }

  async putFile(key: string, file: string): Promise<void> {
    const target = this.pathOf(key);
    this.#ensureDurableDir(path.dirname(target));
    await fsyncAsync(file);
    await rename(file, target);
    await this.#syncDir(path.dirname(target));
  }

  async put(key: string, data: Uint8Array | string): Promise<void> {
    const target = this.pathOf(key);
    this.#ensureDurableDir(path.dirname(target));
    const tmp = `${target}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
    await this.#syncDir(path.dirname(target));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async open(key: string): Promise<{ stream: ReturnType<typeof createReadStream>; size: number } | undefined> {
    const file = this.pathOf(key);
    let size: number;
    try {
      const st = await stat(file);
      if (!st.isFile()) return undefined;
      size = st.size;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
    return { stream: createReadStream(file), size };
  }

  async localCopy(key: string): Promise<LocalCopy> {
    const file = this.pathOf(key);
    try {
      await stat(file);
    } catch (err) {
      if (isMissing(err)) throw voxdexError('NOT_FOUND', `The stored file ${key} is missing`);
      throw err;
    }
    return { path: file, release: async () => {} };
  }

  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err) => {
      if (!isMissing(err)) throw err;
    });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(path.join(this.root, ...checkPrefix(prefix).slice(0, -1).split('/')), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    const dir = path.join(this.root, ...checkPrefix(prefix).slice(0, -1).split('/'));
    const out: BlobInfo[] = [];
    const walk = (d: string, keyPrefix: string) => {
      let names: string[];
      try {
        names = readdirSync(d);
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const name of names) {
        const p = path.join(d, name);
        let st;
        try {
          st = statSync(p);
        } catch {
          continue; // removed meanwhile
        }
        if (st.isDirectory()) walk(p, `${keyPrefix}${name}/`);
        else if (st.isFile() && !/\.tmp-\d+-\w+$/.test(name)) out.push({ key: `${keyPrefix}${name}`, size: st.size, modified: st.mtime });
      }
    };
    walk(dir, prefix);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async ping(): Promise<boolean> {
    try {
      return statSync(this.root).isDirectory();
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {}

  /**
   * Creates `dir` if needed and makes its entry durable: the parent of every directory from the root
   * down is fsynced once per process (the root's own entry too), so a rename into `dir` cannot be
   * lost with the directory that holds it.
   */
  #ensureDurableDir(dir: string): void {
    if (this.#durableDirs.has(dir)) return;
    if (dir !== this.root && dir.startsWith(this.root + path.sep)) this.#ensureDurableDir(path.dirname(dir));
    mkdirSync(dir, { recursive: true });
    fsyncPath(path.dirname(dir));
    if (this.#durableDirs.size >= DURABLE_DIRS_MAX) this.#durableDirs.clear();
    this.#durableDirs.add(dir);
  }

  /** fsyncs `dir` once for every write that renamed into it before the fsync started. */
  #syncDir(dir: string): Promise<void> {
    let s = this.#dirSyncs.get(dir);
    if (!s) {
      s = { waiters: [], running: false };
      this.#dirSyncs.set(dir, s);
    }
    const state = s;
    const p = new Promise<void>((resolve, reject) => state.waiters.push({ resolve, reject }));
    if (!state.running) {
      state.running = true;
      void (async () => {
        while (state.waiters.length > 0) {
          const batch = state.waiters.splice(0);
          try {
            await fsyncAsync(dir);
            for (const w of batch) w.resolve();
          } catch (err) {
            for (const w of batch) w.reject(err);
          }
        }
        state.running = false;
        this.#dirSyncs.delete(dir);
      })();
    }
    return p;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function fsyncPath(p: string): void {
  const fd = openSync(p, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function fsyncAsync(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
