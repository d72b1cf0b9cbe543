/**
 * Elasticsearch backend benchmark: bulk indexing through voxdex, then phrase / boolean / filtered
 * searches through voxdex's ElasticsearchIndex against the SAME query body sent directly with the
 * official client (the named peer), in the same run, on the same index. Results are checked to agree
 * (same tids in the same order, same total) before anything is timed.
 *
 *   eval "$(bash scripts/elasticsearch.sh start)"
 *   nice node --import tsx bench/search-es.ts [--docs 20000] [--words 300] [--runs 150] [--size 10]
 *
 * The corpus and the queries are bench/lib/corpus.ts's, shared with the embedded benchmark (bench/search.ts).
 *   bash scripts/elasticsearch.sh stop
 *
 * Needs VOXDEX_TEST_ES_URL (or VOXDEX_ES_URL). Creates and deletes its own index.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { estypes } from '@elastic/elasticsearch';
import { ElasticsearchIndex, ROW_SOURCE } from '../src/search/elasticsearch-index.js';
import { searchQuery, searchSort } from '../src/search/elasticsearch-mapping.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import type { SearchQuery, SearchScope } from '../src/search/transcript-index.js';
import { BENCH_QUERIES, generateCorpus } from './lib/corpus.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '20000' },
    words: { type: 'string', default: '300' },
    runs: { type: 'string', default: '150' },
    size: { type: 'string', default: '10' },
  },
});
const DOCS = Number(args.docs);
const WORDS = Number(args.words);
const RUNS = Number(args.runs);
const SIZE = Number(args.size);
const url = process.env.VOXDEX_TEST_ES_URL ?? process.env.VOXDEX_ES_URL;
if (!url) {
  console.error('Set VOXDEX_TEST_ES_URL: eval "$(bash scripts/elasticsearch.sh start)"');
  process.exit(2);
}

// ---------------------------------------------------------------- timing helpers

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const f = (x: number) => x.toFixed(2).padStart(7);

async function main() {
  const cpus = os.cpus();
  const index = new ElasticsearchIndex({ node: url!, index: `voxdex-bench-${Date.now().toString(36)}` });
  const client = index.client;
  const nodes = await client.nodes.info({ node_id: '_local', metric: ['jvm'] });
  const node = Object.values(nodes.nodes)[0]!;
  console.log(`command: node --import tsx bench/search-es.ts --docs ${DOCS} --words ${WORDS} --runs ${RUNS} --size ${SIZE}`);
  console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length}; Elasticsearch ${node.version} (JVM ${node.jvm?.version}, heap max ${Math.round((node.jvm?.mem?.heap_max_in_bytes ?? 0) / 2 ** 20)} MiB) at ${url}`);

  try {
    await index.init();
    // ------------------------------------------------------------ bulk indexing through voxdex
    const batch = 500;
    let indexMs = 0;
    const corpus = generateCorpus({ count: DOCS, wordsPerDoc: WORDS });
    for (let i = 0; i < DOCS; i += batch) {
      const docs = [];
      for (let k = 0; k < batch; k++) {
        const next = corpus.next();
        if (next.done) break;
        docs.push(next.value);
      }
      const t = performance.now();
      await index.index(docs);
      indexMs += performance.now() - t;
    }
    const stats = await client.indices.stats({ index: index.indexName, metric: ['store', 'docs'] });
    const store = stats._all.primaries?.store?.size_in_bytes ?? 0;
    console.log(
      `indexing: ${DOCS} transcripts × ${WORDS} words through ElasticsearchIndex.index (bulk ${batch}, refresh after each call): ` +
        `${(DOCS / (indexMs / 1000)).toFixed(0)} docs/s (${(indexMs / 1000).toFixed(1)} s; generation excluded); store ${(store / 2 ** 20).toFixed(0)} MiB`,
    );
    await client.indices.forcemerge({ index: index.indexName, max_num_segments: 1 }, { requestTimeout: 900_000 });

    // ------------------------------------------------------------ queries
    const scope: SearchScope = { company: 'bench', org: 'calls' };
    const kinds = ['phrase', 'boolean', 'filtered', 'wildcard'].map((kind) => {
      const queries = BENCH_QUERIES.filter((b) => b.kind === kind).map((b) => ({
        text: JSON.stringify(b.options),
        query: parseSearchOptions({ ...b.options, size: String(SIZE) }).query,
      }));
      return { kind, queries };
    });

    const direct = (scope: SearchScope, q: SearchQuery) =>
      client.search({
        index: index.indexName,
        query: searchQuery(scope, q),
        sort: searchSort(q),
        from: q.offset,
        size: q.size,
        track_total_hits: true,
        _source: ROW_SOURCE,
      });
    const totalOf = (r: estypes.SearchResponse) => (typeof r.hits.total === 'number' ? r.hits.total : r.hits.total!.value);

    console.log(`\nsummary searches through voxdex vs the same request body sent directly (top ${SIZE} + exact total; ${RUNS} runs per kind, interleaved; ms):`);
    console.log('kind              matches(avg) | voxdex p50    p99 | direct p50    p99 | overhead p50  p99 | client-side CPU');
    const ratios: number[] = [];
    for (const { kind, queries } of kinds) {
      // Correctness first: voxdex and the direct request agree on every query; rows carry hits.
      let matches = 0;
      for (const { text, query } of queries) {
        const [a, b] = [await index.search(scope, query), await direct(scope, query)];
        const bt = b.hits.hits.map((h) => (h._source as { tid: string }).tid);
        if (a.total !== totalOf(b) || JSON.stringify(a.rows.map((r) => r.tid)) !== JSON.stringify(bt)) {
          throw new Error(`${text}: voxdex ${a.total} ${a.rows.map((r) => r.tid)} ≠ direct ${totalOf(b)} ${bt}`);
        }
        if (a.total === 0 || a.rows.some((r) => r.hits.length === 0)) throw new Error(`${text}: no matches, or a row without hits`);
        matches += a.total;
      }
      for (let w = 0; w < 10; w++) {
        const { query } = queries[w % queries.length]!;
        await index.search(scope, query);
        await direct(scope, query);
      }
      const tv: number[] = [];
      const td: number[] = [];
      const cpu = { v: 0, d: 0 };
      for (let r = 0; r < RUNS; r++) {
        const { query } = queries[r % queries.length]!;
        const order = r % 2 === 0;
        for (const which of order ? ['v', 'd'] : ['d', 'v']) {
          const t = performance.now();
          const c = process.cpuUsage();
          if (which === 'v') await index.search(scope, query);
          else await direct(scope, query);
          (which === 'v' ? tv : td).push(performance.now() - t);
          const used = process.cpuUsage(c);
          cpu[which as 'v' | 'd'] += (used.user + used.system) / 1000;
        }
      }
      tv.sort((x, y) => x - y);
      td.sort((x, y) => x - y);
      const r50 = pct(tv, 50) / pct(td, 50);
      const r99 = pct(tv, 99) / pct(td, 99);
      ratios.push(r50);
      console.log(
        `${kind.padEnd(16)} ${String(Math.round(matches / queries.length)).padStart(12)} | ${f(pct(tv, 50))} ${f(pct(tv, 99))} | ${f(pct(td, 50))} ${f(pct(td, 99))} |` +
          ` ${((r50 - 1) * 100).toFixed(1).padStart(7)}% ${((r99 - 1) * 100).toFixed(1).padStart(5)}%` +
          ` | node CPU/search: voxdex ${(cpu.v / RUNS).toFixed(2)} ms, direct ${(cpu.d / RUNS).toFixed(2)} ms`,
      );
    }
    const worst = Math.max(...ratios);
    console.log(`\nvoxdex / direct client (p50), worst kind: ${worst.toFixed(3)} (target ≤ 1.10: ${worst <= 1.1 ? 'met' : 'NOT met'})`);
  } finally {
    await client.indices.delete({ index: index.indexName, ignore_unavailable: true });
    await index.close();
  }
}

await main();
