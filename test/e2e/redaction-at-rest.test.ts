/**
 * Privacy at rest (issue 17, API.md §10): a real-speech payment call — the caller reads a 16-digit
 * card number in four groups and a security code, with real digit recordings (Asterisk's
 * en_US_f_Allison/digits) — is sent with scrubtext=true&scrubaudio=true to `voxdex serve` started as
 * a child process. Once it is done, EVERY byte under the data dir (SQLite files and their -wal/-shm,
 * blobs, result files, checkpoints) and everything the server logged is scanned for the card and the
 * code as numerals and as words, and for the original recording's bytes over the digits (as uploaded,
 * mu-law, and as 16-bit PCM): none may be found.
 *
 * Audio at rest (issue 24.3; test/fixtures/audio-at-rest.ts): a copy of the data dir taken while a
 * scrubaudio job runs holds no playable file and none of the upload's bytes, and a job that is
 * cancelled or fails keeps neither its upload nor its work files; then the whole data dir is scanned.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { luhn } from '../../src/numbers/lexicon.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { acmeDataDir, AGENT, allFiles, CARD, findNeedles, makeClientFiles, makePaymentCall, MASKED_CARD, needles, SURNAME, voxdexCli, type PaymentCall } from '../fixtures/redaction-call.js';
import { scrubaudioEnds } from '../fixtures/audio-at-rest.js';
import { getJson, sleep, startChild, upload, waitHealthy, waitResult, type Child } from './harness.js';

const test = suite('e2e: nothing unredacted at rest');
let dir = '';
let child: Child | undefined;
let call: PaymentCall;

test.before(() => {
  dir = makeTempDir('voxdex-redaction-at-rest-');
  assert.ok(luhn(CARD), 'the test card passes Luhn');
  call = makePaymentCall(dir, { personal: true });
});

test.after(async () => {
  if (child && child.proc.exitCode === null) {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
  removeDir(dir);
});

test('a redacted payment call leaves no digit, word or sound of the card and code anywhere', async () => {
  const dataDir = path.join(dir, 'data');
  const token = acmeDataDir(dataDir);
  child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '2', VOXDEX_LOG_LEVEL: 'debug' });
  await waitHealthy(child.url, 120_000);

  const sent = await upload(child.url, { file: call.file, fields: { token: token, scrubtext: 'true', scrubaudio: 'true', redact: 'all' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const done = await waitResult(child.url, token, sent.body.requestid, 1_200_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const doc = (await (await fetch(done.body as string)).json()) as { utterances: unknown };
  const events = (doc.utterances as Array<{ metadata: { channel: number }; events: Array<{ word: string; redacted?: string }> }>)
    .filter((u) => u.metadata.channel === 1).flatMap((u) => u.events);
  assert.ok(events.some((e) => e.redacted === 'card'), JSON.stringify(events));
  assert.ok(events.filter((e) => e.redacted).every((e) => /^(#+|\[[A-Z]+\])$/.test(e.word)));
  // Issue 25: the spelled surname and email and the street address, each of its kind.
  for (const kind of ['name', 'email', 'address']) assert.ok(events.some((e) => e.redacted === kind && e.word === `[${kind.toUpperCase()}]`), `${kind}: ${JSON.stringify(events)}`);

  // The playable audio is the silenced copy.
  const link = await getJson(`${child.url}/transcribe/${sent.body.requestid}/audio?token=${token}`);
  assert.is(link.status, 200, JSON.stringify(link.body));
  const played = Buffer.from(await (await fetch(link.body as string)).arrayBuffer());
  const n = needles(call);
  for (const { what, bytes } of n) assert.is(played.indexOf(bytes), -1, `the played audio holds ${what}`);

  // A search for the card finds nothing.
  for (const terms of [CARD, CARD.slice(0, 4), '"four five three nine"', SURNAME, '"n o w a k"', 'maple', 'gmail']) {
    const r = await getJson(`${child.url}/search/acme/pay/calls?${new URLSearchParams({ token: token, terms, fields: 'tid' })}`, { headers: { accept: 'application/json' } });
    assert.equal(r.body, [], `search ${terms}`);
  }
  // …while [NAME] and redacted=name find the call (compliance audits where names were redacted).
  for (const q of [{ terms: '[NAME]' }, { redacted: 'name,email' }] as Array<Record<string, string>>) {
    const r = await getJson(`${child.url}/search/acme/pay/calls?${new URLSearchParams({ token: token, ...q, fields: 'filename' })}`, { headers: { accept: 'application/json' } });
    assert.equal(r.body, [{ filename: 'payment-call.wav' }], JSON.stringify(q));
  }

  child.proc.kill('SIGTERM');
  await child.exited;
  const found = allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  found.push(...findNeedles('logs', Buffer.from(child.output(), 'utf8'), n));
  assert.equal(found, []);
});

test('scrubaudio: a copy of the data dir mid-job, a cancelled job and a failed job hold no playable call and none of the upload\'s bytes', async () => {
  const dataDir = path.join(dir, 'data-ends');
  const token = acmeDataDir(dataDir);
  child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '1', VOXDEX_LOG_LEVEL: 'debug' });
  await waitHealthy(child.url, 120_000);
  const n = needles(call);
  let snaps = 0;
  const files = (id: string) => allFiles(dataDir).map((f) => path.relative(dataDir, f)).filter((f) => f.includes(id));
  await scrubaudioEnds({
    url: child.url,
    token,
    call,
    needles: n,
    dir,
    snapshot: async () => {
      const copy = path.join(dir, `snapshot-${snaps++}`);
      cpSync(dataDir, copy, { recursive: true });
      return allFiles(copy).map((f) => ({ where: path.relative(copy, f), bytes: readFileSync(f) }));
    },
    unredactedFor: async (id) => files(id).filter((f) => f.startsWith('uploads') || f.includes(`${path.sep}work${path.sep}`)),
  });
  child.proc.kill('SIGTERM');
  await child.exited;
  const found = allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  found.push(...findNeedles('logs', Buffer.from(child.output(), 'utf8'), n));
  assert.equal(found, []);
});

test('a job queued before the policy runs under it; the client\'s names, metadata and sidecar notes are redacted: nothing at rest (issue 24)', async () => {
  const root = path.join(dir, 'policy');
  const dataDir = path.join(root, 'data');
  mkdirSync(root);
  const token = acmeDataDir(dataDir);
  const env = { VOXDEX_DATA_DIR: dataDir };
  // Queued by voxdex import while no server runs and the company has no policy yet; then the policy.
  mkdirSync(path.join(root, 'queued'));
  copyFileSync(call.file, path.join(root, 'queued', 'payment.wav'));
  // Its sidecar notes are stored as sent (no policy yet); the job's row holds them redacted once it runs under the policy.
  writeFileSync(path.join(root, 'queued', 'payment.json'), JSON.stringify({ note: `card ${CARD}` }));
  voxdexCli(['import', path.join(root, 'queued'), '--to', 'acme/pay/calls'], env);
  voxdexCli(['company', 'set', 'acme', '--scrub', 'text,audio', '--redact', 'all'], env);
  // The client's names and notes: an archive upload with metadata, and a drop-folder file with a sidecar.
  const client = makeClientFiles(root);
  const drop = path.join(root, 'drop', 'acme', 'pay', 'calls');
  mkdirSync(drop, { recursive: true });
  copyFileSync(client.dropWav, path.join(drop, path.basename(client.dropWav)));
  writeFileSync(path.join(drop, path.basename(client.dropWav).replace(/\.wav$/, '.json')), client.dropSidecar);

  child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '2', VOXDEX_LOG_LEVEL: 'debug', VOXDEX_DROP_DIR: path.join(root, 'drop'), VOXDEX_DROP_STABLE_MS: '200' });
  await waitHealthy(child.url, 120_000);
  const sent = await upload(child.url, { file: client.archive, fields: { token, metadata: client.metadata } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const done = await waitResult(child.url, token, sent.body.requestid, 600_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const zip = path.join(root, 'result.zip');
  writeFileSync(zip, Buffer.from(await (await fetch(done.body as string)).arrayBuffer()));
  assert.equal(execFileSync('zipinfo', ['-1', zip]).toString().trim().split('\n').sort(), [`card-${MASKED_CARD}.json`, 'errors.json']);
  assert.match(execFileSync('unzip', ['-p', zip, 'errors.json']).toString(), `acct-${MASKED_CARD}.txt`);

  // Every transcript lands (the imported call takes longest): each place is checked to hold data.
  const search = (q: Record<string, string>) => getJson(`${child!.url}/search/acme/pay/calls?${new URLSearchParams({ token, ...q })}`, { headers: { accept: 'application/json' } });
  let docs: Array<{ source: string; streamtags?: { metadata?: Record<string, unknown> }; utterances: Array<{ events: Array<{ word: string; redacted?: string }> }> }> = [];
  for (const until = Date.now() + 1_200_000; docs.length < 3 && Date.now() < until; await sleep(500)) docs = (await search({ output: 'details' })).body;
  const bySource = Object.fromEntries(docs.map((d) => [d.source, d]));
  assert.equal(Object.keys(bySource).sort(), [`card-${MASKED_CARD}.wav`, `cc-${MASKED_CARD}.wav`, 'payment.wav']);
  assert.ok(bySource['payment.wav']!.utterances.flatMap((u) => u.events).some((e) => e.redacted === 'card'), 'the queued call ran under the policy');
  assert.equal(bySource['payment.wav']!.streamtags?.metadata, { note: `card ${MASKED_CARD}` });
  assert.equal(bySource[`card-${MASKED_CARD}.wav`]!.streamtags?.metadata, { card: MASKED_CARD, agent: '[NAME]', queue: 'billing', note: "caller's card #### #### #### ####", cvv: '###' });
  assert.equal(bySource[`cc-${MASKED_CARD}.wav`]!.streamtags?.metadata, { note: `card ${MASKED_CARD}` });
  assert.equal((await search({ 'meta.card': CARD })).body, [], 'meta.card= finds no card');
  assert.equal((await search({ 'meta.queue': 'billing', fields: 'filename' })).body.map((r: { filename: string }) => r.filename), [`card-${MASKED_CARD}.wav`]);

  child.proc.kill('SIGTERM');
  await child.exited;
  const n = [...needles(call), { what: 'the agent\'s name', bytes: Buffer.from(AGENT) }];
  const found = allFiles(dataDir).flatMap((file) => findNeedles(path.relative(dataDir, file), readFileSync(file), n));
  found.push(...findNeedles('logs', Buffer.from(child.output(), 'utf8'), n));
  assert.equal(found, []);
});

test.run();
