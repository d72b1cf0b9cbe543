/**
 * JobStore over PostgreSQL (`pg`), for several nodes sharing one queue. Each commit is durable when
 * it resolves (synchronous_commit on; setProgress, advisory, commits without waiting for the flush).
 *
 * Workers claim jobs with `SELECT … FOR UPDATE SKIP LOCKED` and a lease (owner + expiry, on the
 * database's clock): two workers never claim the same job, and a job whose owner stopped renewing its
 * lease (a dead worker) is claimable again once the lease expires. settle() commits a job's final
 * state and its callback row in one transaction; given an owner, only the lease holder can settle
 * a running job (a worker that lost its lease cannot overwrite the one that took over).
 */
import type pg from 'pg';
import { JOB_STATES, type ClaimOptions, type ItemPatch, type Job, type JobItem, type JobState, type JobStore, type LeaseState, type NewJob, type Settlement } from '../job-store.js';
import type { EnqueueInput } from '../outbox.js';
import type { PgCallbackOutbox } from './pg-outbox.js';
import { inTransaction, pgQuery } from './pg-pool.js';
import { toItem, toJob, type ItemRow, type JobRow } from '../job-rows.js';


const COLUMNS = `seq, id, company, org, folder, model, output, callback, callback_error, metadata, datetime, source, kind,
  upload_path, zpass, warning, size_bytes, state, created, started, finished, progress, attempts, error, result_path, options, content_hash, priority`;

export class PgJobStore implements JobStore {
  readonly #pool: pg.Pool;
  readonly #outbox: PgCallbackOutbox;
  #closed = false;

  constructor(pool: pg.Pool, outbox: PgCallbackOutbox) {
    this.#pool = pool;
    this.#outbox = outbox;
  }

