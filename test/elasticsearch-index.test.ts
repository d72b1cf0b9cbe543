/**
 * The Elasticsearch transcript index against a REAL Elasticsearch (scripts/elasticsearch.sh, started by
 * scripts/test.sh, which exports VOXDEX_TEST_ES_URL). Runs the same conformance suite as the embedded
 * store, each test on its own fresh index, plus a differential check against the embedded store on a
 * random corpus and ES-specific behaviour. Without VOXDEX_TEST_ES_URL this file FAILS (never skips).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@elastic/elasticsearch';
import { loadConfig } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';
import { ElasticsearchIndex, elasticsearchIndexFromConfig } from '../src/search/elasticsearch-index.js';
import { decodeRow, encodeRow, INDEX_SETTINGS, MAPPINGS, toEsTranscript } from '../src/search/elasticsearch-mapping.js';
import { CORPUS } from './conformance/transcript-corpus.js';
import { channelWords } from '../src/search/match.js';
import { parseTerms } from '../src/search/query.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { defaultQuery, type IndexedTranscript, type SearchQuery, type SearchScope } from '../src/search/transcript-index.js';
import { transcriptIndexConformance } from './conformance/transcript-index.conformance.js';

const url = process.env.VOXDEX_TEST_ES_URL;
const run = `voxdex-test-${process.pid}-${Date.now().toString(36)}`;
const created: string[] = [];
let serial = 0;
let shared: Client | undefined;

function client(): Client {
  return (shared ??= new Client({ node: url! }));
}

/** A fresh, isolated index for one test; all of them are deleted when the file is done. */
async function freshIndex(options: { scanPageSize?: number } = {}): Promise<ElasticsearchIndex> {
  const name = `${run}-${++serial}`;
  created.push(name);
  const index = new ElasticsearchIndex({ client: client(), index: name, ...options });
  await index.init();
  return index;
}

const mapping = suite('elasticsearch-mapping: stored rows');
mapping('a row decodes to the channel words it was made from, times to the millisecond like the embedded store', () => {
  const doc = transcript('r1', [['Hello', '<sil>', "don't", 'x y'], ['two']]).document;
  doc.utterances[0]!.events[0]!.start = 0.1 + 0.2;
  doc.utterances[0]!.events[2]!.end = 2.0004;
  const cws = channelWords(doc);
  const decoded = decodeRow(encodeRow({ agent: 'bob', n: 1 }, cws));
  assert.equal(decoded.metadata, { agent: 'bob', n: 1 });
  const plain = decoded.words.map((c) => ({ channel: c.channel, norm: c.norm, words: c.words, starts: c.starts, ends: c.ends }));
  assert.equal(plain, [
    { channel: 0, norm: ['hello', 'dont', 'xy'], words: ['Hello', "don't", 'x y'], starts: [0.3, 2, 3], ends: [0.5, 2, 3.5] },
    { channel: 1, norm: ['two'], words: ['two'], starts: [0], ends: [0.5] },
  ]);
  assert.equal(decodeRow(encodeRow({}, channelWords(transcript('r2', [['a', 'b']]).document))).words[0]!.words, ['a', 'b']);
});
mapping.run();

const setup = suite('elasticsearch-index: setup');
setup('VOXDEX_TEST_ES_URL points at a running Elasticsearch', async () => {
  assert.ok(
    url,
    'VOXDEX_TEST_ES_URL is not set: run the suite with `bash scripts/test.sh`, or first `eval "$(bash scripts/elasticsearch.sh start)"`',
  );
  const health = await client().cluster.health();
  assert.ok(['green', 'yellow'].includes(health.status), `cluster status ${health.status}`);
});
setup.run();

