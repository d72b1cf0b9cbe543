/**
 * Privacy at rest in the distributed mode (issue 17, API.md §10): the real-speech payment call of
 * redaction-at-rest.test.ts (test/fixtures/redaction-call.ts) is sent with scrubtext=true&scrubaudio=true
 * to one `voxdex serve` node (role all) on PostgreSQL, MinIO and Elasticsearch (started by
 * scripts/test.sh). Once it is done, the scan covers: every row of every table of the test schema
 * (row_to_json), every object under the node's S3 prefix (bytes), every Elasticsearch document of the
 * node's indices (`_search` with `_source`, the indices' `_stats`, and a query_string search for the
 * numbers in all fields), the node's data dir files and its logs. None may hold the card or the code as
 * numerals or as words, nor the original recording's bytes over the digits.
 *
 * Audio at rest (issue 24.3; test/fixtures/audio-at-rest.ts), on a node of its own: a copy of the node's
 * data dir and of its bucket objects taken while a scrubaudio job runs holds no playable call and none
 * of the upload's bytes, and a job that is cancelled or fails keeps neither upload nor work files.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { distributedEnv, testBlobStore } from '../fixtures/distributed-env.js';
import { freshSchema, type TestSchema } from '../fixtures/pg.js';
import { scrubaudioEnds } from '../fixtures/audio-at-rest.js';
import { allFiles, CARD, CVV, findNeedles, makeClientFiles, makePaymentCall, MASKED_CARD, needles, SURNAME, voxdexCli, type PaymentCall } from '../fixtures/redaction-call.js';
import { getJson, ROOT, sleep, startChild, upload, waitHealthy, waitResult, type Child } from './harness.js';

const PG_URL = process.env.VOXDEX_TEST_DATABASE_URL;
const S3_URL = process.env.VOXDEX_TEST_S3_URL;
const ES_URL = process.env.VOXDEX_TEST_ES_URL;
const run = randomBytes(4).toString('hex');
const ES_PREFIX = `vxpriv-${run}`;
const S3_PREFIX = `vxpriv-${run}/`;

const test = suite('e2e: nothing unredacted at rest (PostgreSQL + MinIO + Elasticsearch)');
let dir = '';
let child: Child | undefined;
/** The second case's nodes (an API node, then a worker). */
const nodes: Child[] = [];
let call: PaymentCall;
let schema: TestSchema | undefined;
let blobs: S3BlobStore | undefined;

test.before(() => {
  dir = makeTempDir('voxdex-redaction-at-rest-dist-');
  call = makePaymentCall(dir, { personal: true });
});

test.after(async () => {
  for (const c of [child, ...nodes]) {
    if (c && c.proc.exitCode === null && c.proc.signalCode === null) {
      c.proc.kill('SIGTERM');
      await c.exited;
    }
  }
  await schema?.drop();
  if (blobs) {
    await blobs.deletePrefix(S3_PREFIX).catch(() => undefined);
    await blobs.close();
  }
  if (ES_URL) await fetch(`${ES_URL}/${ES_PREFIX}-*?ignore_unavailable=true&allow_no_indices=true`, { method: 'DELETE' }).catch(() => undefined);
  removeDir(dir);
});

