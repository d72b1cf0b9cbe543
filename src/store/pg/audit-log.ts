/**
 * The audit trail on PostgreSQL (src/store/audit-log.ts), for the distributed mode: every node appends
 * to the same chains. An append takes a transaction-scoped advisory lock on its company's chain, so
 * two nodes never write the same seq; rules refuse UPDATE and DELETE. `detail` is TEXT (not jsonb,
 * which reorders keys: the hash is over the JSON as written).
 */
import type pg from 'pg';
import { chainNext, type AuditEntry, type AuditEvent } from '../../audit/chain.js';
import { auditFromRow, auditWhere, type AuditFilter, type AuditLog, type AuditRow } from '../audit-log.js';
import { inTransaction } from './pg-pool.js';

/** The log on this pool, its table created. */
export async function openPgAuditLog(pool: pg.Pool): Promise<PgAuditLog> {
  const log = new PgAuditLog(pool);
  await log.init();
  return log;
}

export class PgAuditLog implements AuditLog {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async init(): Promise<void> {
    await inTransaction(this.#pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['voxdex audit schema']);
      await c.query(`
        CREATE TABLE IF NOT EXISTS audit_log (
          company TEXT NOT NULL, seq BIGINT NOT NULL, at TEXT NOT NULL, who TEXT NOT NULL, action TEXT NOT NULL,
          target TEXT NOT NULL, detail TEXT NOT NULL, ip TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL,
          PRIMARY KEY (company, seq));
        CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (company, at);
        CREATE OR REPLACE RULE audit_log_no_update AS ON UPDATE TO audit_log DO INSTEAD NOTHING;
        CREATE OR REPLACE RULE audit_log_no_delete AS ON DELETE TO audit_log DO INSTEAD NOTHING;
      `);
    });
  }

  async append(event: AuditEvent): Promise<AuditEntry> {
    return inTransaction(this.#pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`voxdex audit ${event.company}`]);
      const head = await c.query<{ seq: string; hash: string }>('SELECT seq, hash FROM audit_log WHERE company = $1 ORDER BY seq DESC LIMIT 1', [event.company]);
      const last = head.rows[0];
      const e = chainNext(last && { seq: Number(last.seq), hash: last.hash }, event, new Date());
      await c.query('INSERT INTO audit_log (company, seq, at, who, action, target, detail, ip, prev, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
        e.company, e.seq, e.at, e.who, e.action, e.target, JSON.stringify(e.detail), e.ip, e.prev, e.hash,
      ]);
      return e;
    });
  }

  async list(company: string, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const { sql, params } = auditWhere(company, filter, (n) => `$${n}`);
    const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
    const r = await this.#pool.query<AuditRow>(`SELECT * FROM audit_log WHERE ${sql} ORDER BY seq${limit}`, params);
    return r.rows.map(auditFromRow);
  }

  async companies(): Promise<string[]> {
    const r = await this.#pool.query<{ company: string }>('SELECT DISTINCT company FROM audit_log ORDER BY company');
    return r.rows.map((x) => x.company);
  }
}
