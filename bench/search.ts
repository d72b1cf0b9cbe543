/**
 * Embedded search benchmark: indexes a synthetic corpus (bench/lib/corpus.ts) into the SQLite index,
 * checks every benchmark query's count and first page against a brute-force scan with the reference
 * matcher (src/search/match.ts), then times summary searches (count + top 100 rows with hits) and
 * counts, per query kind, against that brute-force scan as the peer.
 *   nice node --import tsx bench/search.ts [--count 20000] [--words 300] [--reps 20]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { channelWords, evaluate, type ChannelWords } from '../src/search/match.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import type { IndexedTranscript, SearchQuery, SearchScope } from '../src/search/transcript-index.js';
import { BENCH_QUERIES, generateCorpus } from './lib/corpus.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 20_000);
const WORDS = arg('words', 300);
const REPS = arg('reps', 20);

console.log(`command: node --import tsx bench/search.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores, ${os.platform()} ${os.release()}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (the machine is shared: treat times as direction)`);
console.log(`corpus: ${COUNT} transcripts × ${WORDS} words, 2 channels`);

interface Ref {
  tid: string;
  dt: number;
  duration: number;
  model: string;
  agent: string;
  words: ChannelWords[];
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-search-'));
const file = path.join(dir, 'search.sqlite');
const index = new SqliteTranscriptIndex({ file });
await index.init();

const refs: Ref[] = [];
let batch: IndexedTranscript[] = [];
let indexMs = 0;
let indexCpuUs = 0;
const indexBatch = async (docs: typeof batch) => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await index.index(docs);
  const c = process.cpuUsage(c0);
  indexCpuUs += c.user + c.system;
  indexMs += performance.now() - t0;
};
for (const t of generateCorpus({ count: COUNT, wordsPerDoc: WORDS })) {
  refs.push({
    tid: t.tid,
    dt: Date.parse(t.datetime),
    duration: t.document.audiosecs,
    model: t.document.model,
    agent: String(t.document.streamtags?.metadata?.agent),
    words: channelWords(t.document),
  });
  batch.push(t);
  if (batch.length === 1000) {
    await indexBatch(batch);
    batch = [];
  }
}
if (batch.length > 0) await indexBatch(batch);
const size = ['', '-wal'].reduce((s, ext) => s + (statSync(file + ext, { throwIfNoEntry: false })?.size ?? 0), 0);
console.log(
  `indexing: ${(COUNT / (indexMs / 1000)).toFixed(0)} docs/s wall, ${(COUNT / (indexCpuUs / 1e6)).toFixed(0)} docs/s of process CPU ` +
    `(${(indexMs / 1000).toFixed(1)} s wall in batches of 1000), store ${(size / 1e6).toFixed(0)} MB`,
);

const scope: SearchScope = { company: 'bench', org: 'calls' };

/** The peer: a full scan of the corpus with the reference matcher, sorted like the index. */
function bruteForce(q: SearchQuery): Ref[] {
  const hits = refs.filter(
    (r) =>
      (q.fromMs === undefined || r.dt >= q.fromMs) &&
      (q.toMs === undefined || r.dt <= q.toMs) &&
      (q.durationMin === undefined || r.duration >= q.durationMin) &&
      (q.durationMax === undefined || r.duration <= q.durationMax) &&
      (q.model === undefined || r.model === q.model) &&
      (q.meta.agent === undefined || r.agent === q.meta.agent) &&
      (!q.terms || evaluate(q.terms, r.words, q.channel)),
  );
  return hits.sort((a, b) => b.dt - a.dt || (a.tid < b.tid ? -1 : 1));
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

// 1. correctness first
for (const { options } of BENCH_QUERIES) {
  const q = parseSearchOptions(options).query;
  const expected = bruteForce(q);
  const { total, rows } = await index.search(scope, q);
  const top = rows.map((r) => r.tid);
  const want = expected.slice(0, q.size).map((r) => r.tid);
  if (total !== expected.length || top.join() !== want.join()) {
    console.error(`MISMATCH for ${JSON.stringify(options)}: index ${total} / brute force ${expected.length}`);
    process.exit(1);
  }
  if (rows.some((r) => r.hits.length === 0)) {
    console.error(`a row without hits for ${JSON.stringify(options)}`);
    process.exit(1);
  }
}
console.log(`correctness: ${BENCH_QUERIES.length} queries, counts and first pages equal to the brute-force scan`);

// 2. timing
const byKind = new Map<string, { search: number[]; cpu: number[]; count: number[]; peer: number[]; matches: number[] }>();
for (const { kind, options } of BENCH_QUERIES) {
  const q = parseSearchOptions(options).query;
  const k = byKind.get(kind) ?? { search: [], cpu: [], count: [], peer: [], matches: [] };
  byKind.set(kind, k);
  for (let i = 0; i < REPS; i++) {
    let t0 = performance.now();
    const c0 = process.cpuUsage();
    const r = await index.search(scope, q);
    k.search.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    k.cpu.push((c.user + c.system) / 1000);
    t0 = performance.now();
    await index.count(scope, q);
    k.count.push(performance.now() - t0);
    if (i === 0) k.matches.push(r.total);
  }
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    bruteForce(q);
    k.peer.push(performance.now() - t0);
  }
}

console.log('\nkind      queries  matches/query        summary(top 100+hits) p50 / p99 (CPU p50)   count p50 / p99   peer brute-force scan p50   ratio (peer/summary p50)');
for (const [kind, k] of byKind) {
  const p50 = pct(k.search, 50);
  console.log(
    `${kind.padEnd(9)} ${String(k.matches.length).padStart(7)}  ${k.matches.join(',').padEnd(20)} ${p50.toFixed(2).padStart(10)} / ${pct(k.search, 99).toFixed(2).padStart(7)} ms (${pct(k.cpu, 50).toFixed(1)})` +
      `   ${pct(k.count, 50).toFixed(2).padStart(6)} / ${pct(k.count, 99).toFixed(2).padStart(6)} ms   ${pct(k.peer, 50).toFixed(1).padStart(10)} ms   ${(pct(k.peer, 50) / p50).toFixed(1)}×`,
  );
}

console.log(`load average at end: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
await index.close();
rmSync(dir, { recursive: true, force: true });
