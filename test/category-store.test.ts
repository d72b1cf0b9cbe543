/** The category store conformance suite on SQLite (in a tenancy-like file shared by two "nodes"). */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { categoryStoreConformance } from './conformance/category-store.conformance.js';

let dir = '';
const opened: Database.Database[] = [];
categoryStoreConformance('sqlite', {
  fresh: async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vx-cats-'));
  },
  open: async () => {
    const db = new Database(path.join(dir, 'tenancy.sqlite'));
    db.pragma('journal_mode = WAL');
    opened.push(db);
    return new SqliteCategoryStore(db);
  },
  dispose: async () => {
    for (const db of opened.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  },
});
