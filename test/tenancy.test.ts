import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { loadConfig } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';
import { ensureRootToken, secretKeyPath } from '../src/tenancy/tenancy.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';

const tenancy = suite('tenancy');

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, VoxdexError);
    return `${(err as VoxdexError).status} ${(err as VoxdexError).code}`;
  }
  return 'no error';
}

tenancy('issues a 32-hex company token that authenticates as that company and is stored only as a hash', () => {
  const t = new SqliteTenancy(':memory:', 'r'.repeat(64));
  const { token, callbackSecret, created } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  assert.ok(created);
  assert.match(token, /^[0-9a-f]{32}$/);
  assert.match(callbackSecret, /^[0-9a-f]{64}$/);
  assert.equal(t.authenticate(token), { kind: 'company', company: 'acme' });
  const stored = t.db.prepare('SELECT hash FROM tokens').pluck().all() as string[];
  assert.is(stored.length, 1);
  assert.not.ok(stored.includes(token));
  assert.equal(t.defaultDestination('acme'), { company: 'acme', org: 'sales', folder: 'calls' });
  t.close();
});

tenancy('authenticates the root token and refuses missing or unknown tokens with 401', () => {
  const t = new SqliteTenancy(':memory:', 'f'.repeat(64));
  assert.equal(t.authenticate('f'.repeat(64)), { kind: 'root' });
  assert.is(code(() => t.authenticate(undefined)), '401 BAD_TOKEN');
  assert.is(code(() => t.authenticate('')), '401 BAD_TOKEN');
  assert.is(code(() => t.authenticate('0123456789abcdef0123456789abcdef')), '401 BAD_TOKEN');
  assert.is(code(() => t.authenticate('not a token')), '401 BAD_TOKEN');
  t.close();
});

tenancy('rotating a token revokes the old one', () => {
  const t = new SqliteTenancy(':memory:');
  const { token } = t.addCompany('acme', { org: 'o', folder: 'f' });
  const next = t.rotateToken('acme');
  assert.is.not(next, token);
  assert.is(code(() => t.authenticate(token)), '401 BAD_TOKEN');
  assert.equal(t.authenticate(next), { kind: 'company', company: 'acme' });
  assert.is(code(() => t.rotateToken('nobody')), '404 NOT_FOUND');
  t.close();
});

tenancy('a company token is forbidden on another company; root is allowed everywhere', () => {
  const t = new SqliteTenancy(':memory:');
  const a = t.addCompany('acme', { org: 'o', folder: 'f' });
  t.addCompany('globex', { org: 'o', folder: 'f' });
  const p = t.authenticate(a.token);
  t.authorize(p, 'acme');
  assert.is(code(() => t.authorize(p, 'globex')), '403 FORBIDDEN');
  t.authorize({ kind: 'root' }, 'globex');
  t.close();
});

tenancy('rejects bad short names with 400 BAD_NAME and unknown scopes with 404', () => {
  const t = new SqliteTenancy(':memory:');
  assert.is(code(() => t.addCompany('bad name', { org: 'o', folder: 'f' })), '400 BAD_NAME');
  assert.is(code(() => t.addCompany('x'.repeat(65), { org: 'o', folder: 'f' })), '400 BAD_NAME');
  assert.is(code(() => t.addCompany('acme', { org: '..', folder: 'f' })), '400 BAD_NAME');
  t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.addFolder('acme', 'support', 'q1');
  t.requireScope('acme', 'sales', 'calls');
  t.requireScope('acme', 'support');
  t.requireScope('acme', 'support', 'q1');
  assert.is(code(() => t.requireScope('acme', 'sales', 'q1')), '404 NOT_FOUND');
  assert.is(code(() => t.requireScope('acme', 'legal')), '404 NOT_FOUND');
  assert.is(code(() => t.requireScope('initech', 'sales')), '404 NOT_FOUND');
  assert.is(code(() => t.requireScope('acme', 'sa/les')), '400 BAD_NAME');
  assert.equal(t.listOrgs('acme'), ['sales', 'support']);
  assert.equal(t.listFolders('acme', 'support'), ['q1']);
  t.close();
});

