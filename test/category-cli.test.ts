/** `voxdex category add|list|remove` on the embedded data dir (main() in this process). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../src/cli/voxdex.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import { tenancyDbPath } from '../src/tenancy/tenancy.js';
import { CORPUS } from './conformance/transcript-corpus.js';

const test = suite('category-cli');
let dir = '';

test.before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-category-cli-'));
  const t = new SqliteTenancy(tenancyDbPath(path.join(dir, 'data')), { keyFile: path.join(dir, 'secrets.key') });
  t.addCompany('acme', { org: 'sales', folder: 'f1' });
  t.close();
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'data', 'search.sqlite') });
  await index.init();
  await index.index(CORPUS);
  await index.setCategories('acme', [{ tid: 't01', categories: ['cancel'] }]);
  await index.close();
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

async function voxdex(...args: string[]): Promise<{ code: number; stdout: string; error?: string }> {
  let stdout = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  try {
    return { code: await main(args, { VOXDEX_DATA_DIR: path.join(dir, 'data'), VOXDEX_SECRETS_KEY_FILE: path.join(dir, 'secrets.key') }), stdout };
  } catch (err) {
    return { code: -1, stdout, error: `${(err as { code?: string }).code}: ${(err as Error).message}` };
  } finally {
    process.stdout.write = write;
  }
}

test('add, list (with counts and progress), replace, remove', async () => {
  let r = await voxdex('category', 'add', 'acme', 'cancel', '"cancel my subscription"', '--channel', '1');
  assert.is(r.code, 0, r.error);
  assert.is(r.stdout, 'created category acme/cancel (version 1); the calls already indexed are scored in the background\n');
  r = await voxdex('category', 'add', 'acme', 'refund', 'refund*', '--org', 'sales');
  assert.is(r.code, 0, r.error);
  r = await voxdex('category', 'list', 'acme');
  assert.is(r.stdout, 'cancel\t1\tpending:0\tchannel=1\t"cancel my subscription"\nrefund\t0\tpending:0\torg=sales\trefund*\n');
  r = await voxdex('category', 'add', 'acme', 'cancel', 'cancel');
  assert.match(r.stdout, /^replaced category acme\/cancel \(version 2\)/);
  r = await voxdex('category', 'remove', 'acme', 'refund');
  assert.is(r.stdout, 'removed category acme/refund; its name is taken off the calls in the background\n');
  r = await voxdex('category', 'list', 'acme');
  assert.is(r.stdout.split('\n')[0]!.split('\t')[0], 'cancel');
  assert.is(r.stdout.split('\n').length, 2);
});

test('a rule that starts with a NOT (-) is taken as TERMS without --; --help says so', async () => {
  let r = await voxdex('category', 'add', 'acme', 'no-thanks', '-"thank you"', '--role', 'agent');
  assert.is(r.code, 0, r.error);
  assert.match(r.stdout, /^created category acme\/no-thanks /);
  r = await voxdex('category', 'list', 'acme');
  assert.ok(r.stdout.split('\n').some((l) => l.startsWith('no-thanks\t') && l.endsWith('\trole=agent\t-"thank you"')), r.stdout);
  r = await voxdex('category', 'add', 'acme', 'x', 'x', '--colour', 'red');
  assert.match(r.error ?? '', /^BAD_ARGUMENT: Unknown option --colour/);
  r = await voxdex('category', 'add', '--help');
  assert.match(r.stdout, /TERMS may start with a NOT as it is/);
  r = await voxdex('category', 'remove', 'acme', 'no-thanks');
  assert.is(r.code, 0, r.error);
});

test('errors: a bad rule names the position, unknown company or org, unknown category', async () => {
  let r = await voxdex('category', 'add', 'acme', 'bad', 'refund "cancel');
  assert.is(r.error, 'BAD_QUERY: Invalid terms: the quote at position 7 is not closed. See docs/search.md for the syntax.');
  r = await voxdex('category', 'add', 'nope', 'x', 'x');
  assert.is(r.error, 'NOT_FOUND: No company nope; voxdex company list shows them.');
  r = await voxdex('category', 'add', 'acme', 'x', 'x', '--org', 'nosuch');
  assert.is(r.error, 'NOT_FOUND: Company acme has no organization nosuch.');
  r = await voxdex('category', 'remove', 'acme', 'nosuch');
  assert.is(r.error, 'NOT_FOUND: Company acme has no category nosuch.');
  r = await voxdex('category', 'add', 'acme', 'x');
  assert.match(r.error ?? '', /^BAD_ARGUMENT: /);
});

test.run();
