/**
 * Administering a company while the service runs (issue 33 item 9): a change waits for another
 * process's write lock instead of failing, a lock held too long is an error in words, and the
 * callback secret can be read or rotated alone (`voxdex company secret`).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toVoxdexError } from '../src/errors.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const admin = suite('tenancy administration');
let dir = '';
admin.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-admin-'));
});
admin.after(() => rmSync(dir, { recursive: true, force: true }));

/** Another process (as the running service would) writes to `file` inside a transaction held `holdMs`; resolves once it holds the lock. */
function holdWriteLock(file: string, holdMs: number): Promise<{ done: Promise<number | null> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    db.prepare("INSERT INTO orgs (company, name) VALUES ('other', 'o1')").run();
    process.stdout.write('locked\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
    db.exec('COMMIT');
    db.close();`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<number | null>((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => String(b).includes('locked') && resolve({ done }));
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
  });
}

admin('a change made while another process writes waits for its lock and then applies (no "database is locked")', async () => {
  const file = path.join(dir, 'wait', 'tenancy.sqlite');
  const t = new SqliteTenancy(file);
  try {
    const holder = await holdWriteLock(file, 1500);
    const started = Date.now();
    const added = await t.change((a) => a.addCompany('acme', { org: 'sales', folder: 'calls' }));
    assert.ok(Date.now() - started >= 1000, 'waited for the lock');
    assert.ok(added.created);
    assert.is(await holder.done, 0);
    assert.equal(t.listOrgs('acme'), ['sales']);
  } finally {
    t.close();
  }
});

admin('a lock held past the busy timeout is STORAGE_UNAVAILABLE in words, not an internal error with a stack', () => {
  const file = path.join(dir, 'busy.sqlite');
  const a = new Database(file);
  const b = new Database(file, { timeout: 0 });
  try {
    a.exec('CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
    let err: unknown;
    try {
      b.exec('BEGIN IMMEDIATE');
    } catch (e) {
      err = e;
    }
    const e = toVoxdexError(err);
    assert.is(e.code, 'STORAGE_UNAVAILABLE');
    assert.is(e.status, 503);
    assert.is(e.message, 'The database was locked by another voxdex process (the running service or another command) for longer than 5 s; nothing was changed. Try again.');
  } finally {
    a.close();
    b.close();
  }
});

admin('the callback secret is read alone, and rotated alone: same tokens, same default destination', async () => {
  const t = new SqliteTenancy(path.join(dir, 'secret', 'tenancy.sqlite'));
  try {
    const { token, callbackSecret } = await t.change((a) => a.addCompany('acme', { org: 'sales', folder: 'calls' }));
    await t.change((a) => a.addFolder('acme', 'support', 'inbound'));
    assert.is(t.callbackSecret('acme'), callbackSecret);
    const rotated = await t.change((a) => a.rotateCallbackSecret('acme'));
    assert.match(rotated, /^[0-9a-f]{64}$/);
    assert.is.not(rotated, callbackSecret);
    assert.is(t.callbackSecret('acme'), rotated);
    assert.is(t.authenticate(token).kind, 'company');
    assert.equal(t.defaultDestination('acme'), { company: 'acme', org: 'sales', folder: 'calls' });
  } finally {
    t.close();
  }
});

admin.run();
