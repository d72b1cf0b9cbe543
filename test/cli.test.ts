/** The `voxdex` command line (API.md §9), run as scripts run it: bin/voxdex.js in a child process. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tenancy, tenancyDbPath } from '../src/tenancy/tenancy.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = suite('cli');
let dir = '';

cli.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-cli-'));
});
cli.after(() => rmSync(dir, { recursive: true, force: true }));

function voxdex(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(dir, 'data') },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

cli('company add prints only the new token; --show-secret adds the callback secret; token rotate replaces it', () => {
  const add = voxdex('company', 'add', 'acme', '--org', 'sales', '--folder', 'calls', '--model', 'en-us');
  assert.is(add.code, 0, add.stderr);
  assert.match(add.stdout, /^[0-9a-f]{32}\n$/);
  const token = add.stdout.trim();
  const withSecret = voxdex('company', 'add', 'globex', '--org=ops', '--folder=inbound', '--show-secret');
  assert.match(withSecret.stdout, /^[0-9a-f]{32}\n[0-9a-f]{64}\n$/);
  const rotated = voxdex('token', 'rotate', 'acme');
  assert.is(rotated.code, 0);
  assert.match(rotated.stdout, /^[0-9a-f]{32}\n$/);
  const t = new Tenancy(tenancyDbPath(path.join(dir, 'data')));
  try {
    assert.equal(t.authenticate(rotated.stdout.trim()), { kind: 'company', company: 'acme' });
    assert.throws(() => t.authenticate(token), /not valid/);
    assert.equal(t.getCompany('acme').models, ['en-us']);
  } finally {
    t.close();
  }
  const list = voxdex('company', 'list');
  assert.is(list.stdout, 'acme\tsales/calls\ten-us\t\nglobex\tops/inbound\t*\t\n');
});

cli('models lists installed names one per line, the default first', () => {
  const r = voxdex('models');
  assert.is(r.code, 0, r.stderr);
  const names = r.stdout.trim().split('\n');
  assert.is(names[0], 'auto');
  assert.ok(names.includes('en-us'));
});

cli('refuses bad names and unknown commands with a message and a non-zero status', () => {
  const bad = voxdex('company', 'add', 'bad name', '--org', 'o', '--folder', 'f');
  assert.is(bad.code, 1);
  assert.is(bad.stdout, '');
  assert.match(bad.stderr, 'voxdex: Expected a short name of 1-64 characters A-Z a-z 0-9 _ . - for company but received "bad name"');
  const missing = voxdex('token', 'rotate', 'nobody');
  assert.is(missing.code, 1);
  assert.match(missing.stderr, 'Company nobody does not exist');
  const unknown = voxdex('frobnicate');
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, 'Unknown command frobnicate');
});

cli.run();
