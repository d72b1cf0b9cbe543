/**
 * The audit trail over real HTTP (docs/audit.md): a started server with a real call; searches, a call
 * opened, audio played inline and through a signed link (with the time range of each byte range),
 * a download, a category change and a refused token are each one entry, named by who did it; the
 * trail reads back as JSON lines and CSV, search terms under a policy are redacted in it, and a row
 * changed in the database is found by `voxdex audit verify`, which names the entry.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AuditEntry } from '../../src/audit/chain.js';
import { queryDigest } from '../../src/http/audit-trail.js';
import type { Service } from '../../src/service.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { makePromptCall } from '../fixtures/prompt-call.js';
import { getJson, ROOT, startInProcess, upload, waitResult } from './harness.js';

const au = suite('e2e: audit trail');
let dir = '';
let svc: Service;
let acme = '';
let root = '';
let id = '';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const whoOf = (token: string) => `token:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;

async function trail(query = '', token = acme, company = 'acme'): Promise<AuditEntry[]> {
  const r = await fetch(`${svc.url}/audit/${company}?${query}`, { headers: bearer(token) });
  assert.is(r.status, 200, await r.clone().text());
  assert.is(r.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
  return (await r.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEntry);
}

function verify(env: Record<string, string> = {}): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'audit', 'verify'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(dir, 'data'), VOXDEX_LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

au.before(async () => {
  dir = makeTempDir('voxdex-audit-e2e-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  root = readFileSync(path.join(dir, 'data', 'root.token'), 'utf8').trim();
  const call = await makePromptCall(dir, { name: 'call.wav' });
  id = (await upload(svc.url, { file: call, fields: { token: acme } })).body.requestid;
  assert.is((await waitResult(svc.url, acme, id, 120_000)).status, 200);
});

au.after(async () => {
  await svc?.close();
  removeDir(dir);
});

au('each access is one entry, by the token that made it, before the answer: search, open, play, download, category, refused token', async () => {
  const before = (await trail()).length;
  assert.is((await getJson(`${svc.url}/search/acme/sales?terms=thank&output=summary`, { headers: { ...bearer(acme), Accept: 'application/json' } })).status, 200);
  assert.is((await getJson(`${svc.url}/transcribe/result?requestid=${id}&inline=true`, { headers: bearer(acme) })).status, 200);
  // Inline audio, bytes 44 … 16043: the first half second of the 8 kHz stereo call (16-bit: 32,000 bytes a second).
  const inline = await fetch(`${svc.url}/transcribe/${id}/audio?inline=true`, { headers: { ...bearer(acme), Range: 'bytes=44-16043' } });
  assert.is(inline.status, 206);
  await inline.arrayBuffer();
  // The web page's way: a signed link asked by the root token, played by range without a token.
  const link = (await getJson(`${svc.url}/transcribe/${id}/audio`, { headers: bearer(root) })).body as string;
  const played = await fetch(link, { headers: { Range: 'bytes=32044-' } });
  assert.is(played.status, 206);
  await played.arrayBuffer();
  const zip = await fetch(`${svc.url}/search/acme/sales?output=zip`, { headers: bearer(acme) });
  assert.is(zip.status, 200);
  await zip.arrayBuffer();
  assert.is((await fetch(`${svc.url}/categories/acme/thanks`, { method: 'PUT', headers: { ...bearer(acme), 'Content-Type': 'application/json' }, body: JSON.stringify({ terms: 'thank*' }) })).status, 201);
  assert.is((await fetch(`${svc.url}/search/acme/sales?terms=x`, { headers: bearer('f'.repeat(64)) })).status, 401);

  const after = (await trail()).slice(before).filter((e) => e.action !== 'audit.read');
  const rows = after.map((e) => [e.who, e.action, e.target]);
  assert.equal(rows, [
    [whoOf(acme), 'search', 'acme/sales'],
    [whoOf(acme), 'call.open', id],
    [whoOf(acme), 'audio.play', id],
    ['root', 'audio.play', id],
    [whoOf(acme), 'download', 'acme/sales'],
    [whoOf(acme), 'category.put', 'thanks'],
  ]);
  // What was typed is kept as option names and a keyed digest only: the trail holds no search words.
  const key = readFileSync(path.join(dir, 'data', 'url.secret'), 'utf8').trim();
  assert.equal(after[0]!.detail, { output: 'summary', typed: ['output', 'terms'], digest: queryDigest(key, { terms: 'thank', output: 'summary' }) });
  assert.not.match(JSON.stringify(after[0]), /thank/);
  assert.equal(after[2]!.detail, { channel: 'all', fromSec: 0, toSec: 0.5 });
  assert.is(after[3]!.detail.link, true);
  assert.is(after[3]!.detail.fromSec, 1);
  assert.ok((after[3]!.detail.toSec as number) > 5, 'to the end of the call');
  for (const e of after) assert.match(e.ip, /127\.0\.0\.1|::1/);
  const refused = await trail('action=token.refused', root, '-');
  assert.is(refused.at(-1)?.detail.path, '/search/acme/sales');
  // Reading the trail is itself in it.
  assert.is((await trail('action=audit.read')).length > 0, true);
});

au('the trail reads as CSV and filters by who and action; a company token reads only its own company', async () => {
  const r = await fetch(`${svc.url}/audit/acme?output=csv&action=search&who=${encodeURIComponent(whoOf(acme))}`, { headers: bearer(acme) });
  assert.is(r.status, 200);
  const lines = (await r.text()).trim().split('\r\n');
  assert.is(lines[0], 'seq,at,who,action,target,detail,ip,prev,hash');
  assert.ok(lines.length >= 2 && lines.slice(1).every((l) => l.includes(',search,acme/sales,')));
  const other = (await svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbox' }))).token;
  assert.is((await fetch(`${svc.url}/audit/acme`, { headers: bearer(other) })).status, 403);
  assert.is((await fetch(`${svc.url}/audit/-`, { headers: bearer(acme) })).status, 403);
  assert.is((await fetch(`${svc.url}/audit/acme?action=nope`, { headers: bearer(acme) })).status, 400);
});

au('a card number searched for is nowhere in the job store, under a policy or not', async () => {
  await getJson(`${svc.url}/search/acme/sales?terms=${encodeURIComponent('"4539 1488 0343 6467"')}`, { headers: bearer(acme) });
  await svc.tenancy.change((t) => t.setCompanySettings('acme', { scrub: ['text'] }));
  await getJson(`${svc.url}/search/acme/sales?terms=${encodeURIComponent('"4539 1488 0343 6467"')}`, { headers: bearer(acme) });
  const last = (await trail('action=search')).at(-1)!;
  assert.not.match(JSON.stringify(last.detail), /4539|6467/);
  const bytes = readFileSync(path.join(dir, 'data', 'jobs.sqlite')).toString('latin1') + readFileSync(path.join(dir, 'data', 'jobs.sqlite-wal')).toString('latin1');
  assert.not.ok(bytes.includes('4539 1488'), 'no trace of the card in the job store');
});

au('voxdex audit verify: intact, then a row changed in the database is named', async () => {
  const ok = verify();
  assert.is(ok.status, 0, ok.out);
  assert.match(ok.out, /acme: \d+ entries, chain intact; newest \d+ [0-9a-f]{64}/);
  const db = new Database(path.join(dir, 'data', 'jobs.sqlite'));
  try {
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare(`UPDATE audit_log SET who = 'root' WHERE company = 'acme' AND seq = 2`).run();
  } finally {
    db.close();
  }
  const bad = verify();
  assert.is(bad.status, 1, bad.out);
  assert.match(bad.out, /acme: BROKEN at entry 2: entry 2 was changed/);
});

au.run();
