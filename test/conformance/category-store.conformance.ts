/**
 * The conformance suite of the category store (src/store/category-store.ts), run against every
 * adapter: SQLite (test/category-store.test.ts) and PostgreSQL (test/pg-category-store.test.ts).
 * `open()` opens another node on the same database (where the test needs two).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CategoryStore } from '../../src/store/category-store.js';

export interface CategoryStoreConformanceOptions {
  /** A fresh empty database. */
  fresh: () => Promise<void>;
  open: () => Promise<CategoryStore>;
  dispose: () => Promise<void>;
}

export function categoryStoreConformance(name: string, o: CategoryStoreConformanceOptions): void {
  const s = suite(`category store: ${name}`);
  s.before.each(() => o.fresh());
  s.after.each(() => o.dispose());

  s('put creates (version 1, backfill pending from the start), get and list return it', async () => {
    const st = await o.open();
    const c = await st.put('acme', 'cancel', { terms: '"cancel my subscription" | cancel*', org: 'sales', channel: 1, speaker: 'S1' });
    assert.is(c.version, 1);
    assert.equal(c.backfill, { state: 'pending', done: 0 });
    assert.is(c.deleted, false);
    assert.equal(
      { company: c.company, name: c.name, terms: c.terms, org: c.org, channel: c.channel, speaker: c.speaker },
      { company: 'acme', name: 'cancel', terms: '"cancel my subscription" | cancel*', org: 'sales', channel: 1, speaker: 'S1' },
    );
    assert.ok(!Number.isNaN(Date.parse(c.updated)));
    assert.equal(await st.get('acme', 'cancel'), c);
    assert.equal(await st.list('acme'), [c]);
    assert.equal(await st.list('other'), []);
    assert.is(await st.get('acme', 'nope'), undefined);
  });

  s('optional limits are absent when not given; list is ordered by name', async () => {
    const st = await o.open();
    await st.put('acme', 'b', { terms: 'x' });
    await st.put('acme', 'B', { terms: 'y' });
    await st.put('acme', 'a', { terms: 'z' });
    const list = await st.list('acme');
    assert.equal(list.map((c) => c.name), ['B', 'a', 'b']);
    assert.is('org' in list[1]!, false);
    assert.is('channel' in list[1]!, false);
    assert.is('speaker' in list[1]!, false);
  });

  s('replacing bumps the version and restarts the backfill; progress for an old version is refused', async () => {
    const st = await o.open();
    const v1 = await st.put('acme', 'angry', { terms: 'angry' });
    assert.ok(await st.saveProgress('acme', 'angry', v1.version, { state: 'running', done: 500, cursor: '500' }));
    assert.equal((await st.get('acme', 'angry'))!.backfill, { state: 'running', done: 500, cursor: '500' });
    const v2 = await st.put('acme', 'angry', { terms: 'angry | furious', channel: 0 });
    assert.is(v2.version, 2);
    assert.equal(v2.backfill, { state: 'pending', done: 0 });
    assert.is(await st.saveProgress('acme', 'angry', v1.version, { state: 'done', done: 900 }), false);
    assert.equal((await st.get('acme', 'angry'))!.backfill, { state: 'pending', done: 0 });
    assert.ok(await st.saveProgress('acme', 'angry', v2.version, { state: 'done', done: 900 }));
    assert.equal((await st.get('acme', 'angry'))!.backfill, { state: 'done', done: 900 });
  });

  s('saveProgressMany saves those whose version matches, in one go', async () => {
    const st = await o.open();
    const a = await st.put('acme', 'a', { terms: 'a' });
    const b = await st.put('acme', 'b', { terms: 'b' });
    await st.put('acme', 'b', { terms: 'b2' });
    const saved = await st.saveProgressMany('acme', [
      { name: 'a', version: a.version, progress: { state: 'running', done: 10, cursor: 'x' } },
      { name: 'b', version: b.version, progress: { state: 'running', done: 10, cursor: 'x' } },
      { name: 'nope', version: 1, progress: { state: 'done', done: 1 } },
    ]);
    assert.equal(saved, ['a']);
    assert.equal((await st.get('acme', 'a'))!.backfill, { state: 'running', done: 10, cursor: 'x' });
    assert.equal((await st.get('acme', 'b'))!.backfill, { state: 'pending', done: 0 });
  });

  s('pending lists every unfinished backfill, removed categories included; a removed one goes once done', async () => {
    const st = await o.open();
    const a = await st.put('acme', 'a', { terms: 'a' });
    await st.put('acme', 'b', { terms: 'b' });
    await st.put('zeta', 'c', { terms: 'c' });
    await st.saveProgress('acme', 'a', a.version, { state: 'done', done: 3 });
    assert.equal((await st.pending()).map((c) => `${c.company}/${c.name}`), ['acme/b', 'zeta/c']);
    assert.is(await st.remove('acme', 'a'), true);
    assert.is(await st.remove('acme', 'a'), false);
    assert.is(await st.remove('acme', 'nope'), false);
    assert.is(await st.get('acme', 'a'), undefined);
    assert.equal((await st.list('acme')).map((c) => c.name), ['b']);
    const removed = (await st.pending()).find((c) => c.name === 'a')!;
    assert.is(removed.deleted, true);
    assert.is(removed.version, 2);
    assert.ok(await st.saveProgress('acme', 'a', removed.version, { state: 'done', done: 3 }));
    assert.equal((await st.pending()).map((c) => c.name), ['b', 'c']);
    // put again after removal: a new rule, visible at once
    const again = await st.put('acme', 'a', { terms: 'again' });
    assert.is(again.deleted, false);
    assert.is(again.terms, 'again');
  });

  s('a lease is held by one owner until it expires or is released', async () => {
    const one = await o.open();
    const two = await o.open();
    assert.is(await one.lease('categories:acme', 'node-1', 60_000), true);
    assert.is(await two.lease('categories:acme', 'node-2', 60_000), false);
    assert.is(await one.lease('categories:acme', 'node-1', 60_000), true, 'renewed by its owner');
    assert.is(await two.lease('categories:zeta', 'node-2', 60_000), true, 'another key');
    await one.releaseLease('categories:acme', 'node-2'); // not the owner: no effect
    assert.is(await two.lease('categories:acme', 'node-2', 60_000), false);
    await one.releaseLease('categories:acme', 'node-1');
    assert.is(await two.lease('categories:acme', 'node-2', 50), true);
    await new Promise((r) => setTimeout(r, 80));
    assert.is(await one.lease('categories:acme', 'node-1', 60_000), true, 'expired lease taken over');
  });

  s.run();
}
