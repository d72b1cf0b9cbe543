import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import { runTranscriptIndexConformance } from './conformance/transcript-index.conformance.js';
import { CORPUS } from './conformance/transcript-corpus.js';
import { generateCorpus, prng } from '../bench/lib/corpus.js';
import { channelWords, evaluate } from '../src/search/match.js';
import { formatQuery, parseTerms, type QueryNode } from '../src/search/query.js';

const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-sqlite-index-'));
let n = 0;
runTranscriptIndexConformance('sqlite', async () => new SqliteTranscriptIndex({ file: path.join(dir, `conf-${n++}`, 'search.sqlite') }));

const test = suite('sqlite-index');
const F1 = { company: 'acme', org: 'sales', folder: 'f1' };

test('keeps its data in a WAL file that a new instance reads back', async () => {
  const file = path.join(dir, 'reopen', 'search.sqlite');
  const a = new SqliteTranscriptIndex({ file });
  await a.init();
  await a.index(CORPUS);
  await a.close();
  const b = new SqliteTranscriptIndex({ file });
  await b.init();
  assert.is(await b.count(F1, parseSearchOptions({ terms: '"cancel my subscription"' }).query), 2);
  await b.close();
});

test('refuses a file made with another schema version', async () => {
  const file = path.join(dir, 'version', 'search.sqlite');
  const a = new SqliteTranscriptIndex({ file });
  await a.init();
  await a.close();
  const db = new Database(file);
  db.pragma('user_version = 99');
  db.close();
  try {
    await new SqliteTranscriptIndex({ file }).init();
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'INDEX_UNAVAILABLE');
    assert.is((err as Error).message, `${file} holds search index schema 99, this voxdex reads 2; rebuild the index.`);
  }
});

test('opens a schema 1 file (no stem columns) by rebuilding its full-text table: word forms then match', async () => {
  const file = path.join(dir, 'schema1', 'search.sqlite');
  const a = new SqliteTranscriptIndex({ file });
  await a.init();
  await a.index(CORPUS);
  await a.close();
  // What schema 1 had: the words of each channel only, in a table of 16 columns.
  const db = new Database(file);
  const columns = Array.from({ length: 16 }, (_, i) => `c${i}`);
  db.exec(`DROP TABLE fts_vocab; DROP TABLE fts;
    CREATE VIRTUAL TABLE fts USING fts5(${columns.join(', ')}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
    CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');`);
  const insert = db.prepare(`INSERT INTO fts (rowid, ${columns.join(', ')}) VALUES (?${', ?'.repeat(16)})`);
  for (const r of db.prepare('SELECT id, channels FROM words').all() as Array<{ id: number; channels: string }>) {
    const row: Array<string | null> = columns.map(() => null);
    for (const [channel, joined] of JSON.parse(r.channels) as Array<[number, string]>) row[channel] = joined;
    insert.run(r.id, ...row);
  }
  db.pragma('user_version = 1');
  db.close();
  const b = new SqliteTranscriptIndex({ file });
  await b.init();
  const count = (terms: string) => b.count(F1, parseSearchOptions({ terms }).query);
  assert.is(await count('subscriptions'), 3);
  assert.is(await count('"canceled"'), 1);
  assert.is(await count('col?r'), 1);
  await b.close();
  const check = new Database(file);
  assert.is(check.pragma('user_version', { simple: true }), 2);
  check.close();
});

test('rejects a wildcard that expands to too many words', async () => {
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'broad', 'search.sqlite') });
  await index.init();
  const words = Array.from({ length: 300 }, (_, i) => `w${i}x`).join(' ');
  const t = CORPUS[0]!;
  await index.index([{ ...t, document: { ...t.document, utterances: [{ ...t.document.utterances[0]!, events: words.split(' ').map((word, i) => ({ word, start: i, end: i + 0.5, confidence: 1 })) }] } }]);
  try {
    await index.count(F1, parseSearchOptions({ terms: 'w?*x' }).query);
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'BAD_QUERY');
    assert.match((err as Error).message, '"w?*x" matches more than 256 different words');
  }
  assert.is(await index.count(F1, parseSearchOptions({ terms: 'w1?x' }).query), 1);
  await index.close();
});

test('refuses to work before init()', async () => {
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'noinit', 'search.sqlite') });
  try {
    await index.count(F1, parseSearchOptions({}).query);
    assert.unreachable();
  } catch (err) {
    assert.is((err as { code?: string }).code, 'INDEX_UNAVAILABLE');
  }
});

test('random queries: FTS5 counts equal the reference matcher on a generated corpus', async () => {
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'random', 'search.sqlite') });
  await index.init();
  const docs = [...generateCorpus({ count: 300, wordsPerDoc: 60, seed: 3, folders: 1 })];
  await index.index(docs);
  const words = docs.map((d) => channelWords(d.document));
  const rand = prng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const someWord = () => {
    const cw = pick(pick(words));
    return cw.norm[Math.floor(rand() * cw.norm.length)]!;
  };
  const wild = (w: string) => {
    const r = rand();
    if (r < 0.6 || w.length < 3) return w;
    if (r < 0.75) return `${w.slice(0, 2)}*`;
    if (r < 0.9) return `${w.slice(0, 1)}?${w.slice(2)}`;
    return `${w[0]}*${w[w.length - 1]}`;
  };
  const leaf = (): QueryNode => {
    const r = rand();
    if (r < 0.35) return { type: 'word', word: wild(someWord()) };
    if (r < 0.5) return { type: 'word', word: someWord(), exact: true };
    const cw = pick(pick(words));
    const at = Math.floor(rand() * (cw.norm.length - 3));
    const seq = cw.norm.slice(at, at + 2 + Math.floor(rand() * 2)).map(wild);
    if (r < 0.8) return { type: 'phrase', words: rand() < 0.3 ? [...seq].reverse() : seq };
    return { type: 'near', words: [seq[0]!, someWord()], distance: Math.floor(rand() * 6) };
  };
  const node = (depth: number): QueryNode => {
    const r = rand();
    if (depth === 0 || r < 0.35) return leaf();
    if (r < 0.5) return { type: 'not', child: node(depth - 1) };
    const children = [node(depth - 1), node(depth - 1)];
    return r < 0.75 ? { type: 'and', children } : { type: 'or', children };
  };
  let nonEmpty = 0;
  let tooBroad = 0;
  for (let i = 0; i < 300; i++) {
    const terms = formatQuery(node(3));
    const channel = rand() < 0.3 ? Math.floor(rand() * 2) : undefined;
    const raw: Record<string, string> = { terms };
    if (channel !== undefined) raw.channel = String(channel);
    const q = parseSearchOptions(raw).query;
    const expected = words.filter((w) => evaluate(parseTerms(terms)!, w, channel)).length;
    if (expected > 0 && expected < docs.length) nonEmpty++;
    let got: number;
    try {
      got = await index.count({ company: 'bench', org: 'calls' }, q);
    } catch (err) {
      // Wildcard phrases can multiply past the expansion limit; that is a documented BAD_QUERY.
      assert.match((err as Error).message, 'different words; add letters to narrow the wildcard');
      tooBroad++;
      continue;
    }
    assert.is(got, expected, `${terms} channel=${channel}`);
  }
  assert.ok(nonEmpty > 100, `only ${nonEmpty} queries matched part of the corpus`);
  assert.ok(tooBroad < 30, `${tooBroad} queries were too broad`);
  await index.close();
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
