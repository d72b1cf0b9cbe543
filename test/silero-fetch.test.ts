/**
 * models/fetch-silero.sh: the VAD arrives only with the published checksums. pip is pointed at a local folder
 * (PIP_NO_INDEX / PIP_FIND_LINKS) holding a wheel of the right name with a tampered model inside; the
 * installed model is copied to a temp dir so the real one is never touched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../src/config.js';
import { SILERO_DIR } from '../src/vad/silero.js';

const SCRIPT = path.join(PACKAGE_ROOT, 'models', 'fetch-silero.sh');
const f = suite('silero vad fetch');
let dir = '';
let fakeIndex = '';
f.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-silero-fetch-'));
  fakeIndex = path.join(dir, 'index');
  mkdirSync(fakeIndex);
  const py = spawnSync('python3', ['-c', `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('silero_vad/data/silero_vad.onnx', b'tampered')
    z.writestr('silero_vad-6.2.3.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: silero-vad\\nVersion: 6.2.3\\n')
    z.writestr('silero_vad-6.2.3.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: voxdex-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
    z.writestr('silero_vad-6.2.3.dist-info/RECORD', '')
`, path.join(fakeIndex, 'silero_vad-6.2.3-py3-none-any.whl')]);
  assert.is(py.status, 0, String(py.stderr));
});
f.after(() => rmSync(dir, { recursive: true, force: true }));

const fetchInto = (out: string) =>
  spawnSync('bash', [SCRIPT], { cwd: PACKAGE_ROOT, env: { ...process.env, VOXDEX_SILERO_DIR: out, PIP_NO_INDEX: '1', PIP_FIND_LINKS: fakeIndex }, encoding: 'utf8' });

f('a wheel whose sha256 differs from the published one fails the install and installs nothing', () => {
  const out = path.join(dir, 'fresh');
  const r = fetchInto(out);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /silero_vad-6\.2\.3-py3-none-any\.whl: sha256 [0-9a-f]{64}, expected 7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8; refusing to install it/);
  assert.not.ok(existsSync(out));
});

f('an installed model with the right sha256 is kept without downloading; a damaged one is not', () => {
  const out = path.join(dir, 'cached');
  cpSync(SILERO_DIR, out, { recursive: true });
  const ok = fetchInto(out);
  assert.is(ok.status, 0, ok.stderr);
  assert.is(ok.stdout, '');
  writeFileSync(path.join(out, 'silero_vad.onnx'), 'damaged');
  const bad = fetchInto(out); // the only wheel pip can find is the tampered one
  assert.is(bad.status, 1);
  assert.match(bad.stderr, /refusing to install it/);
});

f.run();
