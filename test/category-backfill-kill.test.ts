/**
 * The category backfill resumes after kill -9: a child process backfills 3 categories over 3,000
 * indexed calls in pages of 20 and is killed with SIGKILL in the middle; once its lease lapses
 * another node finishes, and every category then equals its search, with no call missed.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CategoryBackfill } from '../src/analytics/backfill.js';
import { silentLogger } from '../src/log.js';
import { parseTerms } from '../src/search/query.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { defaultQuery } from '../src/search/transcript-index.js';
import { SqliteCategoryStore } from '../src/store/sqlite/category-store.js';
import { generateCorpus } from '../bench/lib/corpus.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const test = suite('category-backfill-kill');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kill -9 in the middle of a backfill: another node resumes where it stopped, nothing missed', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vx-backfill-kill-'));
  try {
    const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
    await index.init();
    await index.index([...generateCorpus({ count: 3000, wordsPerDoc: 60 })]);
    const db = new Database(path.join(dir, 'tenancy.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    const store = new SqliteCategoryStore(db);
    const rules: Array<[string, string]> = [['refund', '"refund request"'], ['the', 'the'], ['cancel', 'cancel*']];
    for (const [name, terms] of rules) await store.put('bench', name, { terms });

    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures/backfill-child.ts'), dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Kill it once it has saved some progress, well before the end.
    let done = 0;
    for (let i = 0; i < 600 && done < 200; i++) {
      await sleep(50);
      done = (await store.get('bench', 'refund'))?.backfill.done ?? 0;
    }
    child.kill('SIGKILL');
    await exited;
    const mid = (await store.get('bench', 'refund'))!.backfill;
    assert.is(mid.state, 'running', `killed in the middle (${mid.done} done)`);
    assert.ok(mid.done >= 200 && mid.done < 3000, String(mid.done));

    // Its lease (1 s) blocks another node until it lapses; then the rest is done, from where it stopped.
    const other = new CategoryBackfill({ store, index, log: silentLogger, owner: 'node-2', pollMs: 0, batch: 500, leaseMs: 1000 });
    const early = await other.runCompany('bench');
    assert.equal(early.scanned, 0, 'the dead node still holds the lease');
    await sleep(1100);
    const run = await other.runCompany('bench');
    assert.ok(run.scanned <= 3000 - mid.done + 20, `resumed: scanned ${run.scanned} after ${mid.done}`);
    for (const [name, terms] of rules) {
      assert.equal((await store.get('bench', name))!.backfill, { state: 'done', done: 3000 }, name);
      const scope = { company: 'bench', org: 'calls' };
      assert.is(await index.count(scope, defaultQuery({ categories: [name] })), await index.count(scope, defaultQuery({ terms: parseTerms(terms) })), name);
    }
    await index.close();
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