  #q<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return pgQuery<R>(this.#pool, text, values);
  }

  async create(job: NewJob): Promise<Job> {
    const r = await this.#q<JobRow>(
      `WITH ins AS (
         INSERT INTO jobs (id, company, org, folder, model, output, callback, callback_error, metadata, datetime, source,
           kind, upload_path, zpass, warning, size_bytes, state, created, options, content_hash, priority)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 'queued', now(), $17, $18, $19)
         ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS})
       SELECT * FROM ins UNION ALL SELECT ${COLUMNS} FROM jobs WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [
        job.id,
        job.destination.company,
        job.destination.org,
        job.destination.folder,
        job.model,
        job.output,
        job.callback ?? null,
        job.callbackError ?? null,
        job.metadata === undefined ? null : JSON.stringify(job.metadata),
        job.datetime,
        job.source,
        job.kind,
        job.uploadPath,
        job.zpass ?? null,
        job.warning ?? null,
        job.sizeBytes,
        job.options === undefined ? null : JSON.stringify(job.options),
        job.contentHash ?? null,
        job.priority ?? 0,
      ],
    );
    return toJob(r.rows[0]!);
  }

  async firstWithContent(company: string, contentHash: string): Promise<Job | undefined> {
    const r = await this.#q<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE company = $1 AND content_hash = $2 ORDER BY seq LIMIT 1`, [company, contentHash]);
    return r.rows[0] && toJob(r.rows[0]);
  }

  async get(id: string): Promise<Job | undefined> {
    const r = await this.#q<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE id = $1`, [id]);
    return r.rows[0] && toJob(r.rows[0]);
  }

  async listUnfinished(): Promise<Job[]> {
    return (await this.#q<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE state IN ('queued', 'running') ORDER BY seq`)).rows.map(toJob);
  }

  async listRecent(filter: { company?: string; limit: number; offset: number }): Promise<Job[]> {
    const rows =
      filter.company === undefined
        ? await this.#q<JobRow>(`SELECT ${COLUMNS} FROM jobs ORDER BY seq DESC LIMIT $1 OFFSET $2`, [filter.limit, filter.offset])
        : await this.#q<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE company = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`, [filter.company, filter.limit, filter.offset]);
    return rows.rows.map(toJob);
  }

  async countQueued(): Promise<number> {
    return (await this.#q<{ n: number }>(`SELECT COUNT(*)::int AS n FROM jobs WHERE state = 'queued'`)).rows[0]!.n;
  }

  async markRunning(id: string): Promise<boolean> {
    const r = await this.#q(
      `UPDATE jobs SET state = 'running', attempts = attempts + 1, started = COALESCE(started, now()) WHERE id = $1 AND state IN ('queued', 'running')`,
      [id],
    );
    return r.rowCount === 1;
  }

  async rewriteClientText(id: string, source: string, metadata: Record<string, unknown> | undefined): Promise<void> {
    await this.#q('UPDATE jobs SET source = $2, metadata = $3 WHERE id = $1', [id, source, metadata === undefined ? null : JSON.stringify(metadata)]);
  }

  /** Advisory: committed with synchronous_commit off (no wait for the WAL flush), in one round trip. */
  async setProgress(id: string, progress: number): Promise<void> {
    const p = Math.max(0, Math.min(1, Number(progress) || 0));
    await this.#q(
      `BEGIN; SET LOCAL synchronous_commit TO off;
       UPDATE jobs SET progress = ${p} WHERE id = ${escapeLiteral(id)} AND state IN ('queued', 'running');
       COMMIT;`,
    );
  }

  async settle(id: string, settlement: Settlement, callback?: EnqueueInput): Promise<boolean> {
    const changed = await inTransaction(this.#pool, async (client) => {
      const { state, error, resultPath, owner } = settlement;
      const r = await client.query(
        `UPDATE jobs SET state = $1, finished = now(), error = $2, result_path = $3, zpass = NULL,
           progress = CASE WHEN $1 = 'done' THEN 1 ELSE progress END, lease_until = NULL, not_before = NULL
         WHERE id = $4 AND (state = 'queued' OR (state = 'running' AND ($5::text IS NULL OR lease_owner = $5)))`,
        [state, error ? JSON.stringify(error) : null, resultPath ?? null, id, owner ?? null],
      );
      if (r.rowCount !== 1) return false;
      if (callback) await this.#outbox.insertIn(client, callback);
      return true;
    });
    if (changed && callback) this.#outbox.wakeListeners();
    return changed;
  }

  async setItems(id: string, members: string[]): Promise<JobItem[]> {
    if (members.length > 0) {
      await this.#q(
        `INSERT INTO items (request_id, member, idx, state)
         SELECT $1, m, (i - 1)::int, 'queued' FROM unnest($2::text[]) WITH ORDINALITY AS t(m, i)
         ON CONFLICT (request_id, member) DO NOTHING`,
        [id, members],
      );
    }
    return this.items(id);
  }

  async items(id: string): Promise<JobItem[]> {
    return (await this.#q<ItemRow>('SELECT * FROM items WHERE request_id = $1 ORDER BY idx', [id])).rows.map(toItem);
  }

  async updateItem(id: string, member: string, patch: ItemPatch): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [id, member];
    const put = (col: string, v: unknown) => {
      values.push(v);
      sets.push(`${col} = $${values.length}`);
    };
    if (patch.state !== undefined) put('state', patch.state);
    if (patch.error !== undefined) put('error', JSON.stringify(patch.error));
    if (patch.tid !== undefined) put('tid', patch.tid);
    if (patch.audiosecs !== undefined) put('audiosecs', patch.audiosecs);
    if (patch.transcriptPath !== undefined) put('transcript_path', patch.transcriptPath);
    if (patch.bumpAttempts) sets.push('attempts = attempts + 1');
    if (sets.length === 0) return;
    await this.#q(`UPDATE items SET ${sets.join(', ')} WHERE request_id = $1 AND member = $2`, values);
  }

  async queuePosition(id: string): Promise<number> {
    const r = await this.#q<{ n: number | null }>(
      `SELECT CASE WHEN j.state = 'queued' THEN (SELECT COUNT(*)::int FROM jobs q WHERE q.state = 'queued' AND q.seq < j.seq) + 1 ELSE 0 END AS n
       FROM jobs j WHERE j.id = $1`,
      [id],
    );
    return r.rows[0]?.n ?? 0;
  }

  async countByState(): Promise<Record<JobState, number>> {
    const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const r of (await this.#q<{ state: JobState; n: number }>('SELECT state, COUNT(*)::int AS n FROM jobs GROUP BY state')).rows) counts[r.state] = r.n;
    return counts;
  }

  async delete(id: string): Promise<boolean> {
    // items go with their job (ON DELETE CASCADE)
    return (await this.#q('DELETE FROM jobs WHERE id = $1', [id])).rowCount === 1;
  }

  async ping(): Promise<boolean> {
    if (this.#closed) return false;
    try {
      return (await this.#pool.query('SELECT 1 AS one')).rows[0]?.one === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  // ------------------------------------------------------------ distributed running

  /**
   * The next job to run, claimed for `owner` until now + leaseMs: a running one whose lease expired
   * (its worker died: resumed first, it was accepted earliest), else a queued job whose retry delay
   * has passed, the highest priority first (a live call's job), then smallest first after ageing (size / (1 + minutes waited)) as the in-process scheduler
   * picks, so long calls are not starved.
   */
  async claim({ owner, leaseMs, maxBytes }: ClaimOptions): Promise<Job | undefined> {
    const r = await this.#q<JobRow>(
      `WITH next AS (
         SELECT id FROM jobs
         WHERE ((state = 'queued' AND (not_before IS NULL OR not_before <= now()))
             OR (state = 'running' AND COALESCE(lease_until, '-infinity') < now()))
           AND ($3::bigint IS NULL OR size_bytes <= $3 OR priority > 0)
         ORDER BY state = 'running' DESC, priority DESC, size_bytes / (1 + EXTRACT(EPOCH FROM now() - created) / 60), seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
       UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, started = COALESCE(j.started, now()),
         lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond', claimed_at = now(), not_before = NULL
       FROM next WHERE j.id = next.id
       RETURNING ${COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1j.$2')}`,
      [owner, leaseMs, maxBytes ?? null],
    );
    return r.rows[0] && toJob(r.rows[0]);
  }

  /**
   * The heartbeat: extends `owner`'s leases on `ids`. Resolves to the ids it still holds (a job it lost
   * was settled elsewhere or taken over after its lease expired) and those another node asked to cancel.
   */
  async renewLeases(owner: string, ids: string[], leaseMs: number): Promise<LeaseState> {
    if (ids.length === 0) return { held: [], cancelRequested: [] };
    const r = await this.#q<{ id: string; cancel_requested: boolean }>(
      `UPDATE jobs SET lease_until = now() + $3 * interval '1 millisecond'
       WHERE id = ANY($2::text[]) AND state = 'running' AND lease_owner = $1
       RETURNING id, cancel_requested`,
      [owner, ids, leaseMs],
    );
    return { held: r.rows.map((x) => x.id), cancelRequested: r.rows.filter((x) => x.cancel_requested).map((x) => x.id) };
  }

  /** Gives a running job back (queued again, claimable after delayMs): a retry, or a worker stopping. Only its lease holder can. */
  async requeue(id: string, owner: string, delayMs: number): Promise<boolean> {
    const r = await this.#q(
      `UPDATE jobs SET state = 'queued', lease_owner = NULL, lease_until = NULL,
         not_before = CASE WHEN $3 > 0 THEN now() + $3 * interval '1 millisecond' END
       WHERE id = $1 AND state = 'running' AND lease_owner = $2`,
      [id, owner, delayMs],
    );
    return r.rowCount === 1;
  }

  /** Asks the node running `id` to cancel it (seen by its next heartbeat, at once through NOTIFY voxdex_cancel). */
  async requestCancel(id: string): Promise<boolean> {
    const r = await this.#q(
      `WITH u AS (UPDATE jobs SET cancel_requested = true WHERE id = $1 AND state = 'running' RETURNING id)
       SELECT pg_notify('voxdex_cancel', id) FROM u`,
      [id],
    );
    return r.rowCount === 1;
  }

  /** Whether `id` is running under a lease that has not expired (someone is working on it). */
  async leaseHeld(id: string): Promise<boolean> {
    const r = await this.#q<{ ok: boolean }>(`SELECT (state = 'running' AND lease_until >= now()) AS ok FROM jobs WHERE id = $1`, [id]);
    return r.rows[0]?.ok === true;
  }
}

/** A string literal for the one statement that cannot take parameters (standard_conforming_strings is on). */
function escapeLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

