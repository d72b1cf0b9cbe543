/**
 * One server per data dir. Two servers on one SQLite data dir would run the same jobs twice and the
 * second would empty the first's `incoming/`; several processes on shared state is the distributed
 * mode's job (PostgreSQL), not SQLite's.
 *
 * The lock is an exclusive SQLite lock (a POSIX advisory lock on `voxdex.lock`, taken with
 * `locking_mode=EXCLUSIVE` and a write) held by an open connection for the process's life: the OS
 * releases it when the process ends in any way, kill -9 included, so there is no stale lock to
 * clean up. SQLite also refuses a second connection in the same process. Who holds it is written
 * to `voxdex.lock.json` (pid, host, start time, URL) once the lock is taken, and quoted to the next
 * process that tries.
 */
import Database from 'better-sqlite3';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { voxdexError } from '../errors.js';

interface LockHolder {
  pid: number;
  host: string;
  started: string;
  url?: string;
}

interface DataDirLock {
  readonly file: string;
  /** Records what the holder serves (shown to the next process that tries). */
  describe(extra: Partial<LockHolder>): void;
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, 'voxdex.lock');
  const infoFile = `${file}.json`;
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the EXCLUSIVE lock; in this locking mode it is kept until the connection closes.
    db.exec('CREATE TABLE IF NOT EXISTS lock (id INTEGER PRIMARY KEY, at TEXT); INSERT OR REPLACE INTO lock VALUES (1, CURRENT_TIMESTAMP)');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY' && (err as { code?: string }).code !== 'SQLITE_LOCKED') throw err;
    throw voxdexError(
      'DATA_DIR_IN_USE',
      `The data dir ${dataDir} is in use by another voxdex server (${describeHolder(infoFile)}). One server per data dir: stop that one, or give this one another VOXDEX_DATA_DIR. Admin commands and voxdex import work beside a running server.`,
    );
  }
  chmodSync(file, 0o600);
  const holder: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  const write = () => writeFileSync(infoFile, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  write();
  return {
    file,
    describe(extra) {
      Object.assign(holder, extra);
      write();
    },
    release() {
      if (db.open) db.close();
    },
  };
}

function describeHolder(infoFile: string): string {
  try {
    const h = JSON.parse(readFileSync(infoFile, 'utf8')) as LockHolder;
    return `pid ${h.pid} on ${h.host}, started ${h.started}${h.url ? `, listening on ${h.url}` : ''}`;
  } catch {
    return 'holder unknown';
  }
}
