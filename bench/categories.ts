/**
 * Category benchmark (issue 20): 50 categories over the synthetic corpus of bench/lib/corpus.ts in
 * the embedded SQLite index.
 *   1. Scoring cost per call at indexing: the 50 rules against each call (src/analytics/categories.ts
 *      `scoreDocument`), beside the cost of indexing the call (the peer).
 *   2. Backfill rate: the 50 categories created at once over N indexed calls (src/analytics/backfill.ts),
 *      wall and process CPU time (goal: 20,000 × 50 in under 60 s on 2 cores).
 *   3. Correctness first: every category's calls (search `category=NAME`) equal the calls the same
 *      search finds (terms, channel) run one by one; those 50 searches are timed too (the other peer).
 *   nice node --import tsx bench/categories.ts [--count 20000] [--words 300] [--score 2000]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CategoryBackfill } from '../src/analytics/backfill.js';
import { compileCategory, scoreDocument } from '../src/analytics/categories.js';
import { silentLogger } from '../src/log.js';
import { parseTerms } from '../src/search/query.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { defaultQuery, type IndexedTranscript } from '../src/search/transcript-index.js';
import type { CategoryRule } from '../src/store/category-store.js';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { generateCorpus, vocabulary } from './lib/corpus.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 20_000);
const WORDS = arg('words', 300);
const SCORE = Math.min(arg('score', 2000), COUNT);

console.log(`command: node --import tsx bench/categories.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores, ${os.platform()} ${os.release()}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine: treat times as direction)`);

/** 50 rules of every kind the terms language has: phrases, words, booleans, exclusions, proximity, wildcards, channel limits. */
function rules(): Array<[string, CategoryRule]> {
  const v = vocabulary();
  const w = (rank: number) => v[rank]!;
  const out: Array<[string, CategoryRule]> = [
    ['cancel', { terms: '"cancel my subscription"' }],
    ['manager', { terms: '"speak to a manager"' }],
    ['refund', { terms: '"refund request"' }],
    ['card', { terms: '"credit card number"' }],
    ['cancel-or-refund', { terms: '"cancel my subscription" | "refund request"' }],
    ['refund-no-manager', { terms: '"refund request" -manager' }],
    ['manager-agent', { terms: 'manager', channel: 0 }],
    ['manager-customer', { terms: 'manager', channel: 1 }],
    ['subscr', { terms: 'subscr*' }],
    ['cancel-near', { terms: '"cancel subscription"~3' }],
  ];
  for (let i = 0; out.length < 50; i++) {
    const k = out.length;
    const r = 200 + i * 37; // mid-frequency words: each in a few percent to a third of the calls
    if (k % 5 === 0) out.push([`word-${k}`, { terms: w(r) }]);
    else if (k % 5 === 1) out.push([`and-${k}`, { terms: `${w(r)} ${w(r + 11)}` }]);
    else if (k % 5 === 2) out.push([`or-${k}`, { terms: `(${w(r)} | ${w(r + 5)}) -${w(r + 9)}` }]);
    else if (k % 5 === 3) out.push([`near-${k}`, { terms: `"${w(60 + i)} ${w(70 + i)}"~10`, channel: i % 2 }]);
    else out.push([`wild-${k}`, { terms: `${w(r).slice(0, 3)}*` }]);
  }
  return out;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-categories-'));
const cpu = () => process.cpuUsage();
const cpuSec = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

try {
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
  await index.init();
  const RULES = rules();
  const compiled = RULES.map(([name, rule]) => compileCategory(name, rule));

  // 1. Index (the peer of scoring) and keep a sample for scoring.
  const sample: IndexedTranscript[] = [];
  let batch: IndexedTranscript[] = [];
  let t0 = performance.now();
  let c0 = cpu();
  for (const t of generateCorpus({ count: COUNT, wordsPerDoc: WORDS })) {
    if (sample.length < SCORE) sample.push(t);
    batch.push(t);
    if (batch.length === 1000) {
      await index.index(batch);
      batch = [];
    }
  }
  if (batch.length) await index.index(batch);
  const indexWall = (performance.now() - t0) / 1000;
  const indexCpu = cpuSec(c0);
  console.log(`\nindexed ${COUNT} calls × ${WORDS} words: ${indexWall.toFixed(1)} s wall, ${indexCpu.toFixed(1)} s CPU → ${((indexCpu / COUNT) * 1000).toFixed(2)} ms CPU per call (generation included)`);

  // 2. Scoring cost per call at indexing.
  t0 = performance.now();
  c0 = cpu();
  let matched = 0;
  for (const t of sample) matched += scoreDocument(compiled, t.org, t.document).length;
  const scoreCpu = cpuSec(c0);
  const scoreWall = (performance.now() - t0) / 1000;
  console.log(`scoring at indexing: ${SCORE} calls × ${compiled.length} categories: ${((scoreCpu / SCORE) * 1000).toFixed(3)} ms CPU per call (${((scoreWall / SCORE) * 1000).toFixed(3)} ms wall), ${(matched / SCORE).toFixed(1)} categories per call`);

  // 3. Backfill of the 50 categories created at once.
  const db = new Database(path.join(dir, 'tenancy.sqlite'));
  db.pragma('journal_mode = WAL');
  const store = new SqliteCategoryStore(db);
  for (const [name, rule] of RULES) await store.put('bench', name, rule);
  const backfill = new CategoryBackfill({ store, index, log: silentLogger, owner: 'bench', pollMs: 0 });
  t0 = performance.now();
  c0 = cpu();
  const run = await backfill.runCompany('bench');
  const bfWall = (performance.now() - t0) / 1000;
  const bfCpu = cpuSec(c0);
  console.log(`backfill: ${run.scanned} calls × ${RULES.length} categories in ${bfWall.toFixed(1)} s wall, ${bfCpu.toFixed(1)} s CPU → ${Math.round(run.scanned / bfWall)} calls/s, ${Math.round((run.scanned * RULES.length) / bfWall)} call-categories/s; ${run.changed} calls changed`);
  console.log(`goal ${COUNT} × 50 in under 60 s: ${bfWall < 60 ? 'met' : 'NOT met'}`);

  // 4. Check: each category equals the same search; time the 50 searches one by one (count + all rows).
  const scope = { company: 'bench', org: 'calls' };
  let bad = 0;
  let searchWall = 0;
  let searchCpu = 0;
  let categoryWall = 0;
  for (const [name, rule] of RULES) {
    let s0 = performance.now();
    let sc = cpu();
    const bySearch = await index.count(scope, defaultQuery({ terms: parseTerms(rule.terms), ...(rule.channel === undefined ? {} : { channel: rule.channel }) }));
    searchWall += performance.now() - s0;
    searchCpu += cpuSec(sc);
    s0 = performance.now();
    sc = cpu();
    const byCategory = await index.count(scope, defaultQuery({ categories: [name] }));
    categoryWall += performance.now() - s0;
    if (bySearch !== byCategory) {
      bad++;
      console.log(`MISMATCH ${name} (${rule.terms}): search ${bySearch}, category ${byCategory}`);
    }
  }
  const counts = await index.categoryCounts('bench');
  const sizes = RULES.map(([n]) => counts[n] ?? 0).sort((a, b) => a - b);
  console.log(`check: ${RULES.length - bad} of ${RULES.length} categories equal their search (category sizes ${sizes[0]}…${sizes.at(-1)}, median ${sizes[25]})`);
  console.log(`peer: the 50 searches one by one (count): ${(searchWall / 1000).toFixed(2)} s wall, ${searchCpu.toFixed(2)} s CPU; the 50 category= counts: ${(categoryWall / 1000).toFixed(2)} s wall`);
  await index.close();
  db.close();
  if (bad > 0) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
