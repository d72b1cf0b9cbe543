/**
 * Search and categories in linear time, within a CPU budget (issue 24.8; src/search/glob.ts,
 * src/search/budget.ts): the wildcard query that froze the server on one long numeral is answered at
 * once; a search over its budget is refused with QUERY_TOO_EXPENSIVE (400, over HTTP too) instead of
 * running on, and while it works the event loop keeps answering; a category rule over its budget on a
 * call counts as not matching while the others still do.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileCategory, scoreCallPaced } from '../src/analytics/categories.js';
import { tenancyAccess } from '../src/http/auth.js';
import { mountSearchRoutes } from '../src/http/search-routes.js';
import { createHttpApp } from '../src/http/server.js';
import { silentLogger } from '../src/log.js';
import { CpuBudget, searchBudget } from '../src/search/budget.js';
import { channelWords, evaluate, findHits } from '../src/search/match.js';
import { parseTerms } from '../src/search/query.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import type { IndexedTranscript } from '../src/search/transcript-index.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import type { TranscriptDocument } from '../src/types.js';
import { rejects } from './fixtures/assert-error.js';
import { cpuMark, cpuMsSince } from './fixtures/cpu-budget.js';

const b = suite('search budget');
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-search-budget-'));
const ROOT = 'root-token-for-tests-0123456789abcdef';
let index: SqliteTranscriptIndex;
let tenancy: SqliteTenancy;
let acme = '';

/** A call of `n` words on one channel. */
function doc(words: string[], requestid: string): TranscriptDocument {
  const events = words.map((word, i) => ({ word, start: i * 0.3, end: i * 0.3 + 0.25, confidence: 0.9 }));
  return {
    asr: 'test',
    model: 'test',
    audiosecs: words.length * 0.3,
    nchannels: 1,
    requestid,
    source: `${requestid}.wav`,
    utterances: [{ start: 0, end: words.length * 0.3, confidence: 0.9, metadata: { channel: 0, uttid: 0 }, events }],
  } as unknown as TranscriptDocument;
}

const LONG_NUMERAL = '4'.repeat(400);
/** `?*` twelve times then q: each pair was `..*` in a backtracking RegExp (the probe). */
const HOSTILE = `${'?*'.repeat(12)}q`;
const VOCAB = ['account', 'balance', 'card', 'number', 'please', 'thank', 'you', 'cancel', 'refund', 'order', 'help', 'today'];

b.before(async () => {
  tenancy = new SqliteTenancy(path.join(dir, 'tenancy.sqlite'), ROOT);
  acme = tenancy.addCompany('acme', { org: 'sales', folder: 'f1' }).token;
  index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
  await index.init();
  const docs: IndexedTranscript[] = [];
  for (let t = 0; t < 400; t++) {
    const words = Array.from({ length: 400 }, (_, i) => VOCAB[(i * 7 + t) % VOCAB.length]!);
    if (t % 50 === 0) words.push(LONG_NUMERAL);
    docs.push({ tid: `t${t}`, company: 'acme', org: 'sales', folder: 'f1', datetime: '2026-01-01T00:00:00Z', document: doc(words, `r${t}`) });
  }
  await index.index(docs);
});
b.after(async () => {
  await index.close();
  tenancy.close();
  rmSync(dir, { recursive: true, force: true });
});

b('the query that froze the server on one long numeral is answered at once (it backtracked for 19 s)', () => {
  const words = channelWords(doc(['hello', LONG_NUMERAL, 'world'], 'r'));
  const t0 = cpuMark();
  assert.ok(evaluate(parseTerms(`hello | ${HOSTILE}`)!, words));
  assert.not.ok(evaluate(parseTerms(HOSTILE)!, words));
  assert.is(findHits(parseTerms(`${'?*'.repeat(12)}4`)!, words).score, 1);
  assert.ok(cpuMsSince(t0) < 1000, `${cpuMsSince(t0)} ms of CPU (test/fixtures/cpu-budget.ts)`);
});

/** A search that must score every one of the 400 calls of 400 words against 60 wildcard words. */
function heavyQuery(budgetMs?: number) {
  const terms = Array.from({ length: 60 }, (_, i) => `${VOCAB[i % VOCAB.length]!.slice(0, 2)}*${'?'.repeat(i % 3)}`).join(' | ');
  const { query } = parseSearchOptions({ terms, sort: 'score', size: '10' });
  return budgetMs === undefined ? query : { ...query, budget: searchBudget(budgetMs) };
}