test('a redacted payment call leaves no digit, word or sound of the card and code in PostgreSQL, S3, Elasticsearch, files or logs', async () => {
  assert.ok(PG_URL && S3_URL && ES_URL, 'needs VOXDEX_TEST_DATABASE_URL, VOXDEX_TEST_S3_URL and VOXDEX_TEST_ES_URL: run it with bash scripts/test.sh');
  schema = await freshSchema();
  const env: Record<string, string> = {
    ...distributedEnv({ databaseUrl: schema.url, dir, s3Prefix: S3_PREFIX, esPrefix: ES_PREFIX }),
    VOXDEX_ASR_THREADS: '2',
    VOXDEX_LOG_LEVEL: 'debug',
  };
  // No prefix: the scan lists the bucket itself (the node's objects all lie under S3_PREFIX).
  blobs = testBlobStore(env);
  const token = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'company', 'add', 'acme', '--org', 'pay', '--folder', 'calls'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(dir, 'admin'), ...env },
  })
    .toString()
    .trim();
  assert.match(token, /^[0-9a-f]{32}$/);

  const dataDir = path.join(dir, 'node');
  mkdirSync(dataDir, { mode: 0o700 });
  child = await startChild(dataDir, env, ['--role', 'all']);
  await waitHealthy(child.url, 120_000);
  const sent = await upload(child.url, { file: call.file, fields: { token, scrubtext: 'true', scrubaudio: 'true', redact: 'all' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const done = await waitResult(child.url, token, sent.body.requestid, 1_200_000).catch((err: Error) => {
    throw new Error(`${err.message} ${String((err as { cause?: unknown }).cause)} (node exit ${child!.proc.exitCode}, signal ${child!.proc.signalCode}); its last output: ${child!.output().slice(-3000)}`);
  });
  assert.is(done.status, 200, JSON.stringify(done.body));
  const doc = (await (await fetch(done.body as string)).json()) as { utterances: Array<{ metadata: { channel: number }; events: Array<{ word: string; redacted?: string }> }> };
  const events = doc.utterances.filter((u) => u.metadata.channel === 1).flatMap((u) => u.events);
  assert.ok(events.some((e) => e.redacted === 'card'), JSON.stringify(events));
  assert.ok(events.filter((e) => e.redacted).every((e) => /^(#+|\[[A-Z]+\])$/.test(e.word)));
  // Issue 25: the spelled surname and email and the street address, each of its kind.
  for (const kind of ['name', 'email', 'address']) assert.ok(events.some((e) => e.redacted === kind && e.word === `[${kind.toUpperCase()}]`), `${kind}: ${JSON.stringify(events)}`);
  for (const terms of [CARD, CARD.slice(0, 4), '"four five three nine"', SURNAME, '"n o w a k"', 'maple', 'gmail']) {
    const r = await getJson(`${child.url}/search/acme/pay/calls?${new URLSearchParams({ token, terms, fields: 'tid' })}`, { headers: { accept: 'application/json' } });
    assert.equal(r.body, [], `search ${terms}`);
  }
  child.proc.kill('SIGTERM');
  await child.exited;

  assert.equal(await scanAtRest(ES_PREFIX, S3_PREFIX, [{ dataDir, child }]), []);
});

test('a job queued before the policy runs under it on a worker; the client\'s names and metadata are redacted: nothing at rest (issue 24)', async () => {
  assert.ok(PG_URL && S3_URL && ES_URL, 'needs VOXDEX_TEST_DATABASE_URL, VOXDEX_TEST_S3_URL and VOXDEX_TEST_ES_URL: run it with bash scripts/test.sh');
  schema ??= await freshSchema();
  const env: Record<string, string> = {
    ...distributedEnv({ databaseUrl: schema.url, dir, s3Prefix: S3_PREFIX, esPrefix: ES_PREFIX }),
    VOXDEX_ASR_THREADS: '2',
    VOXDEX_LOG_LEVEL: 'debug',
  };
  blobs ??= testBlobStore(env);
  const admin = { VOXDEX_DATA_DIR: path.join(dir, 'admin'), ...env };
  const client = makeClientFiles(dir);
  const token = voxdexCli(['company', 'add', 'acme', '--org', 'pay', '--folder', 'calls'], admin).trim();
  voxdexCli(['company', 'set', 'acme', '--scrub', 'none'], admin);
  // An API node queues the call while the company has no policy and no worker runs.
  const apiDir = path.join(dir, 'api');
  mkdirSync(apiDir, { mode: 0o700 });
  const api = await startChild(apiDir, env, ['--role', 'api']);
  nodes.push(api);
  await waitHealthy(api.url, 120_000);
  // Its metadata is stored as sent (no policy yet); the job's row holds it redacted once it runs under the policy.
  const queued = await upload(api.url, { file: call.file, name: 'payment.wav', fields: { token, metadata: JSON.stringify({ note: `card ${CARD}` }) } });
  assert.is(queued.status, 200, JSON.stringify(queued.body));
  voxdexCli(['company', 'set', 'acme', '--scrub', 'text,audio', '--redact', 'all'], admin);
  // The API node sees the policy (tenancy reloads on NOTIFY) before the client's names are sent. The
  // first request after the CLI's seconds may meet a keep-alive socket the server just closed: asked again.
  for (let i = 0; i < 100; i++, await sleep(100)) {
    const a = await getJson(`${api.url}/account?token=${token}`).catch(() => undefined);
    if (a?.body.companies?.[0]?.settings?.scrub?.length) break;
  }
  // Right after an answer: no idle keep-alive socket the server may have closed meanwhile.
  const sent = await upload(api.url, { file: client.archive, fields: { token, metadata: client.metadata } }).catch((err: Error) => {
    throw new Error(`${err.message}; the API node said:\n${api.output().slice(-3000)}`);
  });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  // A worker starts and runs both under the policy.
  const workerDir = path.join(dir, 'worker');
  mkdirSync(workerDir, { mode: 0o700 });
  const worker = await startChild(workerDir, env, ['--role', 'worker']);
  nodes.push(worker);
  for (const id of [queued.body.requestid, sent.body.requestid]) {
    const done = await waitResult(api.url, token, id, 1_200_000);
    assert.is(done.status, 200, JSON.stringify(done.body));
  }
  const search = (q: Record<string, string>) => getJson(`${api.url}/search/acme/pay/calls?${new URLSearchParams({ token, ...q })}`, { headers: { accept: 'application/json' } });
  const docs: Array<{ source: string; streamtags?: { metadata?: Record<string, unknown> }; utterances: Array<{ events: Array<{ redacted?: string }> }> }> = (
    await search({ output: 'details', requestid: queued.body.requestid })
  ).body;
  assert.is(docs.length, 1);
  assert.ok(docs[0]!.utterances.flatMap((u) => u.events).some((e) => e.redacted === 'card'), 'the queued call ran under the policy');
  assert.equal(docs[0]!.streamtags?.metadata, { note: `card ${MASKED_CARD}` });
  const member: typeof docs = (await search({ output: 'details', requestid: sent.body.requestid })).body;
  assert.equal(member.map((d) => [d.source, d.streamtags?.metadata]), [[`card-${MASKED_CARD}.wav`, { card: MASKED_CARD, agent: '[NAME]', queue: 'billing', note: "caller's card #### #### #### ####", cvv: '###' }]]);
  assert.equal((await search({ 'meta.card': CARD })).body, [], 'meta.card= finds no card');
  for (const c of [api, worker]) {
    c.proc.kill('SIGTERM');
    await c.exited;
  }
  assert.equal(await scanAtRest(ES_PREFIX, S3_PREFIX, [{ dataDir: apiDir, child: api }, { dataDir: workerDir, child: worker }]), []);
});

/** Every place the distributed mode keeps data, scanned for the needles: PostgreSQL rows, S3 objects, Elasticsearch, the nodes' data dirs and logs. */
async function scanAtRest(esPrefix: string, s3Prefix: string, nodes: Array<{ dataDir: string; child: Child }>): Promise<string[]> {
  const n = needles(call);
  const found: string[] = [];
  // PostgreSQL: every row of every table of the schema, as JSON text (bytea comes out as hex: decode it too).
  const db = new pg.Client({ connectionString: schema!.url });
  await db.connect();
  let rows = 0;
  try {
    const tables = await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`, [schema!.name]);
    assert.ok(tables.rows.length > 0, 'the schema has tables');
    for (const { table_name } of tables.rows as Array<{ table_name: string }>) {
      const r = await db.query(`SELECT row_to_json(t)::text AS j FROM "${schema!.name}"."${table_name}" t`);
      for (const { j } of r.rows as Array<{ j: string }>) {
        rows++;
        found.push(...findNeedles(`pg ${table_name}`, Buffer.from(j, 'utf8'), n));
        for (const hex of j.match(/\\\\x([0-9a-f]+)/g) ?? []) found.push(...findNeedles(`pg ${table_name} (bytea)`, Buffer.from(hex.slice(3), 'hex'), n));
      }
    }
  } finally {
    await db.end();
  }
  assert.ok(rows > 0, 'the schema holds rows');
  // S3: every object the node wrote in the bucket (under its prefix; other runs share the bucket).
  const objects = await blobs!.list(s3Prefix);
  assert.ok(objects.length > 0, 'the bucket holds objects');
  for (const o of objects) found.push(...findNeedles(`s3 ${o.key}`, (await blobs!.get(o.key)) ?? Buffer.alloc(0), n));
  // Elasticsearch: every document with its _source, the indices' stats, and a search for the numbers in all fields.
  await fetch(`${ES_URL}/${esPrefix}-*/_refresh`, { method: 'POST' });
  const all = await getJson(`${ES_URL}/${esPrefix}-*/_search?size=1000&seq_no_primary_term=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { match_all: {} }, _source: true, stored_fields: ['*'], docvalue_fields: [] }) });
  assert.is(all.status, 200, JSON.stringify(all.body));
  assert.ok(all.body.hits.hits.length > 0, 'Elasticsearch holds the transcript');
  found.push(...findNeedles('es documents', Buffer.from(JSON.stringify(all.body), 'utf8'), n));
  const stats = await getJson(`${ES_URL}/${esPrefix}-*/_stats`);
  found.push(...findNeedles('es _stats', Buffer.from(JSON.stringify(stats.body), 'utf8'), n));
  for (const q of [CARD, ...CARD.match(/.{4}/g)!, CVV, 'four five three nine', 'seven three nine', SURNAME, 'n o w a k', 'maple', 'springfield', 'gmail']) {
    const r = await getJson(`${ES_URL}/${esPrefix}-*/_search?size=10`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: { query_string: { query: `"${q}"`, fields: ['*'], lenient: true } } }) });
    assert.is(r.status, 200, JSON.stringify(r.body));
    if (r.body.hits.total.value > 0) found.push(`es search "${q}": ${r.body.hits.total.value} hits`);
  }
  // The nodes' data dirs and logs.
  for (const { dataDir, child } of nodes) {
    found.push(...allFiles(dataDir).flatMap((file) => findNeedles(`file ${path.relative(dataDir, file)}`, readFileSync(file), n)));
    found.push(...findNeedles('logs', Buffer.from(child.output(), 'utf8'), n));
  }
  return found;
}