if (url) {
  transcriptIndexConformance('elasticsearch', freshIndex);

  // ------------------------------------------------------------ differential: ES vs the embedded store
  const diff = suite('elasticsearch-index: same answers as the embedded store');
  diff('returns identical counts, rows, hits and details for 160 random searches over 240 random transcripts', async () => {
    const rnd = random(20261122);
    const docs = randomCorpus(rnd, 240);
    const es = await freshIndex({ scanPageSize: 17 });
    const sq = new SqliteTranscriptIndex({ file: ':memory:' });
    await sq.init();
    await es.index(docs);
    await sq.index(docs);
    let nonEmpty = 0;
    for (let i = 0; i < 160; i++) {
      const { scope, query, text } = randomSearch(rnd);
      const label = `${text} ${JSON.stringify({ ...scope, ...query, terms: undefined })}`;
      const [a, b] = [await es.search(scope, query), await sq.search(scope, query)];
      assert.equal(a, b, `search ${label}`);
      assert.is(await es.count(scope, query), b.total, `count ${label}`);
      assert.equal(await es.details(scope, query), await sq.details(scope, query), `details ${label}`);
      if (b.total > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 60, `only ${nonEmpty} of 160 searches found something; the check would be weak`);
    await sq.close();
  });
  diff.run();

  // ------------------------------------------------------------ Elasticsearch specifics
  const es = suite('elasticsearch-index: Elasticsearch specifics');
  es('names its index <VOXDEX_ES_INDEX_PREFIX>-transcripts and creates it on init', async () => {
    const prefix = `${run}-cfg`;
    created.push(`${prefix}-transcripts`);
    const index = elasticsearchIndexFromConfig(loadConfig({ VOXDEX_ES_URL: url, VOXDEX_ES_INDEX_PREFIX: prefix }));
    assert.is(index.indexName, `${prefix}-transcripts`);
    await index.init();
    await index.init();
    assert.ok(await client().indices.exists({ index: `${prefix}-transcripts` }));
    await index.close();
  });

  es('rejects an index prefix Elasticsearch cannot use', () => {
    const err = catchSync(() => elasticsearchIndexFromConfig(loadConfig({ VOXDEX_ES_URL: url, VOXDEX_ES_INDEX_PREFIX: 'Voxdex' })));
    assert.is(err.code, 'BAD_ARGUMENT');
    assert.is(
      err.message,
      'Expected an Elasticsearch index name (lowercase letters, digits, . _ -) but received "Voxdex-transcripts"; check VOXDEX_ES_INDEX_PREFIX.',
    );
  });

  es('refuses to use an index created with another mapping version', async () => {
    const name = `${run}-old`;
    created.push(name);
    await client().indices.create({ index: name, mappings: { _meta: { voxdex_mapping_version: 0 }, properties: { tid: { type: 'keyword' } } } });
    const err = await catchAsync(() => new ElasticsearchIndex({ client: client(), index: name }).init());
    assert.is(err.code, 'INDEX_UNAVAILABLE');
    assert.match(err.message, `Elasticsearch index ${name} has mapping version 0, this voxdex needs 2; reindex`);
  });

  es('an index of mapping version 1 (no word stems) is migrated at init: word forms match, categories kept', async () => {
    const name = `${run}-v1`;
    created.push(name);
    const { words, place, ...properties } = MAPPINGS.properties!;
    const v1Words = { type: 'nested' as const, properties: { channel: { type: 'integer' as const }, text: { type: 'text' as const, analyzer: 'whitespace', index_options: 'positions' as const, norms: false } } };
    await client().indices.create({
      index: name,
      settings: INDEX_SETTINGS,
      mappings: { ...MAPPINGS, _meta: { voxdex_mapping_version: 1 }, _source: { excludes: ['words.text'] }, properties: { ...properties, words: v1Words } },
    });
    assert.ok(words && place);
    const docs = CORPUS.map((t) => {
      const es = toEsTranscript(t, Date.parse(t.datetime), '2024-01-01T00:00:00.000Z');
      const { place: _, ...v1 } = es;
      return { ...v1, words: es.words.map(({ channel, text }) => ({ channel, text })), categories: t.tid === 't01' ? ['kept'] : [] };
    });
    await client().bulk({ refresh: true, operations: docs.flatMap((d) => [{ index: { _index: name, _id: d.tid } }, d]) });
    const index = new ElasticsearchIndex({ client: client(), index: name, bulkSize: 3 });
    await index.init();
    const scope = { company: 'acme', org: 'sales', folder: 'f1' };
    assert.is(await index.count(scope, defaultQuery({ terms: parseTerms('subscriptions') })), 3);
    assert.is(await index.count(scope, defaultQuery({ terms: parseTerms('"canceled"') })), 1);
    assert.equal(await index.categoryCounts('acme'), { kept: 1 });
    const byFolder = await index.aggregate({ company: 'acme' }, defaultQuery(), { tzOffsetMin: 0, by: { kind: 'folder' } });
    assert.equal(byFolder.groups!.map((g) => [g.key, g.calls]), [['sales/f1', 7], ['sales/f2', 1], ['support/f1', 1]]);
    const mapping = await client().indices.getMapping({ index: name });
    assert.is(mapping[name]!.mappings._meta?.voxdex_mapping_version, 2);
    await index.init();
  });

  es('reports an unreachable Elasticsearch as INDEX_UNAVAILABLE (retryable), without the URL\'s password', async () => {
    const index = new ElasticsearchIndex({ node: 'http://voxdex:s3cret@127.0.0.1:9', index: 'nothing-here', requestTimeoutMs: 2000 });
    const err = await catchAsync(() => index.count({ company: 'a', org: 'b' }, defaultQuery()));
    assert.is(err.code, 'INDEX_UNAVAILABLE');
    assert.is(err.retryable, true);
    assert.match(err.message, 'Elasticsearch index nothing-here at http://127.0.0.1:9 is unreachable (ConnectionError');
    assert.not.match(err.message, 's3cret');
    await index.close();
  });

  es('sorts by score across several scan pages and pages the result exactly', async () => {
    const index = await freshIndex({ scanPageSize: 3 });
    // tN says "yes" N times: score = N.
    const docs = Array.from({ length: 11 }, (_, n) => transcript(`t${String(n).padStart(2, '0')}`, [Array.from({ length: n + 1 }, () => 'yes')]));
    await index.index(docs);
    const scope = { company: 'acme', org: 'sales' };
    const page = await index.search(scope, defaultQuery({ terms: parseTerms('yes'), sort: 'score', offset: 2, size: 4 }));
    assert.is(page.total, 11);
    assert.equal(page.rows.map((r) => [r.tid, r.score]), [['t08', 9], ['t07', 8], ['t06', 7], ['t05', 6]]);
    const asc = await index.details(scope, defaultQuery({ terms: parseTerms('yes'), sort: 'score', sortdir: 'asc', size: 2 }));
    assert.equal(asc.map((d) => d.tid), ['t00', 't01']);
  });

  es('a re-indexed transcript replaces the old one, also when it moves to another folder', async () => {
    const index = await freshIndex();
    await index.index([transcript('x1', [['old', 'words']])]);
    await index.index([{ ...transcript('x1', [['new', 'words']]), folder: 'other' }]);
    const all = defaultQuery({ terms: parseTerms('words') });
    assert.is(await index.count({ company: 'acme', org: 'sales' }, all), 1);
    assert.is(await index.count({ company: 'acme', org: 'sales', folder: 'calls' }, all), 0);
    assert.is(await index.count({ company: 'acme', org: 'sales' }, defaultQuery({ terms: parseTerms('old') })), 0);
  });

  es('indexes more transcripts than one bulk request holds', async () => {
    const index = new ElasticsearchIndex({ client: client(), index: `${run}-${++serial}`, bulkSize: 2 });
    created.push(index.indexName);
    await index.init();
    await index.index(Array.from({ length: 5 }, (_, n) => transcript(`b${n}`, [['bulk', `w${n}`]])));
    const found = await index.search({ company: 'acme', org: 'sales' }, defaultQuery({ terms: parseTerms('bulk'), sort: 'filename', sortdir: 'asc' }));
    assert.equal(found.rows.map((r) => r.tid), ['b0', 'b1', 'b2', 'b3', 'b4']);
  });

  es('an invalid datetime rejects the whole batch before anything is written', async () => {
    const index = await freshIndex();
    const err = await catchAsync(() => index.index([transcript('ok1', [['fine']]), { ...transcript('bad', [['fine']]), datetime: 'yesterday' }]));
    assert.is(err.code, 'BAD_ARGUMENT');
    assert.is(err.message, 'Transcript bad has an invalid datetime "yesterday"');
    assert.is(await index.count({ company: 'acme', org: 'sales' }, defaultQuery()), 0);
  });

  es('a wildcard in a phrase that matches too many different words is BAD_QUERY', async () => {
    const index = await freshIndex();
    const words = (d: number) => Array.from({ length: 1000 }, (_, i) => `w${(d * 1000 + i).toString(36)}`);
    await index.index(Array.from({ length: 20 }, (_, d) => transcript(`m${d}`, [words(d)])));
    const scope = { company: 'acme', org: 'sales' };
    assert.is(await index.count(scope, defaultQuery({ terms: parseTerms('w*') })), 20);
    const err = await catchAsync(() => index.search(scope, defaultQuery({ terms: parseTerms('"w* w*"') })));
    assert.is(err.code, 'BAD_QUERY');
    assert.match(err.message, /^Invalid terms: a wildcard matches too many different words for Elasticsearch \(.*maxClauseCount.*\); add letters to narrow the wildcard\.$/);
  });

  es('purgeDeleted leaves no replaced document in the segments (voxdex redact: old words must not linger)', async () => {
    const name = `${run}-purge`;
    created.push(name);
    const index = new ElasticsearchIndex({ client: client(), index: name });
    await index.init();
    // A replace (as voxdex redact re-indexes a transcript) leaves the old version as a deleted document.
    for (const words of ['four five three nine', '####']) await client().index({ index: name, id: 't1', document: { company: 'acme', org: 'sales', folder: 'calls', filename: words }, refresh: true });
    const docs = async () => (await client().indices.stats({ index: name, metric: 'docs' })).indices?.[name]?.primaries?.docs;
    assert.is((await docs())?.deleted, 1);
    await index.purgeDeleted();
    await client().indices.refresh({ index: name });
    assert.equal(await docs().then((d) => [d?.count, d?.deleted]), [1, 0]);
  });

  es.after(async () => {
    if (created.length > 0) await client().indices.delete({ index: created.join(','), ignore_unavailable: true });
    await shared?.close();
  });
  es.run();
}

// ---------------------------------------------------------------- helpers

async function catchAsync(fn: () => Promise<unknown>): Promise<VoxdexError> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, VoxdexError);
    return err as VoxdexError;
  }
  throw new assert.Assertion({ message: 'expected an error', operator: 'throws', generated: false, expects: 'error', actual: 'none' });
}

