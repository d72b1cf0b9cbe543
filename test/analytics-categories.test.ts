/**
 * Categories: rules validated like search terms, scored with the search matcher (a category and the
 * same search always agree), and the backfill over an indexed corpus: limits (org, channel,
 * speaker), changes and removals, resuming after a crash in the middle, one node per company.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CategoryBackfill } from '../src/analytics/backfill.js';
import { compileCategory, parseCategoryRule, scoreDocument } from '../src/analytics/categories.js';
import { silentLogger } from '../src/log.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { parseTerms } from '../src/search/query.js';
import { defaultQuery, type TranscriptIndex } from '../src/search/transcript-index.js';
import type { CategoryStore } from '../src/store/category-store.js';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { CORPUS, makeTranscript } from './conformance/transcript-corpus.js';

const test = suite('analytics-categories');
let dir = '';
let index: SqliteTranscriptIndex;
let store: SqliteCategoryStore;
let db: Database.Database;

test.before.each(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'vx-cat-'));
  index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
  await index.init();
  await index.index(CORPUS);
  db = new Database(path.join(dir, 'tenancy.sqlite'));
  store = new SqliteCategoryStore(db);
});
test.after.each(async () => {
  await index.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const backfill = (o: { store?: CategoryStore; index?: TranscriptIndex; owner?: string; batch?: number } = {}) =>
  new CategoryBackfill({ store: o.store ?? store, index: o.index ?? index, log: silentLogger, owner: o.owner ?? 'node-1', pollMs: 0, batch: o.batch ?? 3 });

/** tids found by the search with the same terms (and channel), in the org, or in every acme org. */
async function searchTids(terms: string, orgs: string[], channel?: number): Promise<string[]> {
  const out: string[] = [];
  for (const org of orgs) {
    const r = await index.search({ company: 'acme', org }, defaultQuery({ terms: parseTerms(terms), size: 1000, ...(channel === undefined ? {} : { channel }) }));
    out.push(...r.rows.map((row) => row.tid));
  }
  return out.sort();
}
async function categoryTids(name: string, orgs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const org of orgs) out.push(...(await index.search({ company: 'acme', org }, defaultQuery({ categories: [name], size: 1000 }))).rows.map((r) => r.tid));
  return out.sort();
}

test('rules are validated like search terms: a syntax error names the position', () => {
  assert.equal(parseCategoryRule({ terms: 'cancel*', org: 'sales', channel: 1, speaker: 'S1' }), { terms: 'cancel*', org: 'sales', channel: 1, speaker: 'S1' });
  try {
    parseCategoryRule({ terms: 'refund "cancel my' });
    assert.unreachable();
  } catch (err) {
    assert.is((err as { code?: string }).code, 'BAD_QUERY');
    assert.is((err as Error).message, 'Invalid terms: the quote at position 7 is not closed. See docs/search.md for the syntax.');
  }
  const code = (body: unknown) => {
    try {
      parseCategoryRule(body);
      return 'none';
    } catch (err) {
      return (err as { code?: string }).code;
    }
  };
  assert.is(code({ terms: '  ' }), 'BAD_ARGUMENT');
  assert.is(code({ terms: 'x', channel: 256 }), 'BAD_ARGUMENT');
  assert.is(code({ terms: 'x', org: 'a b' }), 'BAD_NAME');
  assert.is(code({ terms: 'x', speaker: 'S 1' }), 'BAD_ARGUMENT');
  assert.is(code({ terms: 'x', colour: 'red' }), 'UNKNOWN_PARAMETER');
  assert.is(code([]), 'BAD_ARGUMENT');
});

test('scoring a document: org and channel limits, as the search with channel= in that org', () => {
  const t01 = CORPUS.find((t) => t.tid === 't01')!;
  const cats = [
    compileCategory('cancel', { terms: '"cancel my subscription"' }),
    compileCategory('cancel-agent', { terms: 'cancel', channel: 0 }),
    compileCategory('cancel-customer', { terms: 'cancel', channel: 1 }),
    compileCategory('support-only', { terms: 'cancel', org: 'support' }),
    compileCategory('no-refund', { terms: '-refund' }),
  ];
  assert.equal(scoreDocument(cats, t01.org, t01.document), ['cancel', 'cancel-customer']);
});

test('a speaker limit keeps that speaker\'s utterances', () => {
  const doc = makeTranscript({ tid: 'x', datetime: '2024-01-01T00:00:00Z', duration: 10, model: 'm', source: 's', requestid: 'r', metadata: {},
    channels: [['i want to cancel', 'no thanks']] }).document;
  doc.utterances[0]!.metadata = { ...doc.utterances[0]!.metadata, speaker: 'S2' } as never;
  doc.utterances[1]!.metadata = { ...doc.utterances[1]!.metadata, speaker: 'S1' } as never;
  const s1 = compileCategory('s1', { terms: 'cancel', speaker: 'S1' });
  const s2 = compileCategory('s2', { terms: 'cancel', speaker: 'S2' });
  assert.equal(scoreDocument([s1, s2], 'sales', doc), ['s2']);
});

