/**
 * The audit trail's storage (docs/audit.md): append-only, one hash chain per company (src/audit/chain.ts),
 * in the job store's database — SQLite embedded (src/store/sqlite/audit-log.ts), PostgreSQL distributed
 * (src/store/pg/audit-log.ts); one conformance suite runs against both. Nothing updates or deletes an
 * entry: the adapters refuse it in the database itself.
 */
import type { AuditAction, AuditEntry, AuditEvent } from '../audit/chain.js';


export interface AuditFilter {
  /** ISO 8601 bounds on `at` (from inclusive, to exclusive). */
  from?: string;
  to?: string;
  who?: string;
  action?: AuditAction;
  target?: string;
  /** Entries after this seq (paging). */
  after?: number;
  /** At most this many, in seq order. */
  limit?: number;
}

export interface AuditLog {
  /** Appends the event to its company's chain (serialized: two appends never share a seq). */
  append(event: AuditEvent): Promise<AuditEntry>;
  /** One company's entries matching the filter, in seq order. */
  list(company: string, filter?: AuditFilter): Promise<AuditEntry[]>;
  /** The companies that have a chain ("" included when the installation has entries). */
  companies(): Promise<string[]>;
}

/** The WHERE clause and parameters of a filter (both adapters; `$n` or `?` placeholders). */
export function auditWhere(company: string, f: AuditFilter, placeholder: (n: number) => string): { sql: string; params: unknown[] } {
  const params: unknown[] = [company];
  const parts = [`company = ${placeholder(1)}`];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    parts.push(`${sql} ${placeholder(params.length)}`);
  };
  if (f.from !== undefined) add('at >=', f.from);
  if (f.to !== undefined) add('at <', f.to);
  if (f.who !== undefined) add('who =', f.who);
  if (f.action !== undefined) add('action =', f.action);
  if (f.target !== undefined) add('target =', f.target);
  if (f.after !== undefined) add('seq >', f.after);
  return { sql: parts.join(' AND '), params };
}

/** A stored row, as either database returns it. */
export interface AuditRow {
  company: string;
  seq: string | number;
  at: string;
  who: string;
  action: string;
  target: string;
  detail: string;
  ip: string;
  prev: string;
  hash: string;
}

export function auditFromRow(r: AuditRow): AuditEntry {
  return { ...r, seq: Number(r.seq), action: r.action as AuditEntry['action'], detail: JSON.parse(r.detail) as Record<string, unknown> };
}
