/**
 * Tenancy on PostgreSQL (src/tenancy/pg-tenancy.ts) against a real server: two "nodes" share the
 * tables; a change made on one is seen by the other through NOTIFY; a revoked token stops working
 * everywhere; a failing change writes nothing; the shared secrets are created once; callback secrets
 * are stored sealed with the installation's key, and a node with another key is refused.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { migrate } from '../src/store/pg/pg-migrations.js';
import { PgNotifier } from '../src/store/pg/pg-notifier.js';
import { openPgPool } from '../src/store/pg/pg-pool.js';
import { PgTenancy, sharedRootToken, sharedUrlSecret } from '../src/tenancy/pg-tenancy.js';
import { freshSchema, type TestSchema } from './fixtures/pg.js';

const t = suite('pg-tenancy');
let schema: TestSchema;
/** Holds the installation's secrets key file (`key`), shared by the test's nodes. */
let keys: string;
const cleanup: (() => Promise<void> | void)[] = [];

async function node(name: string, keyFile = path.join(keys, 'secrets.key')): Promise<{ pool: pg.Pool; tenancy: PgTenancy }> {
  const pool = openPgPool(schema.url, { applicationName: `voxdex-test-${name}` });
  const notifier = new PgNotifier(schema.url, `voxdex-test-${name}`);
  await notifier.start();
  const tenancy = await PgTenancy.open({ pool, notifier, refreshMs: 60_000, keyFile }).catch(async (err: unknown) => {
    await notifier.close();
    await pool.end();
    throw err;
  });
  cleanup.push(async () => {
    tenancy.close();
    await notifier.close();
    await pool.end();
  });
  return { pool, tenancy };
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.unreachable(`not within 2 s: ${what}`);
}

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'none';
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

t.before.each(async () => {
  keys = mkdtempSync(path.join(os.tmpdir(), 'vx-pgkeys-'));
  schema = await freshSchema();
  const pool = openPgPool(schema.url);
  await migrate(pool);
  await pool.end();
});
t.after.each(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  await schema.drop();
  rmSync(keys, { recursive: true, force: true });
});

t('a company added on one node authenticates on another; a rotated token stops working on both', async () => {
  const a = await node('a');
  const b = await node('b');
  const { token } = await a.tenancy.change((x) => x.addCompany('acme', { org: 'sales', folder: 'calls', models: ['en-us-8k'] }));
  assert.equal(a.tenancy.authenticate(token), { kind: 'company', company: 'acme' });
  await eventually(() => b.tenancy.hasCompany('acme'), 'node b sees acme');
  assert.equal(b.tenancy.authenticate(token), { kind: 'company', company: 'acme' });
  assert.equal(b.tenancy.getCompany('acme').models, ['en-us-8k']);
  assert.is(b.tenancy.callbackSecret('acme'), a.tenancy.callbackSecret('acme'));
  const fresh = await b.tenancy.change((x) => x.rotateToken('acme'));
  assert.is(code(() => b.tenancy.authenticate(token)), 'BAD_TOKEN');
  await eventually(() => code(() => a.tenancy.authenticate(token)) === 'BAD_TOKEN', 'node a refuses the revoked token');
  assert.equal(a.tenancy.authenticate(fresh), { kind: 'company', company: 'acme' });
});

t('changes from two nodes at once are both kept (one writer at a time)', async () => {
  const a = await node('a');
  const b = await node('b');
  await Promise.all([
    a.tenancy.change((x) => x.addCompany('acme', { org: 'sales', folder: 'calls' })),
    b.tenancy.change((x) => x.addCompany('globex', { org: 'support', folder: 'inbound' })),
    a.tenancy.change((x) => x.addCompany('initech', { org: 'it', folder: 'tickets' })),
  ]);
  await a.tenancy.reload();
  assert.equal(a.tenancy.listCompanies().map((c) => c.company), ['acme', 'globex', 'initech']);
  await b.tenancy.change((x) => x.addFolder('globex', 'support', 'outbound'));
  await a.tenancy.reload();
  assert.equal(a.tenancy.listFolders('globex', 'support'), ['inbound', 'outbound']);
});

t('a change that fails writes nothing', async () => {
  const a = await node('a');
  await a.tenancy.change((x) => x.addCompany('acme', { org: 'sales', folder: 'calls' }));
  try {
    await a.tenancy.change((x) => {
      x.addOrg('acme', 'marketing');
      x.addOrg('nosuch', 'x');
    });
    assert.unreachable('the change should fail');
  } catch (err) {
    assert.is((err as { code?: string }).code, 'NOT_FOUND');
    assert.is((err as Error).message, 'Company nosuch does not exist: create it with voxdex company add');
  }
  await a.tenancy.reload();
  assert.equal(a.tenancy.listOrgs('acme'), ['sales']);
});