test('a role limit: the agent did not say X (a call without roles is in no role-limited category)', () => {
  const make = (roles: boolean) => {
    const doc = makeTranscript({ tid: 'x', datetime: '2024-01-01T00:00:00Z', duration: 10, model: 'm', source: 's', requestid: 'r', metadata: {},
      channels: [['hello thank you for calling'], ['i want to cancel']] }).document;
    if (roles) doc.utterances.forEach((u) => (u.metadata = { ...u.metadata, role: u.metadata.channel === 0 ? 'agent' : 'customer' }));
    return doc;
  };
  const noDisclosure = compileCategory('no-disclosure', { terms: '-"this call may be recorded"', role: 'agent' });
  const noGreeting = compileCategory('no-greeting', { terms: '-"thank you for calling"', role: 'agent' });
  const customerCancels = compileCategory('customer-cancels', { terms: 'cancel', role: 'customer' });
  const agentCancels = compileCategory('agent-cancels', { terms: 'cancel', role: 'agent' });
  assert.equal(scoreDocument([noDisclosure, noGreeting, customerCancels, agentCancels], 'sales', make(true)), ['customer-cancels', 'no-disclosure']);
  assert.equal(scoreDocument([noDisclosure, noGreeting, customerCancels, agentCancels], 'sales', make(false)), []);
  assert.equal(parseCategoryRule({ terms: 'x', role: 'agent' }), { terms: 'x', role: 'agent' });
  assert.throws(() => parseCategoryRule({ terms: 'x', role: 'boss' }), /Expected agent or customer for role but received "boss"/);
});

test('backfill: every category equals its search, page by page; counts per category', async () => {
  const rules: Array<[string, string, number?]> = [
    ['cancel', '"cancel my subscription"'],
    ['refund', 'refund* | credit'],
    ['near', '"cancel subscription"~2'],
    ['agent-thanks', 'thank', 0],
    ['not-refund', '-refund'],
  ];
  for (const [name, terms, channel] of rules) await store.put('acme', name, { terms, ...(channel === undefined ? {} : { channel }) });
  await store.put('acme', 'sales-only', { terms: 'cancel', org: 'sales' });
  const run = await backfill().runCompany('acme');
  assert.is(run.scanned, 9, 'the 9 acme calls, once');
  assert.equal(await store.pending(), []);
  for (const [name, terms, channel] of rules) assert.equal(await categoryTids(name, ['sales', 'support']), await searchTids(terms, ['sales', 'support'], channel), name);
  assert.equal(await categoryTids('sales-only', ['sales', 'support']), await searchTids('cancel', ['sales']));
  const counts = await index.categoryCounts('acme');
  assert.equal(counts.cancel, (await searchTids('"cancel my subscription"', ['sales', 'support'])).length);
  assert.equal(await index.categoryCounts('other'), {});
  assert.equal((await store.get('acme', 'cancel'))!.backfill, { state: 'done', done: 9 });
  // summary rows and details carry them
  const row = (await index.search({ company: 'acme', org: 'sales' }, defaultQuery({ requestid: 'req-1' }))).rows[0]!;
  assert.equal(row.categories, ['agent-thanks', 'cancel', 'near', 'refund', 'sales-only']);
  const doc = (await index.details({ company: 'acme', org: 'sales' }, defaultQuery({ requestid: 'req-1' })))[0]!;
  assert.equal((doc as { categories?: string[] }).categories, row.categories);
});

test('backfill: a changed rule replaces the old membership; a removed category goes from every call and from the store', async () => {
  await store.put('acme', 'c', { terms: 'refund' });
  await backfill().runCompany('acme');
  assert.equal(await categoryTids('c', ['sales', 'support']), await searchTids('refund', ['sales', 'support']));
  await store.put('acme', 'c', { terms: 'hello' });
  await backfill().runCompany('acme');
  assert.equal(await categoryTids('c', ['sales', 'support']), ['t01']);
  await store.remove('acme', 'c');
  await backfill().runCompany('acme');
  assert.equal(await categoryTids('c', ['sales', 'support']), []);
  assert.equal(await index.categoryCounts('acme'), {});
  assert.equal(await store.pending(), []);
});

test('backfill resumes after a crash between batches, with nothing missed', async () => {
  await store.put('acme', 'cancel', { terms: 'cancel' });
  // The index write of the third batch fails (as a kill would stop it): progress stays at batch two.
  let calls = 0;
  const failing = new Proxy(index, {
    get(target, prop, receiver) {
      if (prop === 'setCategories') {
        return async (...args: Parameters<TranscriptIndex['setCategories']>) => {
          if (++calls === 3) throw new Error('killed');
          return target.setCategories(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  await backfill({ index: failing as TranscriptIndex }).runCompany('acme').catch(() => undefined);
  const mid = (await store.get('acme', 'cancel'))!.backfill;
  assert.equal({ state: mid.state, done: mid.done }, { state: 'running', done: 6 });
  // the lease was released on the error; a node that died holding it: another takes over when it expires
  await store.lease('categories:acme', 'dead-node', 30);
  await new Promise((r) => setTimeout(r, 50));
  const run = await backfill({ owner: 'node-2' }).runCompany('acme');
  assert.is(run.scanned, 3, 'only the rest');
  assert.equal(await categoryTids('cancel', ['sales', 'support']), await searchTids('cancel', ['sales', 'support']));
});

test('one node per company: a node without the lease does nothing', async () => {
  await store.put('acme', 'cancel', { terms: 'cancel' });
  assert.ok(await store.lease('categories:acme', 'node-1', 60_000));
  const run = await backfill({ owner: 'node-2' }).runCompany('acme');
  assert.equal(run, { scanned: 0, changed: 0 });
  assert.is((await store.get('acme', 'cancel'))!.backfill.state, 'pending');
});

test('kick runs pending backfills in the background', async () => {
  await store.put('acme', 'thanks', { terms: 'thank*' });
  const b = backfill();
  b.start();
  await b.idle();
  await b.stop();
  assert.equal(await categoryTids('thanks', ['sales', 'support']), await searchTids('thank*', ['sales', 'support']));
});

test.run();