tenancy('adding an existing company keeps its secret, moves the default and issues one more token', () => {
  const t = new SqliteTenancy(':memory:');
  const first = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  const second = t.addCompany('acme', { org: 'support', folder: 'q1' });
  assert.not.ok(second.created);
  assert.is(second.callbackSecret, first.callbackSecret);
  assert.equal(t.authenticate(first.token), { kind: 'company', company: 'acme' });
  assert.equal(t.authenticate(second.token), { kind: 'company', company: 'acme' });
  assert.equal(t.defaultDestination('acme'), { company: 'acme', org: 'support', folder: 'q1' });
  assert.equal(t.listOrgs('acme'), ['sales', 'support']);
  t.close();
});

tenancy('resolves models: default auto, aliases, unknown 400, unauthorized 403', () => {
  const t = new SqliteTenancy(':memory:');
  const installed = ['en-us', 'en-us-8k'];
  t.addCompany('open', { org: 'o', folder: 'f' });
  assert.is(t.resolveModel('open', undefined, installed), 'auto');
  assert.is(t.resolveModel('open', 'en-us-8k', installed), 'en-us-8k');
  assert.is(code(() => t.resolveModel('open', 'de-de', installed)), '400 UNKNOWN_MODEL');
  t.addCompany('tight', { org: 'o', folder: 'f', models: ['en-us-8k'] });
  t.setModelAlias('tight', 'eng1:callcenter', 'en-us-8k');
  assert.is(t.resolveModel('tight', undefined, installed), 'en-us-8k');
  assert.is(t.resolveModel('tight', 'eng1:callcenter', installed), 'en-us-8k');
  assert.is(code(() => t.resolveModel('tight', 'en-us', installed)), '403 MODEL_NOT_AUTHORIZED');
  assert.equal(t.getCompany('tight').aliases, { 'eng1:callcenter': 'en-us-8k' });
  t.close();
});

tenancy('UNKNOWN_MODEL lists each accepted name once, with the installed registry as the service passes it', () => {
  const t = new SqliteTenancy(':memory:');
  t.addCompany('open', { org: 'o', folder: 'f' });
  t.setModelAlias('open', 'eng1:callcenter', 'en-us-8k');
  const registry = loadModelRegistry(loadConfig({}).modelsFile);
  const installed = registry.list(); // 'auto' first, as GET /health and `voxdex models` show it
  assert.is(installed[0], 'auto');
  try {
    t.resolveModel('open', 'de-de', installed);
    assert.unreachable();
  } catch (err) {
    assert.is((err as VoxdexError).message, `Model de-de is not installed; use one of: ${installed.join(', ')}, eng1:callcenter`);
  }
  t.close();
});

tenancy('creates the root token file once with mode 0600 and reads it back later', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vx-root-'));
  try {
    const file = path.join(dir, 'sub', 'root.token');
    const a = ensureRootToken(file);
    assert.ok(a.created);
    assert.match(a.token, /^[0-9a-f]{64}$/);
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.is(readFileSync(file, 'utf8').trim(), a.token);
    const b = ensureRootToken(file);
    assert.not.ok(b.created);
    assert.is(b.token, a.token);
    const { tenancy: t } = SqliteTenancy.open({ dataDir: dir, rootTokenFile: file });
    assert.equal(t.authenticate(a.token), { kind: 'root' });
    t.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});


