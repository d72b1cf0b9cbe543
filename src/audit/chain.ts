/**
 * The audit trail's chain (docs/audit.md): each company's entries are numbered from 1, and each one's
 * `hash` is the SHA-256 of its own fields and the previous entry's hash, so an entry changed, removed
 * or put in another place breaks every hash after it. Entries of the installation itself (a token
 * nobody holds) form the chain of company "".
 */
import { createHash } from 'node:crypto';

/** What happened, as the caller tells it. */
export interface AuditEvent {
  /** The company the action touched; "" for the installation (a refused token). */
  company: string;
  /** Who: `root`, `token:<first 8 hex of the token's hash>`, `cli` (docs/audit.md). */
  who: string;
  /** What, from AUDIT_ACTIONS. */
  action: AuditAction;
  /** On what: a request id, `requestid/item` for audio, `CO/ORG[/FOLDER]` for a search, a category name. */
  target: string;
  /** The action's particulars (search terms, the time range played), redacted under the company's policy. */
  detail: Record<string, unknown>;
  /** The client's address ("" for the CLI). */
  ip: string;
}

/** One entry as stored. */
export interface AuditEntry extends AuditEvent {
  seq: number;
  /** ISO 8601, milliseconds. */
  at: string;
  /** The previous entry's hash (GENESIS for the first). */
  prev: string;
  hash: string;
}

/** Every action the trail records: the one list (docs/audit.md). */
export const AUDIT_ACTIONS = [
  'token.refused',
  'search',
  'search.delete',
  'call.open',
  'audio.play',
  'download',
  'category.put',
  'category.remove',
  'policy.set',
  'audit.read',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The `prev` of a chain's first entry. */
export const GENESIS = '0'.repeat(64);

/** The hash of an entry: SHA-256 over its fields, in one fixed order, as JSON. */
export function entryHash(e: Omit<AuditEntry, 'hash'>): string {
  const fields = [e.seq, e.at, e.company, e.who, e.action, e.target, e.detail, e.ip, e.prev];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/** The entry that follows `last` (undefined: the chain's first). */
export function chainNext(last: Pick<AuditEntry, 'seq' | 'hash'> | undefined, event: AuditEvent, at: Date): AuditEntry {
  const e = { ...event, seq: (last?.seq ?? 0) + 1, at: at.toISOString(), prev: last?.hash ?? GENESIS };
  return { ...e, hash: entryHash(e) };
}

export type ChainCheck = { ok: true; entries: number } | { ok: false; seq: number; why: string };

/** Checks one company's entries, in seq order: numbered from 1 without a gap, each hash its own, each prev the last hash. */
export function verifyChain(entries: Iterable<AuditEntry>): ChainCheck {
  let last: AuditEntry | undefined;
  let n = 0;
  for (const e of entries) {
    const seq = (last?.seq ?? 0) + 1;
    if (e.seq !== seq) return { ok: false, seq, why: e.seq > seq ? `entry ${seq} is missing (the next is ${e.seq})` : `entry ${e.seq} is out of order` };
    if (e.prev !== (last?.hash ?? GENESIS)) return { ok: false, seq, why: `entry ${seq} does not follow entry ${seq - 1} (its prev is not that entry's hash)` };
    if (entryHash(e) !== e.hash) return { ok: false, seq, why: `entry ${seq} was changed (its hash is not its content's)` };
    last = e;
    n++;
  }
  return { ok: true, entries: n };
}
