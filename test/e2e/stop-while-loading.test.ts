/**
 * A SIGTERM in the first seconds after `voxdex serve` starts, while the ASR threads are still loading
 * their models, is a graceful stop like any other (exit 0): the pool lets the loads finish before it
 * ends its threads (a thread ended inside ONNX Runtime's session creation aborted the process).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { sleep, startChild } from './harness.js';

const t = suite('e2e: stop while the models load');
let dir = '';

t.before(() => {
  dir = makeTempDir('voxdex-stop-loading-');
});
t.after(() => removeDir(dir));

t('SIGTERM at any moment of the model load exits 0', async () => {
  const codes: string[] = [];
  for (const [n, afterMs] of [500, 1000, 1500, 2000, 3000].entries()) {
    const child = await startChild(path.join(dir, String(n)), { VOXDEX_ASR_THREADS: '2' });
    await sleep(afterMs);
    child.proc.kill('SIGTERM');
    const code = await child.exited;
    codes.push(`${afterMs} ms: ${code ?? child.proc.signalCode}`);
  }
  assert.equal(codes, codes.map((c) => `${c.split(':')[0]}: 0`));
});

t.run();