function catchSync(fn: () => unknown): VoxdexError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, VoxdexError);
    return err as VoxdexError;
  }
  throw new assert.Assertion({ message: 'expected an error', operator: 'throws', generated: false, expects: 'error', actual: 'none' });
}

function transcript(tid: string, channels: string[][], over: Partial<IndexedTranscript> = {}): IndexedTranscript {
  return {
    tid,
    company: 'acme',
    org: 'sales',
    folder: 'calls',
    datetime: '2026-11-01T10:00:00Z',
    document: {
      asr: 'voxdex test',
      model: 'en-us',
      audiosecs: 30,
      nchannels: channels.length,
      requestid: `r-${tid}`,
      source: `${tid}.wav`,
      chaninfo: [],
      utterances: channels.map((words, channel) => ({
        start: 0,
        end: words.length,
        confidence: 0.8,
        metadata: { channel, uttid: channel },
        events: words.map((word, i) => ({ word, start: i, end: i + 0.5, confidence: 0.9 })),
      })),
    },
    ...over,
  };
}

/** Deterministic PRNG (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}
type Rnd = ReturnType<typeof random>;

// Case, apostrophes, diacritics and fillers exercise normalization; a small vocabulary makes queries hit.
const VOCAB = ['hello', 'Hello', 'yes', 'no', 'cancel', 'my', 'account', 'please', "don't", 'café', 'CAFE', 'refund',
  'order', 'number', 'thank', 'thanks', 'you', 'agent', 'call', 'back', 'credit', 'card', 'ok', 'okay', '2024', 'a', 'the',
  'calls', 'called', 'Orders', 'ordered', 'refunds', 'cancelled', 'cards'];
const FILLERS = ['<sil>', '[noise]', '++breath++', '-', "'"];
const QWORDS = ['hello', 'yes', 'no', 'cancel', 'account', 'please', 'dont', 'cafe', 'café', 'refund', 'order', 'thank', 'you',
  'agent', 'call', 'back', 'credit', 'card', 'ok', '2024', 'the', 'zebra', 'th*', '*ank*', 'ca?d', 'o?', '*e', 'c*l', 'you*', '?k',
  'calling', 'orders', 'refunded', 'called', 'cards'];
const COMPANIES = ['acme', 'globex'];
const ORGS = ['sales', 'support'];
const FOLDERS = ['calls', 'vip', 'Folder.2'];

function randomCorpus(rnd: Rnd, n: number): IndexedTranscript[] {
  return Array.from({ length: n }, (_, i) => {
    const nch = 1 + rnd.int(3);
    const utterances = [];
    for (let c = 0; c < nch; c++) {
      let t = rnd.int(5) * 0.25;
      for (let u = 0; u < 1 + rnd.int(3); u++) {
        const events = Array.from({ length: 1 + rnd.int(12) }, () => {
          const word = rnd.next() < 0.08 ? rnd.pick(FILLERS) : rnd.pick(VOCAB);
          const e = { word, start: t, end: t + 0.3, confidence: 0.9 };
          t += 0.4 + rnd.int(3) * 0.1;
          return e;
        });
        utterances.push({ start: events[0]!.start, end: t, confidence: 0.7, metadata: { channel: c, uttid: u }, events });
      }
    }
    const metadata: Record<string, unknown> = { agent: rnd.pick(['bob', 'ann', 'Bob']) };
    if (rnd.next() < 0.5) metadata.priority = rnd.pick([1, 2, true, null, 'high']);
    if (rnd.next() < 0.3) metadata['a.b'] = rnd.pick(['x', 'y']);
    const doc: IndexedTranscript = {
      tid: `t${String(i).padStart(4, '0')}${rnd.pick(['', 'a', 'B'])}`,
      company: rnd.pick(COMPANIES),
      org: rnd.pick(ORGS),
      folder: rnd.pick(FOLDERS),
      datetime: new Date(Date.UTC(2026, rnd.int(3), 1 + rnd.int(28), rnd.int(24))).toISOString(),
      document: {
        asr: 'voxdex test',
        model: rnd.pick(['en-us', 'en-us-8k']),
        audiosecs: rnd.int(8) * 15,
        nchannels: nch,
        requestid: `req-${rnd.int(40)}`,
        source: `${rnd.pick(['call', 'Call', 'rec'])}-${rnd.int(50)}.wav`,
        streamtags: { metadata },
        chaninfo: [],
        utterances,
      },
    };
    if (rnd.next() < 0.7) doc.document.confidence = Math.round(rnd.next() * 100) / 100;
    return doc;
  });
}

function randomTerms(rnd: Rnd, depth = 0): string {
  const r = rnd.next();
  if (depth < 2 && r < 0.15) return `(${randomTerms(rnd, depth + 1)} | ${randomTerms(rnd, depth + 1)})`;
  if (depth < 2 && r < 0.3) return `${randomTerms(rnd, depth + 1)} ${rnd.pick(['', '& '])}${randomTerms(rnd, depth + 1)}`;
  if (depth > 0 && r < 0.4) return `-${randomTerms(rnd, 2)}`;
  if (r < 0.55) return `"${Array.from({ length: 2 + rnd.int(2) }, () => rnd.pick(QWORDS)).join(' ')}"`;
  if (r < 0.7) return `"${Array.from({ length: 2 + rnd.int(2) }, () => rnd.pick(QWORDS)).join(' ')}"~${rnd.int(6)}`;
  const word = rnd.pick(QWORDS);
  // A quoted word matches exactly; without quotes its word forms match too.
  return r < 0.78 ? `"${word}"` : word;
}

function randomSearch(rnd: Rnd): { scope: SearchScope; query: SearchQuery; text: string } {
  const scope: SearchScope = { company: rnd.pick(COMPANIES), org: rnd.pick(ORGS) };
  if (rnd.next() < 0.3) scope.folder = rnd.pick(FOLDERS);
  const text = rnd.next() < 0.1 ? '' : randomTerms(rnd);
  const q: Partial<SearchQuery> = {
    terms: parseTerms(text),
    sort: rnd.pick(['datetime', 'duration', 'filename', 'score', 'confidence'] as const),
    sortdir: rnd.pick(['asc', 'desc'] as const),
    offset: rnd.next() < 0.7 ? 0 : rnd.int(8),
    size: rnd.pick([0, 1, 5, 100]),
  };
  if (rnd.next() < 0.2) q.channel = rnd.int(3);
  if (rnd.next() < 0.15) q.fromMs = Date.UTC(2026, 1, 1);
  if (rnd.next() < 0.15) q.toMs = Date.UTC(2026, 1, 15);
  if (rnd.next() < 0.15) [q.durationMin, q.durationMax] = [15, 60];
  if (rnd.next() < 0.1) q.model = 'en-us';
  if (rnd.next() < 0.05) q.filename = 'call-7.wav';
  if (rnd.next() < 0.05) q.requestid = 'req-3';
  const meta: Record<string, string> = {};
  if (rnd.next() < 0.1) meta.agent = rnd.pick(['bob', 'Bob']);
  if (rnd.next() < 0.1) meta.priority = rnd.pick(['1', 'true', 'high']);
  if (rnd.next() < 0.05) meta['a.b'] = 'x';
  return { scope, query: defaultQuery({ ...q, meta }), text };
}
