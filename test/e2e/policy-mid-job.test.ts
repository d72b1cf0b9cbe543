/**
 * The policy at the moment of writing (issue 32 item 4; docs/redaction.md, "A policy set while a
 * request runs"): a real payment call is sent without redaction; while the job is mid-ASR its company
 * sets a text policy; the transcript is written redacted, and every byte under the data dir (SQLite
 * files with their -wal/-shm, blobs, the index, the result file) is scanned for the card and the
 * code as numerals and as words: none may be found.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { redactDocument } from '../../src/redact/stage.js';
import { parseSearchOptions } from '../../src/search/search-options.js';
import type { Service } from '../../src/service.js';
import { REDACT_KINDS, type TranscriptDocument } from '../../src/types.js';
import { makeTempDir, makeZip, removeDir } from '../fixtures/make-audio.js';
import { allFiles, cardDocument, findNeedles, makePaymentCall, needles, type PaymentCall } from '../fixtures/redaction-call.js';
import { getJson, readZip, sleep, startInProcess, upload, waitResult } from './harness.js';

const test = suite('e2e: a policy set while a request runs');
let dir = '';
let svc: Service;
let call: PaymentCall;

test.before(async () => {
  dir = makeTempDir('voxdex-policy-mid-job-');
  call = makePaymentCall(dir);
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
});

test.after(async () => {
  await svc?.close();
  removeDir(dir);
});

test('a text policy set mid-ASR: the transcript is stored redacted and no digit of the card is anywhere at rest', async () => {
  const { token } = await svc.tenancy.change((t) => t.addCompany('acme', { org: 'pay', folder: 'calls' }));
  const sent = await upload(svc.url, { file: call.file, fields: { token } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = sent.body.requestid as string;
  // Mid-ASR: the job runs and has recorded some progress, and nothing of it is written yet.
  let job = await svc.store.get(id);
  for (let i = 0; i < 2000 && !(job?.state === 'running' && job.progress > 0); i++) {
    await sleep(20);
    job = await svc.store.get(id);
  }
  assert.is(job?.state, 'running', JSON.stringify(job));
  assert.ok(job!.progress > 0 && job!.progress < 1, `progress ${job!.progress}`);
  assert.equal((await svc.store.items(id)).map((i) => i.state), ['running']);
  await svc.tenancy.change((t) => t.setCompanySettings('acme', { scrub: ['text'] }));

  const done = await waitResult(svc.url, token, id, 600_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const doc = (await getJson(`${svc.url}/transcribe/${id}/result?token=${token}`)).body;
  const events = doc.utterances.filter((u: any) => u.metadata.channel === 1).flatMap((u: any) => u.events);
  assert.ok(events.some((e: any) => e.redacted === 'card'), JSON.stringify(events));
  assert.ok(events.some((e: any) => e.redacted === 'cvv'), JSON.stringify(events));
  await svc.runner.idle();
  const n = needles(call);
  const found = allFiles(path.join(dir, 'data')).flatMap((f) => findNeedles(path.relative(dir, f), readFileSync(f), n));
  assert.equal(found, []);
});

test('an archive: a text policy set after its first call was written — the result zip holds both calls redacted', async () => {
  const { token } = await svc.tenancy.change((t) => t.addCompany('umbrella', { org: 'pay', folder: 'calls' }));
  const zip = await makeZip(dir, 'two-calls.zip', [{ path: call.file, name: 'a.wav' }, { path: call.file, name: 'b.wav' }]);
  const sent = await upload(svc.url, { file: zip, fields: { token } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const id = sent.body.requestid as string;
  let items = await svc.store.items(id);
  for (let i = 0; i < 3000 && items[0]?.state !== 'done'; i++) {
    await sleep(20);
    items = await svc.store.items(id);
  }
  assert.equal(items.map((i) => i.state), ['done', 'running'], 'the first call is written, the second is not');
  await svc.tenancy.change((t) => t.setCompanySettings('umbrella', { scrub: ['text'] }));
  const done = await waitResult(svc.url, token, id, 600_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const result = await fetch(`${svc.url}/transcribe/${id}/result?token=${token}`);
  const files = await readZip(Buffer.from(await result.arrayBuffer()));
  assert.equal(Object.keys(files).sort(), ['a.json', 'b.json']);
  const n = needles(call);
  for (const [name, body] of Object.entries(files)) {
    assert.equal(findNeedles(name, Buffer.from(body), n), []);
    const events = JSON.parse(body).utterances.flatMap((u: any) => u.events);
    assert.ok(events.some((e: any) => e.redacted === 'card'), `${name}: ${body.slice(0, 200)}`);
  }
});

test('a call under a text policy of every kind is written: what the pipeline redacted passes the check at write', async () => {
  const { token } = await svc.tenancy.change((t) => t.addCompany('wayne', { org: 'pay', folder: 'calls' }));
  await svc.tenancy.change((t) => t.setCompanySettings('wayne', { scrub: ['text'], redact: [...REDACT_KINDS] }));
  mkdirSync(path.join(dir, 'personal'));
  const personal = makePaymentCall(path.join(dir, 'personal'), { personal: true });
  const sent = await upload(svc.url, { file: personal.file, fields: { token } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const done = await waitResult(svc.url, token, sent.body.requestid, 600_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const doc = (await getJson(`${svc.url}/transcribe/${sent.body.requestid}/result?token=${token}`)).body;
  const kinds = new Set(doc.utterances.flatMap((u: any) => u.events).map((e: any) => e.redacted).filter(Boolean));
  for (const kind of ['card', 'name', 'email', 'address']) assert.ok(kinds.has(kind), `${kind}: ${[...kinds].join(', ')}`);
});

test('the index refuses a transcript unredacted under the company text policy (UNREDACTED_WRITE), and takes it redacted', async () => {
  await svc.tenancy.change((t) => t.addCompany('globex', { org: 'pay', folder: 'calls' }));
  await svc.tenancy.change((t) => t.setCompanySettings('globex', { scrub: ['text'] }));
  const entry = (document: TranscriptDocument) => ({ tid: 'f'.repeat(32), company: 'globex', org: 'pay', folder: 'calls', datetime: '2026-01-01T00:00:00Z', document });
  const clear = cardDocument('r1');
  let refused: any;
  await svc.index.index([entry(clear)]).catch((err) => (refused = err));
  assert.is(refused?.code, 'UNREDACTED_WRITE');
  assert.not.match(refused.message, /\d{4}/, 'the refusal quotes no digit of what it refused');
  const query = parseSearchOptions({ terms: 'card' }).query;
  assert.is(await svc.index.count({ company: 'globex', org: 'pay', folder: 'calls' }, query), 0);
  const { document } = redactDocument(clear, { scrubtext: true, scrubaudio: false });
  assert.ok(document.utterances[0]!.events.some((e) => e.redacted === 'card'));
  await svc.index.index([entry(document)]);
  assert.is(await svc.index.count({ company: 'globex', org: 'pay', folder: 'calls' }, query), 1);
  // Another company, without a policy: the unredacted document is its own business.
  await svc.tenancy.change((t) => t.addCompany('initech', { org: 'pay', folder: 'calls' }));
  await svc.index.index([{ ...entry(clear), tid: 'e'.repeat(32), company: 'initech' }]);
  assert.is(await svc.index.count({ company: 'initech', org: 'pay', folder: 'calls' }, query), 1);
});

test.run();
