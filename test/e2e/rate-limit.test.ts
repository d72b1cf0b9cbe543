/**
 * Rate limits (docs/service.md, "Rate limits (429)"): a per-company token bucket (and one for the root token) on POST /transcribe
 * and on /search. Over it: 429 RATE_LIMITED with Retry-After; other companies, bad tokens and accepted
 * requests are not affected. Runs with VOXDEX_RATE_LIMIT_PER_MIN=2 (one token every 30 s).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeCall, makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const rl = suite('e2e: rate limits');
let dir = '';
let svc: Service;
let acme = '';
let beta = '';
let root = '';
let call = '';

rl.before(async () => {
  dir = makeTempDir('voxdex-ratelimit-');
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1', VOXDEX_RATE_LIMIT_PER_MIN: '2' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  beta = (await svc.tenancy.change((t) => t.addCompany('beta', { org: 'ops', folder: 'calls' }))).token;
  root = (await import('node:fs')).readFileSync(svc.config.rootTokenFile, 'utf8').trim();
  call = await makeCall(dir, { seconds: 1, encoding: 'mulaw', name: 'call.wav' });
});

rl.after(async () => {
  await svc?.close();
  removeDir(dir);
});

const RETRY = /^Too many POST \/transcribe requests for company acme \(limit 2 per minute\); retry in (\d+) seconds \(after \d{4}-\d\d-\d\dT[\d:.]+Z\)/;

rl('answers 429 RATE_LIMITED with Retry-After on the third upload a minute, and still finishes the two accepted', async () => {
  const bad = await upload(svc.url, { file: call, fields: { token: 'f'.repeat(32) } });
  assert.is(bad.status, 401, 'a bad token is 401 and takes nothing from any bucket');
  const a = await upload(svc.url, { file: call, fields: { token: acme } });
  const b = await upload(svc.url, { file: call, fields: { token: acme } });
  assert.is(a.status, 200);
  assert.is(b.status, 200);
  const c = await upload(svc.url, { file: call, fields: { token: acme } });
  assert.is(c.status, 429);
  assert.is(c.body.error.code, 'RATE_LIMITED');
  const m = RETRY.exec(c.body.error.message);
  assert.ok(m, c.body.error.message);
  const retry = Number(c.headers.get('retry-after'));
  assert.ok(retry >= 29 && retry <= 30, `Retry-After ${retry}`);
  assert.is(Number(m![1]), retry);
  // With the token in the query string the refusal comes before the upload is read.
  const early = await upload(svc.url, { file: call, query: { token: acme } });
  assert.is(early.status, 429);
  assert.is(early.body.error.code, 'RATE_LIMITED');
  // Another company and the root token have their own buckets.
  assert.is((await upload(svc.url, { file: call, fields: { token: beta } })).status, 200);
  assert.is((await upload(svc.url, { file: call, fields: { token: root }, path: '/transcribe/acme/sales/calls' })).status, 200);
  // Accepted requests are never affected: both finish, and polling them is not limited.
  for (const id of [a.body.requestid, b.body.requestid]) assert.is((await waitResult(svc.url, acme, id)).status, 200);
});

rl('limits /search per company: 429 as text/html, or JSON with Accept: application/json, with Retry-After', async () => {
  const q = (token: string, co = 'acme', org = 'sales') => `${svc.url}/search/${co}/${org}?token=${token}&output=count`;
  assert.is((await getJson(q(acme))).status, 200);
  assert.is((await getJson(q(acme))).status, 200);
  const html = await fetch(q(acme));
  assert.is(html.status, 429);
  assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
  const retry = Number(html.headers.get('retry-after'));
  assert.ok(retry >= 29 && retry <= 30, `Retry-After ${retry}`);
  assert.match(await html.text(), 'Too many /search requests for company acme (limit 2 per minute); retry in ');
  const json = await getJson(q(acme), { headers: { accept: 'application/json' } });
  assert.is(json.status, 429);
  assert.is(json.body.error.code, 'RATE_LIMITED');
  assert.match(json.body.error.message, /^Too many \/search requests for company acme \(limit 2 per minute\); retry in \d+ seconds/);
  // A wrong token is still 401, not 429; beta's bucket is its own.
  assert.is((await getJson(q('0'.repeat(32)), { headers: { accept: 'application/json' } })).status, 401);
  assert.is((await getJson(q(beta, 'beta', 'ops'))).status, 200);
});

rl.run();