tenancy('callback secrets are sealed in tenancy.sqlite: a copy of the database alone cannot sign callbacks', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-secrets-'));
  try {
    const db = path.join(dir, 'data', 'tenancy.sqlite');
    const t = new SqliteTenancy(db);
    const { callbackSecret } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
    t.close();
    const keyFile = path.join(dir, 'data', 'secrets.key');
    assert.is(statSync(keyFile).mode & 0o777, 0o600);
    const raw = new Database(db, { readonly: true });
    const stored = raw.prepare("SELECT callback_secret FROM companies WHERE name = 'acme'").pluck().get() as string;
    raw.close();
    assert.match(stored, /^enc1:[A-Za-z0-9+/]+=*$/);
    assert.not.ok(stored.includes(callbackSecret));
    assert.not.ok(Buffer.from(stored.slice(5), 'base64').toString('hex').includes(callbackSecret));
    // The key file that belongs to the database opens it.
    const again = new SqliteTenancy(db);
    assert.is(again.callbackSecret('acme'), callbackSecret);
    again.close();
    // A copy of the database without its key file: refused at open, not silently given a new key.
    mkdirSync(path.join(dir, 'copy'));
    copyFileSync(db, path.join(dir, 'copy', 'tenancy.sqlite'));
    assert.throws(() => new SqliteTenancy(path.join(dir, 'copy', 'tenancy.sqlite')), (err: VoxdexError) =>
      err.code === 'SECRET_KEY_INVALID' && /^The key file .*secrets\.key is missing but the callback secrets in this tenancy\.sqlite are sealed with it \(company acme\)/.test(err.message));
    // ... and with another installation's key it cannot open the secret.
    ensureRootToken(path.join(dir, 'other.key'));
    const other = new SqliteTenancy(path.join(dir, 'copy', 'tenancy.sqlite'), { keyFile: path.join(dir, 'other.key') });
    assert.throws(() => other.callbackSecret('acme'), (err: VoxdexError) => err.code === 'SECRET_KEY_INVALID' && /cannot be decrypted with the key in .*other\.key/.test(err.message));
    other.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

tenancy('plain-text callback secrets of earlier versions are sealed when the database is opened; the key sits beside root.token', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-secrets-'));
  try {
    const data = path.join(dir, 'data');
    mkdirSync(data);
    const db = new Database(path.join(data, 'tenancy.sqlite'));
    db.exec(`CREATE TABLE companies (name TEXT PRIMARY KEY, default_org TEXT NOT NULL, default_folder TEXT NOT NULL,
      callback_secret TEXT NOT NULL, models TEXT NOT NULL DEFAULT '[]', created TEXT NOT NULL)`);
    const plain = 'ab'.repeat(32);
    db.prepare("INSERT INTO companies VALUES ('old', 'o', 'f', ?, '[]', '2025-01-01T00:00:00Z')").run(plain);
    db.close();
    const config = { dataDir: data, rootTokenFile: path.join(dir, 'etc', 'root.token') };
    const { tenancy: t } = SqliteTenancy.open(config);
    assert.is(secretKeyPath(config), path.join(dir, 'etc', 'secrets.key'));
    assert.is(statSync(path.join(dir, 'etc', 'secrets.key')).mode & 0o777, 0o600);
    assert.is(t.callbackSecret('old'), plain);
    const stored = t.db.prepare("SELECT callback_secret FROM companies WHERE name = 'old'").pluck().get() as string;
    assert.match(stored, /^enc1:/);
    // A sealed secret copied onto another company's row does not open (the company name is bound in).
    t.addCompany('new', { org: 'o', folder: 'f' });
    t.db.prepare("UPDATE companies SET callback_secret = ? WHERE name = 'new'").run(stored);
    assert.throws(() => t.callbackSecret('new'), (err: VoxdexError) => err.code === 'SECRET_KEY_INVALID');
    t.close();
    writeFileSync(path.join(dir, 'etc', 'secrets.key'), 'short\n');
    assert.throws(() => SqliteTenancy.open(config), (err: VoxdexError) => err.code === 'SECRET_KEY_INVALID' && /secrets\.key does not hold a key/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

tenancy('company settings start empty, merge patch by patch, and survive reopening the file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-settings-'));
  try {
    const file = path.join(dir, 'tenancy.sqlite');
    const t = new SqliteTenancy(file);
    t.addCompany('acme', { org: 'o', folder: 'f' });
    assert.equal(t.companySettings('acme'), {});
    assert.equal(t.setCompanySettings('acme', { scrub: ['audio', 'text'], redact: ['ssn', 'card'] }), { scrub: ['text', 'audio'], redact: ['card', 'ssn'] });
    assert.equal(t.setCompanySettings('acme', { diarize: true, numtrans: false }), { scrub: ['text', 'audio'], redact: ['card', 'ssn'], diarize: true, numtrans: false });
    assert.equal(t.setCompanySettings('acme', { scrub: [], redact: [] }), { diarize: true, numtrans: false });
    assert.equal(t.addVocab('acme', ['  Acme   Gold ', 'refund', 'refund']), ['Acme Gold', 'refund']);
    assert.equal(t.addVocab('acme', ['refund', 'chargeback']), ['chargeback']);
    assert.equal(t.removeVocab('acme', ['refund', 'nothing']), ['refund']);
    assert.equal(t.setCompanySettings('acme', { agentChannel: 1, agentPhrases: [' Welcome  to Acme ', 'welcome to acme'] }).agentPhrases, ['Welcome to Acme', 'welcome to acme']);
    assert.is(t.companySettings('acme').agentChannel, 1);
    assert.is('agentChannel' in t.setCompanySettings('acme', { agentChannel: null }), false);
    assert.is(code(() => t.setCompanySettings('acme', { agentChannel: 40 })), '400 BAD_ARGUMENT');
    t.setCompanySettings('acme', { agentChannel: 0, agentPhrases: [] });
    t.close();
    const again = new SqliteTenancy(file);
    assert.equal(again.companySettings('acme'), { diarize: true, numtrans: false, vocab: ['Acme Gold', 'chargeback'], agentChannel: 0 });
    assert.is(code(() => again.companySettings('nobody')), '404 NOT_FOUND');
    again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `CODE: message` of what fn throws, or 'no error'. */
function message(fn: () => unknown): string {
  try {
    fn();
    return 'no error';
  } catch (err) {
    return `${(err as VoxdexError).code}: ${(err as Error).message}`;
  }
}

tenancy('company settings refuse unknown kinds naming the accepted ones, and hold at most 1000 phrases of 50 characters', () => {
  const t = new SqliteTenancy(':memory:');
  t.addCompany('acme', { org: 'o', folder: 'f' });
  assert.is(message(() => t.setCompanySettings('acme', { redact: ['card', 'iban' as 'card'] })), 'BAD_ARGUMENT: Unknown redaction kind "iban"; accepted: card, cvv, expiry, ssn, digits, pin, bank, phone, email, name, address, dob, id');
  assert.is(message(() => t.setCompanySettings('acme', { scrub: ['video' as 'text'] })), 'BAD_ARGUMENT: Unknown scrub target "video"; accepted: text, audio');
  assert.is(message(() => t.addVocab('acme', ['x'.repeat(51)])), `BAD_ARGUMENT: A vocabulary phrase has 1 to 50 characters; "${'x'.repeat(51)}" has 51`);
  assert.is(message(() => t.addVocab('acme', ['  '])), 'BAD_ARGUMENT: A vocabulary phrase has 1 to 50 characters; "  " has 0');
  const letters = (i: number) => [i % 26, Math.floor(i / 26) % 26, Math.floor(i / 676)].map((x) => String.fromCharCode(97 + x)).join('');
  assert.is(t.addVocab('acme', Array.from({ length: 1000 }, (_, i) => `phrase ${letters(i)}`)).length, 1000);
  assert.is(
    message(() => t.addVocab('acme', ['one more'])),
    "BAD_ARGUMENT: A company's vocabulary holds at most 1000 phrases; this change would make it 1001. Remove some with voxdex vocab remove.",
  );
  assert.is(t.companySettings('acme').vocab?.length, 1000);
  t.close();
});

tenancy('the vocabulary never writes digits: a phrase with digits, or number words of 4+ digits, is refused; one stored before can be removed (issue 24)', () => {
  const t = new SqliteTenancy(':memory:');
  t.addCompany('acme', { org: 'o', folder: 'f' });
  const rule = 'the vocabulary never writes numbers (it could put a number nobody said into a transcript): spell names without digits, numbers are recognised without it';
  assert.is(message(() => t.addVocab('acme', ['4539148803436467'])), `BAD_ARGUMENT: A vocabulary phrase "################" holds digits; ${rule}`);
  assert.is(message(() => t.addVocab('acme', ['Gold ٣'])), `BAD_ARGUMENT: A vocabulary phrase "Gold #" holds digits; ${rule}`);
  assert.is(message(() => t.addVocab('acme', ['four five three nine'])), `BAD_ARGUMENT: A vocabulary phrase "four five three nine" spells a number of 4 digits; ${rule}`);
  assert.equal(t.addVocab('acme', ['Office three sixty five', 'Seven Eleven', 'Channel Four']), ['Office three sixty five', 'Seven Eleven', 'Channel Four']);
  // Length is counted in characters as a reader counts them, not UTF-16 units.
  assert.equal(t.addVocab('acme', ['👍🏽'.repeat(50)]), ['👍🏽'.repeat(50)]);
  assert.is(message(() => t.addVocab('acme', ['日'.repeat(51)])), `BAD_ARGUMENT: A vocabulary phrase has 1 to 50 characters; "${'日'.repeat(51)}" has 51`);
  // A phrase stored before the rule does not block changes, and can be removed.
  t.db.prepare('UPDATE company_settings SET settings = ? WHERE company = ?').run(JSON.stringify({ vocab: ['card 4111'] }), 'acme');
  assert.equal(t.addVocab('acme', ['Acme Gold']), ['Acme Gold']);
  assert.equal(t.removeVocab('acme', ['card 4111']), ['card 4111']);
  assert.equal(t.companySettings('acme').vocab, ['Acme Gold']);
  t.close();
});

tenancy.run();
