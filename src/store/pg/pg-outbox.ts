/**
 * The callback outbox (src/store/outbox.ts) over PostgreSQL, in the jobs database: PgJobStore.settle
 * writes a job's callback row with `insertIn()` inside its own transaction.
 *
 * Every worker node runs a dispatcher on the same rows. A claim is one conditional UPDATE (exclusive:
 * the row lock decides), and an attempt in flight is leased to its node (`lease_owner`, `lease_until`
 * = claim time + inflightLeaseMs, longer than any attempt can take): recoverInflight() takes back only
 * attempts whose lease ended — a dead node's — never those another live node is making. Closing the
 * store ends this node's leases at once (a stopped node's attempts are retried by whoever looks next).
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { AttemptRecord, AttemptResult, CallbackOutbox, DeliveryRow, DeliveryStatus, EnqueueInput } from '../outbox.js';
import { inTransaction, pgQuery } from './pg-pool.js';

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number | null;
  status: number | null;
  error: string | null;
}

interface PgOutboxOptions {
  /** This node's name in lease_owner. */
  owner: string;
  /** How long an attempt in flight stays this node's (default 2 min: connect + response timeouts, and room). */
  inflightLeaseMs?: number;
}

const DELIVERY_COLUMNS = `id, requestid, kind, company, url, body, body_path, content_type, filename, secret, state, attempts,
  next_at, created_at, updated_at, last_error`;

export class PgCallbackOutbox implements CallbackOutbox {
  readonly #pool: pg.Pool;
  readonly #listeners = new Set<() => void>();
  readonly #owner: string;
  readonly #leaseMs: number;

  constructor(pool: pg.Pool, options: PgOutboxOptions) {
    this.#pool = pool;
    this.#owner = options.owner;
    this.#leaseMs = options.inflightLeaseMs ?? 120_000;
  }