t('the url secret and the root token are created once and shared', async () => {
  const { pool } = await node('a');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vx-pgten-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const s1 = await sharedUrlSecret(pool);
  assert.match(s1, /^[0-9a-f]{64}$/);
  assert.is(await sharedUrlSecret(pool), s1);
  const first = await sharedRootToken(pool, path.join(dir, 'a', 'root.token'));
  assert.equal([first.local, first.created], [true, true]);
  const rootToken = readFileSync(path.join(dir, 'a', 'root.token'), 'utf8').trim();
  const second = await sharedRootToken(pool, path.join(dir, 'b', 'root.token'));
  assert.equal([second.local, second.created, second.sha256], [false, false, first.sha256]);
  assert.not.ok(existsSync(path.join(dir, 'b', 'root.token')), 'a file made for nothing is removed');
  const b = await node('b');
  b.tenancy.setRootTokenHash(second.sha256);
  assert.equal(b.tenancy.authenticate(rootToken), { kind: 'root' });
});

t('callback secrets are stored sealed; every node with the installation key opens them', async () => {
  const a = await node('a');
  const b = await node('b');
  const { callbackSecret } = await a.tenancy.change((x) => x.addCompany('acme', { org: 'sales', folder: 'calls' }));
  const stored = (await a.pool.query("SELECT callback_secret FROM companies WHERE name = 'acme'")).rows[0].callback_secret as string;
  assert.match(stored, /^enc1:/);
  assert.not.ok(stored.includes(callbackSecret));
  await eventually(() => b.tenancy.hasCompany('acme'), 'node b sees acme');
  assert.is(b.tenancy.callbackSecret('acme'), callbackSecret);
});

t('a node whose key file holds another key is refused, and a key file made for nothing is removed', async () => {
  await node('a');
  const other = path.join(keys, 'other', 'secrets.key');
  mkdirSync(path.dirname(other));
  writeFileSync(other, `${'cd'.repeat(32)}\n`, { mode: 0o600 });
  const refused = (file: string) =>
    node('b', file).then(
      () => 'opened',
      (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
    );
  assert.is(
    await refused(other),
    `SECRET_KEY_INVALID: The secrets key in ${other} is not this installation's: every node needs the same key file. Copy secrets.key from a node that already runs (or point VOXDEX_SECRETS_KEY_FILE at it) and start again.`,
  );
  assert.ok(existsSync(other), 'a key file the operator put there is never removed');
  const missing = path.join(keys, 'new', 'secrets.key');
  assert.match(await refused(missing), /^SECRET_KEY_INVALID: /);
  assert.not.ok(existsSync(missing), 'the key file this node created is removed again');
});

t('secrets an earlier version stored in plain text are sealed when a node opens the tables', async () => {
  const plain = 'ab'.repeat(32);
  const pool = openPgPool(schema.url);
  await pool.query("INSERT INTO companies (name, default_org, default_folder, callback_secret, models, created) VALUES ('old', 'o', 'f', $1, '[]', '2025-01-01T00:00:00Z')", [plain]);
  await pool.end();
  const a = await node('a');
  const stored = (await a.pool.query("SELECT callback_secret FROM companies WHERE name = 'old'")).rows[0].callback_secret as string;
  assert.match(stored, /^enc1:/);
  assert.is(a.tenancy.callbackSecret('old'), plain);
});

t('company settings and vocabulary set on one node are read on another, and a bad change writes nothing', async () => {
  const a = await node('a');
  const b = await node('b');
  await a.tenancy.change((x) => x.addCompany('acme', { org: 'sales', folder: 'calls' }));
  assert.equal(await a.tenancy.change((x) => x.setCompanySettings('acme', { scrub: ['text'], redact: ['card', 'cvv'], sentiment: true })), {
    scrub: ['text'],
    redact: ['card', 'cvv'],
    sentiment: true,
  });
  assert.equal(await a.tenancy.change((x) => x.addVocab('acme', ['Acme Gold', 'chargeback'])), ['Acme Gold', 'chargeback']);
  await eventually(() => b.tenancy.companySettings('acme').vocab?.length === 2, 'node b sees the vocabulary');
  assert.equal(b.tenancy.companySettings('acme'), { scrub: ['text'], redact: ['card', 'cvv'], sentiment: true, vocab: ['Acme Gold', 'chargeback'] });
  const refused = await a.tenancy.change((x) => x.setCompanySettings('acme', { redact: ['iban' as 'card'] })).then(
    () => 'written',
    (err: Error) => err.message,
  );
  assert.is(refused, 'Unknown redaction kind "iban"; accepted: card, cvv, expiry, ssn, digits, pin, bank, phone, email, name, address, dob, id');
  const stored = (await a.pool.query("SELECT settings FROM company_settings WHERE company = 'acme'")).rows[0].settings as string;
  assert.equal(JSON.parse(stored), { scrub: ['text'], redact: ['card', 'cvv'], sentiment: true, vocab: ['Acme Gold', 'chargeback'] });
});

t.run();
