/**
 * A live call whose server is killed (kill -9) mid-call: what it left holds no plain audio (the
 * recording is sealed as it is written); after the restart the call is a request made from the
 * audio received before the kill, completed once — one job with the id given in `started`, one
 * callback — and nothing is left in `live/`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SqliteTenancy } from '../../src/tenancy/sqlite-tenancy.js';
import { tenancyDbPath } from '../../src/tenancy/tenancy.js';
import { ofType, streamCall, wavFrames } from '../fixtures/live-client.js';
import { allFiles } from '../fixtures/redaction-call.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { makePromptCall, PROMPT_CALL } from '../fixtures/prompt-call.js';
import { getJson, sleep, startChild, startReceiver, waitHealthy, type Child } from './harness.js';

const crash = suite('e2e: live call, kill -9');
let dir = '';
let child: Child | undefined;

crash.before(() => {
  dir = makeTempDir('voxdex-live-crash-');
});
crash.after(() => {
  child?.proc.kill('SIGKILL');
  removeDir(dir);
});

crash('a call interrupted by kill -9 completes from what was received, exactly once, after the restart', async () => {
  const dataDir = path.join(dir, 'data');
  const t = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.close();
  const call = await makePromptCall(dir);
  const rx = await startReceiver();
  try {
    child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '1' });
    await waitHealthy(child.url, 120_000);
    const ws = `${child.url.replace('http', 'ws')}/transcribe/stream?token=${token}&encoding=mulaw&channels=2&callback=${encodeURIComponent(`${rx.url}/cb`)}`;
    // The first 8 s of the call in real time, then the server dies before the call ends.
    const running = streamCall(ws, call, { stopAfterSec: 8, end: 'none' });
    let requestid: string | undefined;
    const started = Date.now();
    while (Date.now() - started < 30_000) {
      await sleep(100);
      const list = await getJson(`${child.url}/live/calls?token=${token}`);
      const c = list.body.calls?.[0];
      requestid = c?.requestid;
      if (c && c.audiosecs >= 8) break;
    }
    assert.ok(requestid, 'the call is listed while in progress');
    child.proc.kill('SIGKILL');
    await child.exited;
    const r = await running;
    assert.is(ofType(r, 'started')[0].requestid, requestid);
    // What the crash left is sealed: no stretch of the call's audio is in the data dir in plain form.
    const { data } = wavFrames(call);
    const windows = [1, 3, 5, 7].map((sec) => data.subarray(sec * 16000, sec * 16000 + 64));
    const left = allFiles(dataDir).filter((f) => windows.some((w) => readFileSync(f).indexOf(w) >= 0));
    assert.equal(left, []);
    assert.ok(allFiles(path.join(dataDir, 'live')).length > 0, 'the call is in live/');

    child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '1' });
    let doc: any;
    for (let i = 0; i < 1200 && !doc; i++) {
      const got = await getJson(`${child.url}/transcribe/${requestid}/result?token=${token}`);
      if (got.status === 200) doc = got.body;
      else await sleep(100);
    }
    assert.ok(doc, 'the interrupted call has a result');
    assert.is(doc.requestid, requestid);
    assert.ok(doc.audiosecs >= 7.9 && doc.audiosecs <= 9.9, `audiosecs ${doc.audiosecs}`);
    // Channel 0's prompts end by 7.4 s: all of them were received before the kill.
    const ch0 = doc.utterances.filter((u: any) => u.metadata.channel === 0).flatMap((u: any) => u.events.map((e: any) => e.word)).join(' ');
    assert.is(ch0, PROMPT_CALL.channels[0]!.prompts.map((p) => PROMPT_CALL.text[p]).join(' '));
    assert.equal(readdirSync(path.join(dataDir, 'live')), []);
    for (let i = 0; i < 100 && rx.received.length === 0; i++) await sleep(100);
    await sleep(1500);
    assert.is(rx.received.filter((x) => x.headers['x-voxdex-request-id'] === requestid).length, 1, 'one callback');
    const recent = await getJson(`${child.url}/transcribe/requests?token=${token}`);
    assert.is(JSON.stringify(recent.body).split(requestid!).length - 1, 1, 'one request with that id');
  } finally {
    await rx.close();
  }
  child.proc.kill('SIGTERM');
  await child.exited;
  child = undefined;
});

crash.run();
