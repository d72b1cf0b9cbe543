/**
 * JobStore over SQLite (better-sqlite3), WAL with synchronous=FULL: a committed row survives
 * kill -9 and power loss. Lives at `<dataDir>/jobs.sqlite`, with the callback outbox and the
 * submission ledger (src/store/sqlite/sqlite-stores.ts opens the three on one connection). better-sqlite3
 * is synchronous: each method does its work before it returns its (already settled) promise.
 */
import type Database from 'better-sqlite3';
import path from 'node:path';
import type { EnqueueInput } from '../outbox.js';
import type { SqliteCallbackOutbox } from './sqlite-outbox.js';
import { JOB_STATES, type ItemPatch, type Job, type JobItem, type JobState, type JobStore, type NewJob, type Settlement } from '../job-store.js';
import { toItem, toJob, type ItemRow, type JobRow } from '../job-rows.js';


export function jobStorePath(dataDir: string): string {
  return path.join(dataDir, 'jobs.sqlite');
}

export class SqliteJobStore implements JobStore {
  /** The connection (shared with the outbox and the ledger); for this adapter's own tests. */
  readonly db: Database.Database;
  readonly #outbox: SqliteCallbackOutbox;

  /** `db` opened by openSqlite(file, 'FULL'); `outbox` on the same connection (settle writes its rows). */
  constructor(db: Database.Database, outbox: SqliteCallbackOutbox) {
    this.db = db;
    this.#outbox = outbox;
    // What a row held before an update or delete is zeroed, not left in the page's free space: a name
    // rewritten under a redaction policy, a forgotten archive password, a deleted request.
    this.db.pragma('secure_delete = ON');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        company TEXT NOT NULL, org TEXT NOT NULL, folder TEXT NOT NULL, model TEXT NOT NULL, output TEXT NOT NULL,
        callback TEXT, callback_error TEXT, metadata TEXT, datetime TEXT NOT NULL, source TEXT NOT NULL,
        kind TEXT NOT NULL, upload_path TEXT NOT NULL, zpass TEXT, warning TEXT, size_bytes INTEGER NOT NULL,
        state TEXT NOT NULL, created TEXT NOT NULL, started TEXT, finished TEXT,
        progress REAL NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, error TEXT, result_path TEXT);
      CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state, seq);
      CREATE INDEX IF NOT EXISTS jobs_company ON jobs (company, seq);
      CREATE TABLE IF NOT EXISTS items (
        request_id TEXT NOT NULL, member TEXT NOT NULL, idx INTEGER NOT NULL, state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, error TEXT, tid TEXT, audiosecs REAL, transcript_path TEXT,
        PRIMARY KEY (request_id, member));
    `);
    // Added after the first release: the request's options (JSON), absent on older jobs.
    if (!this.db.prepare('SELECT 1 FROM pragma_table_info(\'jobs\') WHERE name = \'options\'').get()) this.db.exec('ALTER TABLE jobs ADD COLUMN options TEXT');
    // Added for the jobs page (issue 28): the upload's sha256, to tell the same recording sent twice.
    if (!this.db.prepare('SELECT 1 FROM pragma_table_info(\'jobs\') WHERE name = \'content_hash\'').get()) this.db.exec('ALTER TABLE jobs ADD COLUMN content_hash TEXT');
    this.db.exec('CREATE INDEX IF NOT EXISTS jobs_content ON jobs (company, content_hash, seq) WHERE content_hash IS NOT NULL');
    // Added with live priority (issue 32): higher runs first; a live call's job resumes ahead of uploads after a restart.
    if (!this.db.prepare('SELECT 1 FROM pragma_table_info(\'jobs\') WHERE name = \'priority\'').get()) this.db.exec('ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0');
  }

  #insert(job: NewJob): Job {
    const existing = this.#get(job.id);
    if (existing) return existing;
    this.#sql(
        `INSERT INTO jobs (id, company, org, folder, model, output, callback, callback_error, metadata, datetime, source,
          kind, upload_path, zpass, warning, size_bytes, state, created, options, content_hash, priority)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)`,
      )
      .run(
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
        new Date().toISOString(),
        job.options === undefined ? null : JSON.stringify(job.options),
        job.contentHash ?? null,
        job.priority ?? 0,
      );
    return this.#get(job.id)!;
  }

  readonly #statements = new Map<string, Database.Statement>();

  /** A prepared statement, prepared once per SQL text (the accept path runs several per upload). */
  #sql(text: string): Database.Statement {
    let st = this.#statements.get(text);
    if (!st) {
      st = this.db.prepare(text);
      this.#statements.set(text, st);
    }
    return st;
  }

  #pending: { job: NewJob; resolve: (j: Job) => void; reject: (err: unknown) => void }[] = [];

  /**
   * Group commit: rows created in the same turn of the event loop (concurrent uploads) are committed
   * in one transaction, i.e. one WAL fsync for all of them. Resolves once its row is durably committed.
   */
  create(job: NewJob): Promise<Job> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ job, resolve, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const batch = this.#pending.splice(0);
    if (batch.length === 0) return;
    let jobs: Job[];
    try {
      jobs = this.db.transaction(() => batch.map((b) => this.#insert(b.job)))();
    } catch (err) {
      for (const b of batch) b.reject(err);
      return;
    }
    batch.forEach((b, i) => b.resolve(jobs[i]!));
  }

  async get(id: string): Promise<Job | undefined> {
    return this.#get(id);
  }

  #get(id: string): Job | undefined {
    const row = this.#sql('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row && toJob(row);
  }

  async firstWithContent(company: string, contentHash: string): Promise<Job | undefined> {
    const row = this.#sql('SELECT * FROM jobs WHERE company = ? AND content_hash = ? ORDER BY seq LIMIT 1').get(company, contentHash) as JobRow | undefined;
    return row && toJob(row);
  }

  async listUnfinished(): Promise<Job[]> {
    return (this.#sql("SELECT * FROM jobs WHERE state IN ('queued', 'running') ORDER BY seq").all() as JobRow[]).map(toJob);
  }

  async listRecent(filter: { company?: string; limit: number; offset: number }): Promise<Job[]> {
    const rows =
      filter.company === undefined
        ? this.#sql('SELECT * FROM jobs ORDER BY seq DESC LIMIT ? OFFSET ?').all(filter.limit, filter.offset)
        : this.#sql('SELECT * FROM jobs WHERE company = ? ORDER BY seq DESC LIMIT ? OFFSET ?').all(filter.company, filter.limit, filter.offset);
    return (rows as JobRow[]).map(toJob);
  }

  async markRunning(id: string): Promise<boolean> {
    const r = this.#sql("UPDATE jobs SET state = 'running', attempts = attempts + 1, started = COALESCE(started, ?) WHERE id = ? AND state IN ('queued', 'running')")
      .run(new Date().toISOString(), id);
    return r.changes === 1;
  }

  /**
   * The new text replaces the old in the row, and the old bytes leave the disk at once
   * (docs/redaction.md, "At rest"): secure_delete zeroes them in the page the UPDATE writes to the WAL,
   * but the WAL's earlier frames and the database file hold the old page until a checkpoint copies the
   * new one over it, so the WAL is checkpointed into the file and truncated to nothing here.
   */
  async rewriteClientText(id: string, source: string, metadata: Record<string, unknown> | undefined): Promise<void> {
    this.#sql('UPDATE jobs SET source = ?, metadata = ? WHERE id = ?').run(source, metadata === undefined ? null : JSON.stringify(metadata), id);
    const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    // Another connection reading an older snapshot past the busy timeout: the old frames would stay; fail so the job is retried.
    if (r?.busy) throw new Error('jobs.sqlite: the WAL could not be truncated after a redaction rewrite (another connection was reading it); retry');
  }

  /**
   * Progress is advisory (called per utterance): committed without an fsync of its own
   * (synchronous=NORMAL for this one statement; the next FULL commit makes it durable along with it),
   * so it does not stall the event loop. It survives kill -9 like every commit; only power loss may undo it.
   */
  async setProgress(id: string, progress: number): Promise<void> {
    this.db.pragma('synchronous = NORMAL');
    try {
      this.#sql("UPDATE jobs SET progress = ? WHERE id = ? AND state IN ('queued', 'running')").run(Math.max(0, Math.min(1, progress)), id);
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /** The final state and the callback row in one transaction (one WAL commit, synchronous=FULL). */
  async settle(id: string, settlement: Settlement, callback?: EnqueueInput): Promise<boolean> {
    return this.db.transaction(() => {
      const changed = this.#finish(id, settlement);
      if (changed && callback) this.#outbox.insert(callback);
      return changed;
    })();
  }

  #finish(id: string, { state, error, resultPath }: Settlement): boolean {
    const r = this.#sql(
        `UPDATE jobs SET state = ?, finished = ?, error = ?, result_path = ?, zpass = NULL,
           progress = CASE WHEN ? = 'done' THEN 1 ELSE progress END
         WHERE id = ? AND state IN ('queued', 'running')`,
      )
      .run(state, new Date().toISOString(), error ? JSON.stringify(error) : null, resultPath ?? null, state, id);
    return r.changes === 1;
  }

  async setItems(id: string, members: string[]): Promise<JobItem[]> {
    const insert = this.#sql("INSERT OR IGNORE INTO items (request_id, member, idx, state) VALUES (?, ?, ?, 'queued')");
    this.db.transaction(() => members.forEach((m, i) => insert.run(id, m, i)))();
    return this.items(id);
  }

  async items(id: string): Promise<JobItem[]> {
    return (this.#sql('SELECT * FROM items WHERE request_id = ? ORDER BY idx').all(id) as ItemRow[]).map(toItem);
  }

  async updateItem(id: string, member: string, patch: ItemPatch): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [];
    const put = (col: string, v: unknown) => {
      sets.push(`${col} = ?`);
      values.push(v);
    };
    if (patch.state !== undefined) put('state', patch.state);
    if (patch.error !== undefined) put('error', JSON.stringify(patch.error));
    if (patch.tid !== undefined) put('tid', patch.tid);
    if (patch.audiosecs !== undefined) put('audiosecs', patch.audiosecs);
    if (patch.transcriptPath !== undefined) put('transcript_path', patch.transcriptPath);
    if (patch.bumpAttempts) sets.push('attempts = attempts + 1');
    if (sets.length === 0) return;
    this.#sql(`UPDATE items SET ${sets.join(', ')} WHERE request_id = ? AND member = ?`).run(...values, id, member);
  }

  async queuePosition(id: string): Promise<number> {
    const row = this.#sql('SELECT seq, state FROM jobs WHERE id = ?').get(id) as { seq: number; state: string } | undefined;
    if (!row || row.state !== 'queued') return 0;
    return (this.#sql("SELECT COUNT(*) FROM jobs WHERE state = 'queued' AND seq < ?").pluck().get(row.seq) as number) + 1;
  }

  /** Jobs waiting to run (an index-only count: cheap on every submission). */
  async countQueued(): Promise<number> {
    return this.#sql("SELECT COUNT(*) FROM jobs WHERE state = 'queued'").pluck().get() as number;
  }

  async countByState(): Promise<Record<JobState, number>> {
    const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const r of this.#sql('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all() as { state: JobState; n: number }[]) {
      counts[r.state] = r.n;
    }
    return counts;
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.#sql('DELETE FROM items WHERE request_id = ?').run(id);
      return this.#sql('DELETE FROM jobs WHERE id = ?').run(id).changes === 1;
    })();
  }

  async ping(): Promise<boolean> {
    try {
      return this.db.open && this.#sql('SELECT 1').pluck().get() === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.#flush();
    if (this.db.open) this.db.close();
  }
}