b('a search over its CPU budget is refused with QUERY_TOO_EXPENSIVE, and the event loop runs while it works', async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 2);
  try {
    await rejects(
      () => index.search({ company: 'acme', org: 'sales' }, heavyQuery(150)),
      'QUERY_TOO_EXPENSIVE',
      /^The search used its CPU budget of 150 ms \(VOXDEX_SEARCH_BUDGET_MS\) before it finished; narrow it: /,
    );
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks >= 3, `the event loop ran ${ticks} times during the search`);
  // With room enough it is answered, the same as without a budget.
  const unbounded = await index.search({ company: 'acme', org: 'sales' }, heavyQuery());
  const bounded = await index.search({ company: 'acme', org: 'sales' }, heavyQuery(600_000));
  assert.equal(bounded, unbounded);
  assert.is(unbounded.total, 400);
});

b('sorted by score, an OR is fetched one alternative per statement with the loop free between them (one statement held it 186 ms)', async () => {
  /** A budget that writes down its statements (`counted` pauses around each: s) and its paces (p). */
  class Spy extends CpuBudget {
    log = '';
    #pauses = 0;
    override pause(): void {
      if (++this.#pauses % 2 === 0) this.log += 's';
      super.pause();
    }
    override async pace(): Promise<void> {
      this.log += 'p';
      return super.pace();
    }
  }
  const terms = ['ac*', 'ba*', 'ca*', 'nu*', 'pl*', 're*'].join(' | ');
  const budget = new Spy({ limitMs: 600_000, what: 'The search', setting: 'VOXDEX_SEARCH_BUDGET_MS', advice: '' });
  const { query } = parseSearchOptions({ terms, sort: 'score', size: '5' });
  const scored = await index.search({ company: 'acme', org: 'sales' }, { ...query, budget });
  assert.is((budget.log.match(/s/g) ?? []).length, 6, budget.log);
  assert.not.match(budget.log, /ss/, `two statements without a pace between them: ${budget.log}`);
  // The same rows as one statement gives (sorted by date, then compared as sets).
  const byDate = await index.search({ company: 'acme', org: 'sales' }, parseSearchOptions({ terms, sort: 'datetime', size: '1000' }).query);
  assert.is(scored.total, byDate.total);
  assert.is(scored.total, 400);
  const some = await index.search({ company: 'acme', org: 'sales' }, parseSearchOptions({ terms: '444* | zebra | -help', sort: 'score', size: '1000' }).query);
  const someByDate = await index.search({ company: 'acme', org: 'sales' }, parseSearchOptions({ terms: '444* | zebra | -help', sort: 'datetime', size: '1000' }).query);
  assert.equal(some.rows.map((r) => r.tid).sort(), someByDate.rows.map((r) => r.tid).sort());
  assert.is(some.total, someByDate.total);
  assert.is(some.total, 8, 'the calls with the long numeral');
});

b('over HTTP: 400 QUERY_TOO_EXPENSIVE, in JSON when asked', async () => {
  const app = createHttpApp(silentLogger, (routes) => mountSearchRoutes(routes, { index, access: tenancyAccess(tenancy), log: silentLogger, budgetMs: 100 }));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const server = app.server!;
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const terms = Array.from({ length: 60 }, (_, i) => `${VOCAB[i % VOCAB.length]!.slice(0, 2)}*${'?'.repeat(i % 3)}`).join(' | ');
    const r = await fetch(`${base}/search/acme/sales?${new URLSearchParams({ token: acme, terms, sort: 'score' })}`, { headers: { accept: 'application/json' } });
    assert.is(r.status, 400);
    const body = (await r.json()) as { error: { code: string; message: string } };
    assert.is(body.error.code, 'QUERY_TOO_EXPENSIVE');
    assert.match(body.error.message, /CPU budget of 100 ms/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

b('a category rule over its budget on a call counts as not matching; the other rules still match', async () => {
  const words = Array.from({ length: 50_000 }, (_, i) => `${VOCAB[i % VOCAB.length]!}${i}`);
  const call = { org: 'sales', words: channelWords(doc([...words, 'refund'], 'r')) };
  // 60 words no word of the call has: every one is tried on all 50,000 words.
  const heavy = compileCategory('heavy', { terms: Array.from({ length: 60 }, (_, i) => `*?q?${i}*`).join(' | ') });
  const light = compileCategory('refunds', { terms: 'refund' });
  const over: string[] = [];
  const names = await scoreCallPaced([heavy, light], call, { budgetMs: 20, onOverBudget: (c, err) => over.push(`${c.name}: ${err.code}`) });
  assert.equal(names, ['refunds']);
  assert.equal(over, ['heavy: QUERY_TOO_EXPENSIVE']);
});

b.run();