test('scrubaudio: a copy of the node and its bucket mid-job, a cancelled job and a failed job hold no playable call and none of the upload\'s bytes', async () => {
  assert.ok(PG_URL && S3_URL && ES_URL, 'needs VOXDEX_TEST_DATABASE_URL, VOXDEX_TEST_S3_URL and VOXDEX_TEST_ES_URL: run it with bash scripts/test.sh');
  const s3Prefix = `vxends-${run}/`;
  const esPrefix = `vxends-${run}`;
  const own = await freshSchema();
  const env: Record<string, string> = { ...distributedEnv({ databaseUrl: own.url, dir, s3Prefix, esPrefix }), VOXDEX_ASR_THREADS: '1', VOXDEX_LOG_LEVEL: 'debug' };
  const bucket = testBlobStore(env);
  let node: Child | undefined;
  try {
    const token = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/voxdex.ts'), 'company', 'add', 'acme', '--org', 'pay', '--folder', 'calls'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_DATA_DIR: path.join(dir, 'admin-ends'), ...env },
    })
      .toString()
      .trim();
    const dataDir = path.join(dir, 'node-ends');
    mkdirSync(dataDir, { mode: 0o700 });
    node = await startChild(dataDir, env, ['--role', 'all']);
    await waitHealthy(node.url, 120_000);
    const n = needles(call);
    const localFiles = (id: string) => allFiles(dataDir).map((f) => path.relative(dataDir, f)).filter((f) => f.includes(id));
    await scrubaudioEnds({
      url: node.url,
      token,
      call,
      needles: n,
      dir,
      snapshot: async () => [
        ...allFiles(dataDir).map((f) => ({ where: `node ${path.relative(dataDir, f)}`, bytes: readFileSync(f) })),
        ...(await Promise.all((await bucket.list(s3Prefix)).map(async (o) => ({ where: `s3 ${o.key}`, bytes: (await bucket.get(o.key)) ?? Buffer.alloc(0) })))),
      ],
      unredactedFor: async (id) => [
        ...(await bucket.list(s3Prefix)).map((o) => o.key).filter((k) => k.includes(id) && k.includes('uploads/')),
        ...localFiles(id).filter((f) => f.includes(`${path.sep}work${path.sep}`)),
      ],
    });
    node.proc.kill('SIGTERM');
    await node.exited;
    const found: string[] = [];
    for (const o of await bucket.list(s3Prefix)) found.push(...findNeedles(`s3 ${o.key}`, (await bucket.get(o.key)) ?? Buffer.alloc(0), n));
    found.push(...allFiles(dataDir).flatMap((file) => findNeedles(`file ${path.relative(dataDir, file)}`, readFileSync(file), n)));
    found.push(...findNeedles('logs', Buffer.from(node.output(), 'utf8'), n));
    assert.equal(found, []);
  } finally {
    if (node && node.proc.exitCode === null && node.proc.signalCode === null) {
      node.proc.kill('SIGTERM');
      await node.exited;
    }
    await own.drop();
    await bucket.deletePrefix(s3Prefix).catch(() => undefined);
    await bucket.close();
    await fetch(`${ES_URL}/${esPrefix}-*?ignore_unavailable=true&allow_no_indices=true`, { method: 'DELETE' }).catch(() => undefined);
  }
});

test.run();
