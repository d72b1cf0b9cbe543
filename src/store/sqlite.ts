/** Opens a voxdex SQLite file the one way every store does: folder created, WAL, a busy timeout. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * `synchronous`: FULL for what must survive a power loss once acknowledged (jobs, tenancy);
 * NORMAL where the data can be rebuilt from files that are themselves durable (the search index).
 */
export function openSqlite(file: string, synchronous: 'FULL' | 'NORMAL'): Database.Database {
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('busy_timeout = 5000');
  return db;
}