  #q<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return pgQuery<R>(this.#pool, text, values);
  }

  async enqueue(input: EnqueueInput, now = Date.now()): Promise<string> {
    const id = await this.#insert((text, values) => this.#q<{ id: string }>(text, values), input, now);
    this.wakeListeners();
    return id;
  }

  /** The insert of enqueue() on the caller's connection, inside its transaction (the caller wakes the listeners after COMMIT). */
  insertIn(client: pg.ClientBase, input: EnqueueInput, now = Date.now()): Promise<string> {
    return this.#insert((text, values) => client.query<{ id: string }>(text, values), input, now);
  }

  async #insert(run: (text: string, values: unknown[]) => Promise<pg.QueryResult<{ id: string }>>, input: EnqueueInput, now: number): Promise<string> {
    const isPath = typeof input.body === 'string';
    const r = await run(
      `WITH ins AS (
         INSERT INTO callback_deliveries (id, requestid, kind, company, url, body, body_path, content_type, filename, secret, next_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $11)
         ON CONFLICT (requestid, kind) DO NOTHING RETURNING id)
       SELECT id FROM ins UNION ALL SELECT id FROM callback_deliveries WHERE requestid = $2 AND kind = $3 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [
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
      ],
    );
    return r.rows[0]!.id;
  }

  /** Wakes this process's listeners on the next turn (other nodes' dispatchers are woken by NOTIFY voxdex_callbacks). */
  wakeListeners(): void {
    for (const wake of this.#listeners) setImmediate(wake);
  }

  onEnqueue(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async get(id: string): Promise<DeliveryRow | undefined> {
    return (await this.#q<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries WHERE id = $1`, [id])).rows[0];
  }

  async due(now: number, limit: number): Promise<DeliveryRow[]> {
    return (
      await this.#q<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries WHERE state = 'pending' AND next_at <= $1 ORDER BY next_at, created_at LIMIT $2`,
        [now, limit],
      )
    ).rows;
  }

  async nextDueAt(): Promise<number | undefined> {
    const v = (await this.#q<{ n: number | null }>(`SELECT MIN(next_at) AS n FROM callback_deliveries WHERE state = 'pending'`)).rows[0]!.n;
    return v ?? undefined;
  }

  async claim(id: string, now = Date.now()): Promise<number> {
    const r = await this.#q<{ attempt: number }>(
      `WITH c AS (
         UPDATE callback_deliveries SET state = 'inflight', attempts = attempts + 1, updated_at = $2, lease_owner = $3, lease_until = $4
         WHERE id = $1 AND state = 'pending' RETURNING attempts)
       INSERT INTO callback_attempts (delivery_id, attempt, started_at) SELECT $1, attempts, $2 FROM c
       ON CONFLICT (delivery_id, attempt) DO UPDATE SET started_at = excluded.started_at, duration_ms = NULL, status = NULL, error = NULL
       RETURNING attempt`,
      [id, now, this.#owner, now + this.#leaseMs],
    );
    return r.rows[0]?.attempt ?? 0;
  }

  async settle(id: string, attempt: number, result: AttemptResult, now = Date.now()): Promise<void> {
    const lastError = result.state === 'delivered' ? null : (result.error ?? (result.status ? `HTTP ${result.status}` : null));
    await inTransaction(this.#pool, async (c) => {
      await c.query('UPDATE callback_attempts SET duration_ms = $1, status = $2, error = $3 WHERE delivery_id = $4 AND attempt = $5', [
        result.durationMs,
        result.status ?? null,
        result.error ?? null,
        id,
        attempt,
      ]);
      await c.query(
        `UPDATE callback_deliveries SET state = $1, next_at = $2, updated_at = $3, last_error = $4, lease_owner = NULL, lease_until = NULL
         WHERE id = $5 AND state = 'inflight'`,
        [result.state, result.nextAt ?? now, now, lastError, id],
      );
    });
  }

  /** Attempts in flight whose lease ended (their node died or stopped) go back to pending, due now. */
  async recoverInflight(now = Date.now()): Promise<number> {
    return inTransaction(this.#pool, async (c) => {
      const r = await c.query<{ id: string; attempts: number }>(
        `UPDATE callback_deliveries SET state = 'pending', next_at = $1, updated_at = $1, lease_owner = NULL, lease_until = NULL
         WHERE id IN (SELECT id FROM callback_deliveries WHERE state = 'inflight' AND COALESCE(lease_until, 0) <= $1 FOR UPDATE SKIP LOCKED)
         RETURNING id, attempts`,
        [now],
      );
      if (r.rows.length > 0) {
        await c.query(
          `UPDATE callback_attempts a SET error = $1 FROM unnest($2::text[], $3::int[]) AS t(id, attempt)
           WHERE a.delivery_id = t.id AND a.attempt = t.attempt AND a.duration_ms IS NULL`,
          ['interrupted: the service stopped during this attempt; retried', r.rows.map((x) => x.id), r.rows.map((x) => x.attempts)],
        );
      }
      return r.rows.length;
    });
  }

  async deliveries(requestid: string): Promise<DeliveryStatus[]> {
    const rows = (await this.#q<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM callback_deliveries WHERE requestid = $1 ORDER BY created_at, kind`, [requestid])).rows;
    if (rows.length === 0) return [];
    const attempts = (
      await this.#q<AttemptRow>(
        'SELECT delivery_id, attempt, started_at, duration_ms, status, error FROM callback_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY attempt',
        [rows.map((r) => r.id)],
      )
    ).rows;
    return rows.map((r) => {
      const list = attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => {
          const rec: AttemptRecord = { attempt: a.attempt, at: new Date(a.started_at).toISOString() };
          if (a.duration_ms !== null) rec.durationMs = a.duration_ms;
          if (a.status !== null) rec.status = a.status;
          if (a.error !== null) rec.error = a.error;
          return rec;
        });
      const s: DeliveryStatus = { delivery: r.id, kind: r.kind, url: r.url, state: r.state, attempts: list };
      if (r.state === 'pending') s.nextAttemptAt = new Date(r.next_at).toISOString();
      if (r.state === 'delivered') s.deliveredAt = new Date(r.updated_at).toISOString();
      if (r.last_error) s.lastError = r.last_error;
      return s;
    });
  }

  async resend(requestid: string, now = Date.now()): Promise<number> {
    const r = await this.#q(`UPDATE callback_deliveries SET state = 'pending', next_at = $1, updated_at = $1 WHERE requestid = $2 AND state <> 'inflight'`, [now, requestid]);
    if ((r.rowCount ?? 0) > 0) this.wakeListeners();
    return r.rowCount ?? 0;
  }

  async forget(requestid: string): Promise<void> {
    // attempts go with their delivery (ON DELETE CASCADE)
    await this.#q('DELETE FROM callback_deliveries WHERE requestid = $1', [requestid]);
  }

  async dropSecrets(): Promise<number> {
    return (await this.#q('UPDATE callback_deliveries SET secret = NULL WHERE secret IS NOT NULL')).rowCount ?? 0;
  }

  /** Ends this node's leases on attempts still in flight (part of closing: whoever looks next retries them). */
  async releaseLeases(): Promise<void> {
    await this.#q(`UPDATE callback_deliveries SET lease_until = 0 WHERE state = 'inflight' AND lease_owner = $1`, [this.#owner]);
  }
}
