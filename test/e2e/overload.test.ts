/** Admission control: over the queue limit a submission is 503 OVERLOADED with Retry-After; accepted work is never dropped. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeCall, makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createService } from '../../src/service.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const overload = suite('e2e: overload');
let dir = '';
let svc: Service | undefined;

overload.before(() => {
  dir = makeTempDir('voxdex-overload-');
});
overload.after(async () => {
  await svc?.close();
  removeDir(dir);
});

overload('answers /health 503 NOT_READY until the models are loaded, then 200', async () => {
  const config = loadConfig({ VOXDEX_DATA_DIR: path.join(dir, 'data'), VOXDEX_PORT: '0', VOXDEX_ASR_THREADS: '1', VOXDEX_MAX_QUEUED_JOBS: '1', VOXDEX_MIN_FREE_DISK_MIB: '0' });
  svc = await createService(config, { log: silentLogger });
  const early = await getJson(`${svc.url}/health`);
  assert.is(early.status, 503);
  assert.is(early.body.error.code, 'NOT_READY');
  assert.ok(Number(early.headers.get('retry-after')) > 0);
  await svc.ready;
  const later = await getJson(`${svc.url}/health`);
  assert.is(later.status, 200);
});

overload('answers 503 OVERLOADED with Retry-After over the queue limit and still finishes every accepted job', async () => {
  svc ??= await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1', VOXDEX_MAX_QUEUED_JOBS: '1' });
  const { token } = await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));
  const call = await makeCall(dir, { seconds: 6, encoding: 'mulaw', name: 'call.wav' });
  const accepted: string[] = [];
  let refused: Awaited<ReturnType<typeof upload>> | undefined;
  for (let i = 0; i < 6 && !refused; i++) {
    const r = await upload(svc.url, { file: call, fields: { token } });
    if (r.status === 200) accepted.push(r.body.requestid);
    else refused = r;
  }
  assert.ok(refused, 'a submission over the limit is refused');
  assert.is(refused!.status, 503);
  assert.is(refused!.body.error.code, 'OVERLOADED');
  assert.is(refused!.headers.get('retry-after'), '60');
  assert.ok(accepted.length >= 2);
  for (const id of accepted) assert.is((await waitResult(svc.url, token, id)).status, 200);
});

overload.run();
