/**
 * Categories on SQLite (src/store/category-store.ts), in the tenancy file (`<dataDir>/tenancy.sqlite`)
 * so that the CLI and the service see the same rules. Synchronous better-sqlite3 calls behind the
 * async interface; each write is one statement or one transaction.
 */
import type Database from 'better-sqlite3';
import type { BackfillProgress, CategoryRecord, CategoryRule, CategoryStore } from '../category-store.js';

interface Row {
  company: string;
  name: string;
  terms: string;
  org: string | null;
  channel: number | null;
  speaker: string | null;
  role?: string | null;
  version: number;
  updated: string;
  deleted: number;
  state: string;
  done: number;
  cursor: string | null;
}

export function categoryFromRow(r: Row): CategoryRecord {
  const out: CategoryRecord = {
    company: r.company,
    name: r.name,
    terms: r.terms,
    version: Number(r.version),
    updated: r.updated,
    deleted: Boolean(r.deleted),
    backfill: { state: r.state as BackfillProgress['state'], done: Number(r.done) },
  };
  if (r.org !== null) out.org = r.org;
  if (r.channel !== null) out.channel = Number(r.channel);
  if (r.speaker !== null) out.speaker = r.speaker;
  if (r.role === 'agent' || r.role === 'customer') out.role = r.role;
  if (r.cursor !== null) out.backfill.cursor = r.cursor;
  return out;
}

export class SqliteCategoryStore implements CategoryStore {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS categories (
        company TEXT NOT NULL, name TEXT NOT NULL, terms TEXT NOT NULL,
        org TEXT, channel INTEGER, speaker TEXT,
        version INTEGER NOT NULL, updated TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, cursor TEXT,
        PRIMARY KEY (company, name));
      CREATE TABLE IF NOT EXISTS category_leases (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires INTEGER NOT NULL);
    `);
    // added with roles: a category limited to the agent's or the customer's words
    const columns = db.prepare(`SELECT name FROM pragma_table_info('categories')`).pluck().all() as string[];
    if (!columns.includes('role')) db.exec('ALTER TABLE categories ADD COLUMN role TEXT');
  }

  async put(company: string, name: string, rule: CategoryRule): Promise<CategoryRecord> {
    const updated = new Date().toISOString();
    this.#db
      .prepare(
        `INSERT INTO categories (company, name, terms, org, channel, speaker, role, version, updated, deleted, state, done, cursor)
         VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, 0, 'pending', 0, NULL)
         ON CONFLICT (company, name) DO UPDATE SET terms = excluded.terms, org = excluded.org, channel = excluded.channel,
           speaker = excluded.speaker, role = excluded.role, version = categories.version + 1, updated = excluded.updated, deleted = 0,
           state = 'pending', done = 0, cursor = NULL`,
      )
      .run(company, name, rule.terms, rule.org ?? null, rule.channel ?? null, rule.speaker ?? null, rule.role ?? null, updated);
    return (await this.get(company, name))!;
  }

  async get(company: string, name: string): Promise<CategoryRecord | undefined> {
    const row = this.#db.prepare('SELECT * FROM categories WHERE company = ? AND name = ? AND deleted = 0').get(company, name) as Row | undefined;
    return row && categoryFromRow(row);
  }

  async list(company: string): Promise<CategoryRecord[]> {
    return (this.#db.prepare('SELECT * FROM categories WHERE company = ? AND deleted = 0 ORDER BY name').all(company) as Row[]).map(categoryFromRow);
  }

  async remove(company: string, name: string): Promise<boolean> {
    const r = this.#db
      .prepare(`UPDATE categories SET deleted = 1, version = version + 1, state = 'pending', done = 0, cursor = NULL WHERE company = ? AND name = ? AND deleted = 0`)
      .run(company, name);
    return r.changes > 0;
  }

  async pending(): Promise<CategoryRecord[]> {
    return (this.#db.prepare(`SELECT * FROM categories WHERE state <> 'done' ORDER BY company, name`).all() as Row[]).map(categoryFromRow);
  }

  async saveProgress(company: string, name: string, version: number, progress: BackfillProgress): Promise<boolean> {
    return (await this.saveProgressMany(company, [{ name, version, progress }])).length === 1;
  }

  async saveProgressMany(company: string, items: ReadonlyArray<{ name: string; version: number; progress: BackfillProgress }>): Promise<string[]> {
    const update = this.#db.prepare('UPDATE categories SET state = ?, done = ?, cursor = ? WHERE company = ? AND name = ? AND version = ?');
    const purge = this.#db.prepare('DELETE FROM categories WHERE company = ? AND name = ? AND deleted = 1');
    return this.#db.transaction(() => {
      const saved: string[] = [];
      for (const { name, version, progress: p } of items) {
        if (update.run(p.state, p.done, p.cursor ?? null, company, name, version).changes === 0) continue;
        if (p.state === 'done') purge.run(company, name);
        saved.push(name);
      }
      return saved;
    })();
  }

  async lease(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const r = this.#db
      .prepare(
        `INSERT INTO category_leases (key, owner, expires) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
         WHERE category_leases.owner = excluded.owner OR category_leases.expires < ?`,
      )
      .run(key, owner, now + ttlMs, now);
    return r.changes > 0;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    this.#db.prepare('DELETE FROM category_leases WHERE key = ? AND owner = ?').run(key, owner);
  }
}
