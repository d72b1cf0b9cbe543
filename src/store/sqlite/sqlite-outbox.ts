/**
 * The callback outbox (src/store/outbox.ts) over SQLite, in the jobs database: SqliteJobStore.settle
 * writes a job's callback row with `insert()` inside its own transaction.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AttemptRecord, AttemptResult, CallbackOutbox, DeliveryRow, DeliveryStatus, EnqueueInput } from '../outbox.js';

interface AttemptRow {
  attempt: number;
  started_at: number;
  duration_ms: number | null;
  status: number | null;
  error: string | null;
}

export class SqliteCallbackOutbox implements CallbackOutbox {
  readonly #db: Database.Database;
  readonly #listeners = new Set<() => void>();

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS callback_deliveries (
        id TEXT PRIMARY KEY, requestid TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('result', 'error')),
        company TEXT NOT NULL, url TEXT NOT NULL, body BLOB, body_path TEXT,
        content_type TEXT NOT NULL, filename TEXT NOT NULL, secret TEXT,
        state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_error TEXT,
        UNIQUE (requestid, kind));
      CREATE INDEX IF NOT EXISTS callback_deliveries_due ON callback_deliveries (state, next_at);
      CREATE TABLE IF NOT EXISTS callback_attempts (
        delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, started_at INTEGER NOT NULL,
        duration_ms INTEGER, status INTEGER, error TEXT, PRIMARY KEY (delivery_id, attempt));
    `);
  }

  async enqueue(input: EnqueueInput, now = Date.now()): Promise<string> {
    return this.insert(input, now);
  }

  /**
   * Adds a delivery unless one exists for (requestid, kind); returns its delivery id either way.
   * Synchronous, so it can run inside the caller's transaction; dispatchers are woken after the current tick.
   */
  insert(input: EnqueueInput, now = Date.now()): string {
    const isPath = typeof input.body === 'string';
    this.#db
      .prepare(
        `INSERT OR IGNORE INTO callback_deliveries (id, requestid, kind, company, url, body, body_path, content_type, filename, secret, next_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        randomUUID(),
        input.requestid,
        input.kind,
        input.company,
        input.url,
        isPath ? null : input.body,
        isPath ? input.body : null,
        input.contentType,
        input.filename,
        input.secret ?? null,
        now,
        now,
        now,
      );
    const id = this.#db.prepare('SELECT id FROM callback_deliveries WHERE requestid = ? AND kind = ?').pluck().get(input.requestid, input.kind) as string;
    for (const wake of this.#listeners) setImmediate(wake);
    return id;
  }

  /** Called (asynchronously) after each enqueue; the dispatcher uses it to wake up. */
  onEnqueue(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async get(id: string): Promise<DeliveryRow | undefined> {
    return this.#db.prepare('SELECT * FROM callback_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
  }

  /** Pending deliveries whose time has come, oldest first. */
  async due(now: number, limit: number): Promise<DeliveryRow[]> {
    return this.#db
      .prepare(`SELECT * FROM callback_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, created_at LIMIT ?`)
      .all(now, limit) as DeliveryRow[];
  }

  /** When the next pending delivery is due (ms epoch), if any. */
  async nextDueAt(): Promise<number | undefined> {
    const v = this.#db.prepare(`SELECT MIN(next_at) FROM callback_deliveries WHERE state = 'pending'`).pluck().get() as number | null;
    return v ?? undefined;
  }

  /** pending → inflight and opens attempt N; returns N, or 0 when another dispatcher took it. */
  async claim(id: string, now = Date.now()): Promise<number> {
    return this.#db.transaction(() => {
      const r = this.#db
        .prepare(`UPDATE callback_deliveries SET state = 'inflight', attempts = attempts + 1, updated_at = ? WHERE id = ? AND state = 'pending'`)
        .run(now, id);
      if (r.changes === 0) return 0;
      const attempt = this.#db.prepare('SELECT attempts FROM callback_deliveries WHERE id = ?').pluck().get(id) as number;
      this.#db.prepare('INSERT OR REPLACE INTO callback_attempts (delivery_id, attempt, started_at) VALUES (?, ?, ?)').run(id, attempt, now);
      return attempt;
    })();
  }

  /** Closes attempt N and moves the delivery on: delivered, failed, or pending again at `nextAt`. */
  async settle(id: string, attempt: number, result: AttemptResult, now = Date.now()): Promise<void> {
    this.#db.transaction(() => {
      this.#db
        .prepare('UPDATE callback_attempts SET duration_ms = ?, status = ?, error = ? WHERE delivery_id = ? AND attempt = ?')
        .run(result.durationMs, result.status ?? null, result.error ?? null, id, attempt);
      const lastError = result.state === 'delivered' ? null : (result.error ?? (result.status ? `HTTP ${result.status}` : null));
      this.#db
        .prepare(`UPDATE callback_deliveries SET state = ?, next_at = ?, updated_at = ?, last_error = ? WHERE id = ? AND state = 'inflight'`)
        .run(result.state, result.nextAt ?? now, now, lastError, id);
    })();
  }

  /** Puts deliveries left inflight by a stopped process back to pending, due now. Returns how many. */
  async recoverInflight(now = Date.now()): Promise<number> {
    return this.#db.transaction(() => {
      const ids = this.#db.prepare(`SELECT id, attempts FROM callback_deliveries WHERE state = 'inflight'`).all() as { id: string; attempts: number }[];
      for (const { id, attempts } of ids) {
        this.#db
          .prepare('UPDATE callback_attempts SET error = ? WHERE delivery_id = ? AND attempt = ? AND duration_ms IS NULL')
          .run('interrupted: the service stopped during this attempt; retried', id, attempts);
        this.#db.prepare(`UPDATE callback_deliveries SET state = 'pending', next_at = ?, updated_at = ? WHERE id = ?`).run(now, now, id);
      }
      return ids.length;
    })();
  }

  /** Every callback of a request with its attempts, for the request status. */
  async deliveries(requestid: string): Promise<DeliveryStatus[]> {
    const rows = this.#db.prepare('SELECT * FROM callback_deliveries WHERE requestid = ? ORDER BY created_at, kind').all(requestid) as DeliveryRow[];
    const attemptsOf = this.#db.prepare('SELECT attempt, started_at, duration_ms, status, error FROM callback_attempts WHERE delivery_id = ? ORDER BY attempt');
    return rows.map((r) => {
      const attempts = (attemptsOf.all(r.id) as AttemptRow[]).map((a) => {
        const rec: AttemptRecord = { attempt: a.attempt, at: new Date(a.started_at).toISOString() };
        if (a.duration_ms !== null) rec.durationMs = a.duration_ms;
        if (a.status !== null) rec.status = a.status;
        if (a.error !== null) rec.error = a.error;
        return rec;
      });
      const s: DeliveryStatus = { delivery: r.id, kind: r.kind, url: r.url, state: r.state, attempts };
      if (r.state === 'pending') s.nextAttemptAt = new Date(r.next_at).toISOString();
      if (r.state === 'delivered') s.deliveredAt = new Date(r.updated_at).toISOString();
      if (r.last_error) s.lastError = r.last_error;
      return s;
    });
  }

  async resend(requestid: string, now = Date.now()): Promise<number> {
    const n = this.#db
      .prepare(`UPDATE callback_deliveries SET state = 'pending', next_at = ?, updated_at = ? WHERE requestid = ? AND state <> 'inflight'`)
      .run(now, now, requestid).changes;
    if (n > 0) for (const wake of this.#listeners) setImmediate(wake);
    return n;
  }

  /** Removes a request's deliveries and attempts (when the request itself is deleted). */
  async forget(requestid: string): Promise<void> {
    this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM callback_attempts WHERE delivery_id IN (SELECT id FROM callback_deliveries WHERE requestid = ?)').run(requestid);
      this.#db.prepare('DELETE FROM callback_deliveries WHERE requestid = ?').run(requestid);
    })();
  }

  async dropSecrets(): Promise<number> {
    return this.#db.prepare('UPDATE callback_deliveries SET secret = NULL WHERE secret IS NOT NULL').run().changes;
  }
}
