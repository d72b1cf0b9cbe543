/**
 * The durable callback outbox: one row per (requestid, kind) delivery and one row per attempt, in the
 * service's SQLite database (so a job's completion and its callback can commit in one transaction).
 * State machine: pending → inflight → delivered | failed, or back to pending with a later next_at.
 * An item left inflight by a process that died is put back to pending on start (at-least-once; the
 * delivery id stays the same so receivers can de-duplicate).
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ErrorInfo } from '../errors.js';

export type CallbackKind = 'result' | 'error';
export type DeliveryState = 'pending' | 'inflight' | 'delivered' | 'failed';

export interface EnqueueInput {
  requestid: string;
  company: string;
  url: string;
  kind: CallbackKind;
  /** The `file` part: the bytes themselves, or the path of a file read at delivery time. */
  body: Buffer | string;
  contentType: string;
  filename: string;
  /** The company's callback secret; optional when the dispatcher is given `secretFor`. */
  secret?: string;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  durationMs?: number;
  status?: number;
  error?: string;
}

/** What the request status shows about one callback. */
export interface DeliveryStatus {
  delivery: string;
  kind: CallbackKind;
  url: string;
  state: DeliveryState;
  attempts: AttemptRecord[];
  nextAttemptAt?: string;
  deliveredAt?: string;
  lastError?: string;
}

export interface DeliveryRow {
  id: string;
  requestid: string;
  kind: CallbackKind;
  company: string;
  url: string;
  body: Buffer | null;
  body_path: string | null;
  content_type: string;
  filename: string;
  secret: string | null;
  state: DeliveryState;
  attempts: number;
  next_at: number;
  created_at: number;
  updated_at: number;
  last_error: string | null;
}

interface AttemptRow {
  attempt: number;
  started_at: number;
  duration_ms: number | null;
  status: number | null;
  error: string | null;
}

export class CallbackOutbox {
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

  /**
   * Adds a delivery unless one exists for (requestid, kind); returns its delivery id either way.
   * Safe inside the caller's transaction; dispatchers are woken after the current tick.
   */
  enqueue(input: EnqueueInput, now = Date.now()): string {
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

  /**
   * Notifies a failed request: to `callbackerror`, else `callback`; the `file` part is
   * {"requestid","state":"failed","error":{code,message}}. Returns the delivery id, or undefined when
   * the request named no URL.
   */
  enqueueFailure(input: { requestid: string; company: string; callback?: string; callbackerror?: string; error: ErrorInfo; secret?: string }, now = Date.now()): string | undefined {
    const url = input.callbackerror || input.callback;
    if (!url) return undefined;
    return this.enqueue(
      {
        requestid: input.requestid,
        company: input.company,
        url,
        kind: 'error',
        body: failureBody(input.requestid, input.error),
        contentType: 'application/json',
        filename: `${input.requestid}.error.json`,
        secret: input.secret,
      },
      now,
    );
  }

  /** Called (asynchronously) after each enqueue; the dispatcher uses it to wake up. */
  onEnqueue(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get(id: string): DeliveryRow | undefined {
    return this.#db.prepare('SELECT * FROM callback_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
  }

  /** Pending deliveries whose time has come, oldest first. */
  due(now: number, limit: number): DeliveryRow[] {
    return this.#db
      .prepare(`SELECT * FROM callback_deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, created_at LIMIT ?`)
      .all(now, limit) as DeliveryRow[];
  }

  /** When the next pending delivery is due (ms epoch), if any. */
  nextDueAt(): number | undefined {
    const v = this.#db.prepare(`SELECT MIN(next_at) FROM callback_deliveries WHERE state = 'pending'`).pluck().get() as number | null;
    return v ?? undefined;
  }

  /** pending → inflight and opens attempt N; returns N, or 0 when another dispatcher took it. */
  claim(id: string, now = Date.now()): number {
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
  settle(
    id: string,
    attempt: number,
    result: { status?: number; error?: string; durationMs: number; state: 'delivered' | 'failed' | 'pending'; nextAt?: number },
    now = Date.now(),
  ): void {
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
  recoverInflight(now = Date.now()): number {
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
  deliveries(requestid: string): DeliveryStatus[] {
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

  /** Removes a request's deliveries and attempts (when the request itself is deleted). */
  forget(requestid: string): void {
    this.#db.transaction(() => {
      this.#db.prepare('DELETE FROM callback_attempts WHERE delivery_id IN (SELECT id FROM callback_deliveries WHERE requestid = ?)').run(requestid);
      this.#db.prepare('DELETE FROM callback_deliveries WHERE requestid = ?').run(requestid);
    })();
  }
}

export function failureBody(requestid: string, error: ErrorInfo): Buffer {
  return Buffer.from(JSON.stringify({ requestid, state: 'failed', error: { code: error.code, message: error.message } }));
}
