/**
 * What the audit trail costs a search (docs/audit.md): the real search handler over HTTP on a SQLite
 * index of generated calls, with the trail (an entry appended to the job store's file, synchronous=FULL,
 * before the answer) and, as the peer in the same run, the same handler without it. First checks that
 * both answer the same and that the trail holds one intact entry per search; then times p50/p95.
 *   nice node --import tsx bench/audit.ts [--count 2000] [--reps 300]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { verifyChain } from '../src/audit/chain.js';
import { auditTrail } from '../src/http/audit-trail.js';
import { tenancyAccess } from '../src/http/auth.js';
import { mountSearchRoutes } from '../src/http/search-routes.js';
import { createHttpApp } from '../src/http/server.js';
import { silentLogger } from '../src/log.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { SqliteAuditLog } from '../src/store/sqlite/audit-log.js';
import { openSqlite } from '../src/store/sqlite/sqlite.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import { generateCorpus } from './lib/corpus.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 2000);
const REPS = arg('reps', 300);

console.log(`command: node --import tsx bench/audit.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores, ${os.platform()} ${os.release()}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (the machine is shared: treat times as direction)`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-audit-'));
const tenancy = new SqliteTenancy(path.join(dir, 'tenancy.sqlite'));
const token = tenancy.addCompany('bench', { org: 'calls', folder: 'f0' }).token;
const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
await index.init();
await index.index([...generateCorpus({ count: COUNT, wordsPerDoc: 200 })]);
const jobsDb = openSqlite(path.join(dir, 'jobs.sqlite'), 'FULL');
const log = new SqliteAuditLog(jobsDb);

async function serve(withTrail: boolean): Promise<{ base: string; close: () => Promise<void> }> {
  const access = withTrail ? tenancyAccess(tenancy, auditTrail(log, tenancy, 'bench-link-key')) : tenancyAccess(tenancy);
  const app = createHttpApp(silentLogger, (routes) => mountSearchRoutes(routes, { index, access, log: silentLogger }));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const server = app.server!;
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const QUERY = new URLSearchParams({ terms: 'refund', output: 'count' });
const ask = async (base: string) => {
  const r = await fetch(`${base}/search/bench/calls?${QUERY}`, { headers: { Authorization: `Bearer ${token}` } });
  return r.text();
};
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

const audited = await serve(true);
const plain = await serve(false);
// Correctness first: the same answer, one intact entry per audited search.
const [a, b] = [await ask(audited.base), await ask(plain.base)];
if (a !== b || !/^\d+$/.test(a) || Number(a) === 0) throw new Error(`answers differ or are empty: ${a} vs ${b}`);
const n0 = (await log.list('bench')).length;
await ask(audited.base);
const entries = await log.list('bench');
if (entries.length !== n0 + 1 || !verifyChain(entries).ok || !entries.at(-1)!.detail.digest) throw new Error('the audited search left no intact entry');
console.log(`checked: both answer ${a} calls; the audited search left 1 entry, chain intact`);

const times: Record<'audited' | 'peer (no trail)', number[]> = { audited: [], 'peer (no trail)': [] };
for (let i = 0; i < REPS; i++) {
  for (const [name, s] of [['audited', audited], ['peer (no trail)', plain]] as const) {
    const t0 = performance.now();
    await ask(s.base);
    times[name].push(performance.now() - t0);
  }
}
const appendMs: number[] = [];
for (let i = 0; i < REPS; i++) {
  const t0 = performance.now();
  await log.append({ company: 'bench', who: 'root', action: 'audio.play', target: 'x', detail: { fromSec: 0, toSec: 1 }, ip: '127.0.0.1' });
  appendMs.push(performance.now() - t0);
}
console.log(`${COUNT} calls, ${REPS} searches each (count of "refund"), interleaved:`);
for (const [name, xs] of Object.entries(times)) console.log(`  ${name.padEnd(16)} p50 ${pct(xs, 50).toFixed(2)} ms  p95 ${pct(xs, 95).toFixed(2)} ms`);
console.log(`  added by the trail: p50 ${(pct(times.audited, 50) - pct(times['peer (no trail)'], 50)).toFixed(2)} ms (goal ≤ 2 ms)`);
console.log(`  one append alone (SQLite, synchronous=FULL): p50 ${pct(appendMs, 50).toFixed(2)} ms  p95 ${pct(appendMs, 95).toFixed(2)} ms`);
await audited.close();
await plain.close();
await index.close();
jobsDb.close();
tenancy.close();
rmSync(dir, { recursive: true, force: true });
