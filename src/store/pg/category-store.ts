/**
 * Categories on PostgreSQL (src/store/category-store.ts), for the distributed mode: every node reads
 * the same rules, and the lease row lets one node backfill a company at a time. Tables are created
 * at `init()` (IF NOT EXISTS, idempotent; several nodes may start at once).
 */
import type pg from 'pg';
import type { BackfillProgress, CategoryRecord, CategoryRule, CategoryStore } from '../category-store.js';
import { inTransaction } from './pg-pool.js';
import { categoryFromRow } from '../sqlite/category-store.js';

/** The store on this pool, its tables created. */
export async function openPgCategoryStore(pool: pg.Pool): Promise<PgCategoryStore> {
  const store = new PgCategoryStore(pool);
  await store.init();
  return store;
}

export class PgCategoryStore implements CategoryStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async init(): Promise<void> {
    await inTransaction(this.#pool, async (c) => {
      // Serialise concurrent first starts (CREATE TABLE IF NOT EXISTS races on the catalog).
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['voxdex categories schema']);
      await c.query(`
        CREATE TABLE IF NOT EXISTS categories (
          company TEXT NOT NULL, name TEXT NOT NULL, terms TEXT NOT NULL,
          org TEXT, channel INTEGER, speaker TEXT,
          version INTEGER NOT NULL, updated TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
          state TEXT NOT NULL, done BIGINT NOT NULL DEFAULT 0, cursor TEXT,
          PRIMARY KEY (company, name));
        CREATE TABLE IF NOT EXISTS category_leases (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires BIGINT NOT NULL);
        ALTER TABLE categories ADD COLUMN IF NOT EXISTS role TEXT;
      `);
    });
  }

  async put(company: string, name: string, rule: CategoryRule): Promise<CategoryRecord> {
    const { rows } = await this.#pool.query(
      `INSERT INTO categories (company, name, terms, org, channel, speaker, role, version, updated, deleted, state, done, cursor)
       VALUES ($1, $2, $3, $4, $5, $6, $8, 1, $7, 0, 'pending', 0, NULL)
       ON CONFLICT (company, name) DO UPDATE SET terms = excluded.terms, org = excluded.org, channel = excluded.channel,
         speaker = excluded.speaker, role = excluded.role, version = categories.version + 1, updated = excluded.updated, deleted = 0,
         state = 'pending', done = 0, cursor = NULL
       RETURNING *`,
      [company, name, rule.terms, rule.org ?? null, rule.channel ?? null, rule.speaker ?? null, new Date().toISOString(), rule.role ?? null],
    );
    return categoryFromRow(rows[0]);
  }

  async get(company: string, name: string): Promise<CategoryRecord | undefined> {
    const { rows } = await this.#pool.query('SELECT * FROM categories WHERE company = $1 AND name = $2 AND deleted = 0', [company, name]);
    return rows[0] && categoryFromRow(rows[0]);
  }

  async list(company: string): Promise<CategoryRecord[]> {
    const { rows } = await this.#pool.query('SELECT * FROM categories WHERE company = $1 AND deleted = 0 ORDER BY name COLLATE "C"', [company]);
    return rows.map(categoryFromRow);
  }

  async remove(company: string, name: string): Promise<boolean> {
    const r = await this.#pool.query(
      `UPDATE categories SET deleted = 1, version = version + 1, state = 'pending', done = 0, cursor = NULL WHERE company = $1 AND name = $2 AND deleted = 0`,
      [company, name],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async pending(): Promise<CategoryRecord[]> {
    const { rows } = await this.#pool.query(`SELECT * FROM categories WHERE state <> 'done' ORDER BY company COLLATE "C", name COLLATE "C"`);
    return rows.map(categoryFromRow);
  }

  async saveProgress(company: string, name: string, version: number, progress: BackfillProgress): Promise<boolean> {
    return (await this.saveProgressMany(company, [{ name, version, progress }])).length === 1;
  }

  async saveProgressMany(company: string, items: ReadonlyArray<{ name: string; version: number; progress: BackfillProgress }>): Promise<string[]> {
    return inTransaction(this.#pool, async (c) => {
      const saved: string[] = [];
      for (const { name, version, progress: p } of items) {
        const r = await c.query('UPDATE categories SET state = $1, done = $2, cursor = $3 WHERE company = $4 AND name = $5 AND version = $6', [
          p.state, p.done, p.cursor ?? null, company, name, version,
        ]);
        if ((r.rowCount ?? 0) === 0) continue;
        if (p.state === 'done') await c.query('DELETE FROM categories WHERE company = $1 AND name = $2 AND deleted = 1', [company, name]);
        saved.push(name);
      }
      return saved;
    });
  }

  async lease(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const r = await this.#pool.query(
      `INSERT INTO category_leases (key, owner, expires) VALUES ($1, $2, $3)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires
       WHERE category_leases.owner = excluded.owner OR category_leases.expires < $4`,
      [key, owner, now + ttlMs, now],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async releaseLease(key: string, owner: string): Promise<void> {
    await this.#pool.query('DELETE FROM category_leases WHERE key = $1 AND owner = $2', [key, owner]);
  }
}
