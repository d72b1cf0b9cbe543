/** Opens a voxdex SQLite file the one way every store does: folder created, WAL, a busy timeout. */
import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../errors.js';

/**
 * `synchronous`: FULL for what must survive a power loss once acknowledged (jobs, tenancy);
 * NORMAL where the data can be rebuilt from files that are themselves durable (the search index).
 * The files are private to the service's user (0600: they hold recordings' transcripts, token hashes
 * and sealed secrets); SQLite gives the -wal and -shm files the database file's mode.
 */
export function openSqlite(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
  if (file !== ':memory:') chmodSync(file, 0o600);
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`); // before anything that may wait on another process's lock
  db.pragma('journal_mode = WAL');
  for (const extra of ['-wal', '-shm']) if (file !== ':memory:' && existsSync(file + extra)) chmodSync(file + extra, 0o600);
  db.pragma(`synchronous = ${synchronous}`);
  return db;
}

/**
 * A second connection to a database another connection of this process writes (in WAL mode): it
 * reads what was committed and cannot write it (opened read-only; TEMP tables, which live apart, it
 * may make), and creates nothing (the file must exist).
 */
export function openSqliteReader(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}
