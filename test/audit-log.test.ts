/** The audit trail's storage on SQLite (the job store's file), through the conformance suite; and the chain's own checks. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import path from 'node:path';
import { chainNext, verifyChain, type AuditEntry, type AuditEvent } from '../src/audit/chain.js';
import { SqliteAuditLog } from '../src/store/sqlite/audit-log.js';
import { openSqlite } from '../src/store/sqlite/sqlite.js';
import { auditLogConformance } from './conformance/audit-log.conformance.js';
import { makeTempDir, removeDir } from './fixtures/make-audio.js';

let dir = '';
const dbs: Database.Database[] = [];
auditLogConformance('sqlite', {
  fresh: async () => {
    dir = makeTempDir('voxdex-audit-');
  },
  open: async () => {
    const db = openSqlite(path.join(dir, 'jobs.sqlite'), 'FULL');
    dbs.push(db);
    return new SqliteAuditLog(db);
  },
  sql: async (text) => dbs[0]!.exec(text),
  dispose: async () => {
    for (const db of dbs.splice(0)) db.close();
    removeDir(dir);
  },
});

const chain = suite('audit chain');
const ev = (n: number): AuditEvent => ({ company: 'acme', who: 'root', action: 'call.open', target: `r${n}`, detail: { n }, ip: '::1' });

function entries(n: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (let i = 1; i <= n; i++) out.push(chainNext(out.at(-1), ev(i), new Date(Date.UTC(2026, 10, 28, 12, 0, i))));
  return out;
}

chain('an intact chain verifies; a changed field, a removed entry, a swap or a forged hash are found at the entry', () => {
  const e = entries(5);
  assert.equal(verifyChain(e), { ok: true, entries: 5 });
  const changed = e.map((x) => (x.seq === 3 ? { ...x, detail: { n: 99 } } : x));
  assert.equal(verifyChain(changed), { ok: false, seq: 3, why: 'entry 3 was changed (its hash is not its content\'s)' });
  const rehashed = e.map((x) => (x.seq === 3 ? chainNext(e[1], { ...ev(3), target: 'other' }, new Date(x.at)) : x));
  assert.equal(verifyChain(rehashed), { ok: false, seq: 4, why: 'entry 4 does not follow entry 3 (its prev is not that entry\'s hash)' });
  assert.equal(verifyChain(e.filter((x) => x.seq !== 2)), { ok: false, seq: 2, why: 'entry 2 is missing (the next is 3)' });
  assert.equal(verifyChain([e[0]!, e[2]!, e[1]!]).ok, false);
});

chain('the hash covers every field, the time and the address included', () => {
  const [a] = entries(1);
  for (const k of ['at', 'who', 'action', 'target', 'ip', 'company'] as const) {
    assert.equal(verifyChain([{ ...a!, [k]: `${a![k]}x` }]).ok, false, k);
  }
});

chain.run();
