/**
 * The audit trail on SQLite (src/store/audit-log.ts), in the job store's file (`jobs.sqlite`). Appends
 * are one transaction each (read the chain's head, insert the next); triggers refuse UPDATE and DELETE.
 */
import type Database from 'better-sqlite3';
import { chainNext, type AuditEntry, type AuditEvent } from '../../audit/chain.js';
import { auditFromRow, auditWhere, type AuditFilter, type AuditLog, type AuditRow } from '../audit-log.js';

export class SqliteAuditLog implements AuditLog {
  readonly #db: Database.Database;
  readonly #append: Database.Transaction<(event: AuditEvent) => AuditEntry>;

  constructor(db: Database.Database) {
    this.#db = db;
    db.exec(`
      CREATE TABLE IF NOT EXISTS audit_log (
        company TEXT NOT NULL, seq INTEGER NOT NULL, at TEXT NOT NULL, who TEXT NOT NULL, action TEXT NOT NULL,
        target TEXT NOT NULL, detail TEXT NOT NULL, ip TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL,
        PRIMARY KEY (company, seq));
      CREATE INDEX IF NOT EXISTS audit_log_at ON audit_log (company, at);
      CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
      CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
    `);
    const head = db.prepare('SELECT seq, hash FROM audit_log WHERE company = ? ORDER BY seq DESC LIMIT 1');
    const insert = db.prepare(
      'INSERT INTO audit_log (company, seq, at, who, action, target, detail, ip, prev, hash) VALUES (@company, @seq, @at, @who, @action, @target, @detail, @ip, @prev, @hash)',
    );
    this.#append = db.transaction((event: AuditEvent) => {
      const e = chainNext(head.get(event.company) as { seq: number; hash: string } | undefined, event, new Date());
      insert.run({ ...e, detail: JSON.stringify(e.detail) });
      return e;
    });
  }

  async append(event: AuditEvent): Promise<AuditEntry> {
    return this.#append.immediate(event);
  }

  async list(company: string, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const { sql, params } = auditWhere(company, filter, () => '?');
    const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
    return (this.#db.prepare(`SELECT * FROM audit_log WHERE ${sql} ORDER BY seq${limit}`).all(...params) as AuditRow[]).map(auditFromRow);
  }

  async companies(): Promise<string[]> {
    return this.#db.prepare('SELECT DISTINCT company FROM audit_log ORDER BY company').pluck().all() as string[];
  }
}
