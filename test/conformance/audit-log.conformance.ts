/**
 * The conformance suite of the audit trail's storage (src/store/audit-log.ts), run against every
 * adapter: SQLite (test/audit-log.test.ts) and PostgreSQL (test/pg-audit-log.test.ts). `open()` opens
 * another node on the same database (where the test needs two).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GENESIS, verifyChain, type AuditEvent } from '../../src/audit/chain.js';
import type { AuditLog } from '../../src/store/audit-log.js';

export interface AuditLogConformanceOptions {
  fresh: () => Promise<void>;
  open: () => Promise<AuditLog>;
  /** Runs SQL on the database as its owner would (a tamperer with database access). */
  sql: (text: string) => Promise<unknown>;
  dispose: () => Promise<void>;
}

const event = (company: string, n: number): AuditEvent => ({ company, who: 'token:0a1b2c3d', action: 'search', target: `${company}/sales`, detail: { terms: `refund ${n}`, output: 'summary' }, ip: '127.0.0.1' });

export function auditLogConformance(name: string, o: AuditLogConformanceOptions): void {
  const s = suite(`audit log: ${name}`);
  s.before.each(() => o.fresh());
  s.after.each(() => o.dispose());

  s('appends number each company from 1, chained to GENESIS and then to the entry before; list reads them back equal', async () => {
    const log = await o.open();
    const a1 = await log.append(event('acme', 1));
    const g1 = await log.append(event('globex', 1));
    const a2 = await log.append(event('acme', 2));
    assert.equal([a1.seq, g1.seq, a2.seq], [1, 1, 2]);
    assert.is(a1.prev, GENESIS);
    assert.is(a2.prev, a1.hash);
    assert.equal(await log.list('acme'), [a1, a2]);
    assert.equal(verifyChain(await log.list('acme')), { ok: true, entries: 2 });
    assert.equal(await log.companies(), ['acme', 'globex']);
  });

  s('filters by who, action, target, time and seq, with a limit', async () => {
    const log = await o.open();
    await log.append(event('acme', 1));
    const other = await log.append({ ...event('acme', 2), who: 'root', action: 'audio.play', target: 'r1' });
    await log.append(event('acme', 3));
    assert.equal((await log.list('acme', { who: 'root' })).map((e) => e.seq), [2]);
    assert.equal((await log.list('acme', { action: 'search' })).map((e) => e.seq), [1, 3]);
    assert.equal((await log.list('acme', { target: 'r1' })).map((e) => e.seq), [2]);
    assert.equal((await log.list('acme', { after: 1, limit: 1 })).map((e) => e.seq), [2]);
    assert.equal((await log.list('acme', { from: other.at, to: '9999-01-01T00:00:00.000Z' })).map((e) => e.seq).includes(2), true);
    assert.equal(await log.list('acme', { to: '2000-01-01T00:00:00.000Z' }), []);
  });

  s('two nodes appending at once never share a seq, and the chain holds', async () => {
    const [a, b] = [await o.open(), await o.open()];
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).append(event('acme', i))));
    const entries = await a.list('acme');
    assert.equal(entries.map((e) => e.seq), Array.from({ length: 40 }, (_, i) => i + 1));
    assert.equal(verifyChain(entries), { ok: true, entries: 40 });
  });

  s('the database refuses to change or delete an entry', async () => {
    const log = await o.open();
    await log.append(event('acme', 1));
    await o.sql(`UPDATE audit_log SET detail = '{}' WHERE seq = 1`).catch(() => undefined);
    await o.sql(`DELETE FROM audit_log WHERE seq = 1`).catch(() => undefined);
    const [e] = await log.list('acme');
    assert.equal(e?.detail, { terms: 'refund 1', output: 'summary' });
  });

  s.run();
}
