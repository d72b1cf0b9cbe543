/**
 * The service with Elasticsearch as its transcript index (VOXDEX_ES_URL = VOXDEX_TEST_ES_URL, a REAL
 * node started by scripts/test.sh or `eval "$(bash scripts/elasticsearch.sh start)"`), on a fresh index
 * prefix per run: upload a call, wait for it, find its words over /search with the channel and times
 * of the result document, and DELETE /transcribe/result removes it from the ES index.
 * Without VOXDEX_TEST_ES_URL this file FAILS (never skips).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@elastic/elasticsearch';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeCall, makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const url = process.env.VOXDEX_TEST_ES_URL;
const prefix = `voxdex-e2e-${process.pid}-${Date.now().toString(36)}`;
const es = suite('e2e: service on Elasticsearch');
let dir = '';
let svc: Service | undefined;
let client: Client | undefined;

es.before(async () => {
  dir = makeTempDir('voxdex-e2e-es-');
});

es.after(async () => {
  await svc?.close();
  if (client) {
    await client.indices.delete({ index: `${prefix}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await client.close();
  }
  removeDir(dir);
});

/** Documents stored in this run's ES indices (after a refresh, so that deletes are visible). */
async function esCount(): Promise<number> {
  await client!.indices.refresh({ index: `${prefix}-*` });
  return (await client!.count({ index: `${prefix}-*` })).count;
}

es('uploads a call, finds its words with channel and times via /search on Elasticsearch, and DELETE removes it from ES', async () => {
  assert.ok(
    url,
    'VOXDEX_TEST_ES_URL is not set: run the suite with `bash scripts/test.sh`, or first `eval "$(bash scripts/elasticsearch.sh start)"`',
  );
  client = new Client({ node: url! });
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1', VOXDEX_ES_URL: url!, VOXDEX_ES_INDEX_PREFIX: prefix });
  const token = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  assert.is(await esCount(), 0);

  const call = await makeCall(dir, { seconds: 8, encoding: 'mulaw', name: 'call-es.wav' });
  const up = await upload(svc.url, { file: call, fields: { token, metadata: '{"agent":"alice"}' } });
  assert.is(up.status, 200);
  const id: string = up.body.requestid;
  assert.is((await waitResult(svc.url, token, id)).status, 200);
  const doc = (await (await fetch(`${svc.url}/transcribe/${id}/result?token=${token}`)).json()) as any;
  assert.is(await esCount(), 1, 'the transcript is in the Elasticsearch index');

  // The longest plain word heard on channel 1, and every place the document has it on that channel.
  const events = doc.utterances.flatMap((u: any) => u.events.map((e: any) => ({ ...e, channel: u.metadata.channel })));
  const plain = events.filter((e: any) => /^[a-z]{4,}$/.test(e.word) && e.channel === 1);
  assert.ok(plain.length > 0, `no plain word on channel 1 in ${JSON.stringify(doc.utterances).slice(0, 300)}`);
  const word: string = plain.reduce((a: any, b: any) => (b.word.length > a.word.length ? b : a)).word;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const expected = events
    .filter((e: any) => e.channel === 1 && e.word.toLowerCase() === word)
    .map((e: any) => ({ channel: 1, start: r3(e.start), end: r3(e.end) }))
    .sort((a: any, b: any) => a.start - b.start);

  const found = await getJson(`${svc.url}/search/acme/sales/calls?token=${token}&terms=${word}&channel=1&output=summary`, { headers: { accept: 'application/json' } });
  assert.is(found.status, 200);
  assert.is(found.headers.get('x-total-count'), '1');
  assert.is(found.body.length, 1);
  const row = found.body[0];
  assert.is(row.filename, 'call-es.wav');
  assert.equal(row.metadata, { agent: 'alice' });
  assert.equal(
    row.hits.map((h: any) => ({ channel: h.channel, start: h.start, end: h.end })),
    expected,
  );
  for (const h of row.hits) assert.match(h.text.toLowerCase(), word);
  const count = await getJson(`${svc.url}/search/acme/sales?token=${token}&terms=${word}&output=count&requestid=${id}`);
  assert.is(String(count.body).trim(), '1');

  const del = await getJson(`${svc.url}/transcribe/result?token=${token}&requestid=${id}`, { method: 'DELETE' });
  assert.is(del.status, 200);
  assert.equal(del.body, { requestid: id, deleted: true });
  assert.is(await esCount(), 0, 'the transcript is gone from Elasticsearch');
  const after = await getJson(`${svc.url}/search/acme/sales?token=${token}&terms=${word}&output=count`);
  assert.is(after.status, 200);
  assert.is(String(after.body).trim(), '0');
});

es.run();
