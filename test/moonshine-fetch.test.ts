/**
 * models/fetch-moonshine.sh: the model arrives only with the published checksums. pip is pointed at a
 * local folder (its own PIP_NO_INDEX / PIP_FIND_LINKS settings) holding a wheel of the right name but
 * the wrong contents; the installed model is copied to a temp dir so the real one is never touched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PACKAGE_ROOT } from '../src/config.js';

const SCRIPT = path.join(PACKAGE_ROOT, 'models', 'fetch-moonshine.sh');
const INSTALLED = path.join(PACKAGE_ROOT, 'models', 'build', 'moonshine-base-en');
const f = suite('moonshine model fetch');
let dir = '';
let fakeIndex = '';
f.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-fetch-'));
  fakeIndex = path.join(dir, 'index');
  mkdirSync(fakeIndex);
  // A zip named as the official wheel, with a tampered decoder inside.
  const zipDir = path.join(dir, 'zip', 'moonshine_cpp-0.1.4.data', 'purelib', 'moonshine_cpp', 'models', 'base-en');
  mkdirSync(zipDir, { recursive: true });
  for (const n of ['encoder_model.ort', 'decoder_model_merged.ort', 'tokenizer.bin']) writeFileSync(path.join(zipDir, n), `tampered ${n}`);
  // pip checks a wheel's metadata before it saves it.
  const info = path.join(dir, 'zip', 'moonshine_cpp-0.1.4.dist-info');
  mkdirSync(info);
  writeFileSync(path.join(info, 'METADATA'), 'Metadata-Version: 2.1\nName: moonshine-cpp\nVersion: 0.1.4\n');
  writeFileSync(path.join(info, 'WHEEL'), 'Wheel-Version: 1.0\nGenerator: voxdex-test\nRoot-Is-Purelib: true\nTag: py3-none-manylinux2014_x86_64\n');
  writeFileSync(path.join(info, 'RECORD'), '');
  const wheel = path.join(fakeIndex, 'moonshine_cpp-0.1.4-py3-none-manylinux2014_x86_64.whl');
  const py = spawnSync('python3', ['-c', `import shutil,sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])`, wheel.replace(/\.whl$/, ''), path.join(dir, 'zip')]);
  assert.is(py.status, 0, String(py.stderr));
  cpSync(wheel.replace(/\.whl$/, '.zip'), wheel);
  rmSync(wheel.replace(/\.whl$/, '.zip'));
});
f.after(() => rmSync(dir, { recursive: true, force: true }));

const fetchInto = (out: string) =>
  spawnSync('bash', [SCRIPT], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, VOXDEX_MOONSHINE_DIR: out, PIP_NO_INDEX: '1', PIP_FIND_LINKS: fakeIndex },
    encoding: 'utf8',
  });

f('a wheel whose sha256 differs from the published one fails the install and installs nothing', () => {
  const out = path.join(dir, 'fresh');
  const r = fetchInto(out);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /moonshine_cpp-0\.1\.4-py3-none-manylinux2014_x86_64\.whl: sha256 [0-9a-f]{64}, expected f7afc662bdd3ef98815ee3b940438b456e77d5a77cea5396ed9c572785412ebd; refusing to install it/);
  assert.not.ok(existsSync(out));
});

f('an installed model with the right checksums is kept without downloading anything', () => {
  const out = path.join(dir, 'cached');
  cpSync(INSTALLED, out, { recursive: true });
  const r = fetchInto(out);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, '');
});

f('a damaged installed file is noticed and replaced only by a verified download', () => {
  const out = path.join(dir, 'damaged');
  cpSync(INSTALLED, out, { recursive: true });
  writeFileSync(path.join(out, 'tokenizer.bin'), 'damaged');
  const r = fetchInto(out); // the only wheel pip can find is the tampered one
  assert.is(r.status, 1);
  assert.match(r.stderr, /tokenizer\.bin: sha256 mismatch/);
  assert.match(r.stderr, /refusing to install it/);
});

const FOLD = path.join(PACKAGE_ROOT, 'models', 'fold-moonshine.sh');
const FOLDED = path.join(PACKAGE_ROOT, 'models', 'build', 'moonshine-folded');
const foldInto = (src: string, out: string) =>
  spawnSync('bash', [FOLD], { cwd: PACKAGE_ROOT, env: { ...process.env, VOXDEX_MOONSHINE_DIR: src, VOXDEX_MOONSHINE_FOLDED_DIR: out }, encoding: 'utf8' });

f('folded files with the recorded checksums are kept without folding again', () => {
  const out = path.join(dir, 'folded-cached');
  cpSync(FOLDED, out, { recursive: true });
  const r = foldInto(INSTALLED, out);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, '');
});

f('a source that is not the official model fails the fold with a clear message and installs nothing', () => {
  const src = path.join(dir, 'not-official');
  mkdirSync(src);
  for (const n of ['encoder_model.ort', 'decoder_model_merged.ort', 'tokenizer.bin', 'LICENSE']) writeFileSync(path.join(src, n), `not a model: ${n}`);
  const out = path.join(dir, 'folded-bad');
  const r = foldInto(src, out);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /voxdex: folding the Moonshine model failed; nothing was installed/);
  assert.not.ok(existsSync(out));
});

f('a folded file that differs from its recorded checksum is folded again from the official files', () => {
  const out = path.join(dir, 'folded-damaged');
  cpSync(FOLDED, out, { recursive: true });
  writeFileSync(path.join(out, 'tokenizer.bin'), 'damaged');
  const r = foldInto(INSTALLED, out);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /folded Moonshine model installed/);
  assert.is(spawnSync('sha256sum', [path.join(out, 'decoder_model_merged.onnx')], { encoding: 'utf8' }).stdout.slice(0, 64), 'fcee885b6f0e6d9a8fe6c30f3112f138bd98e6f79f2ae2d8db4152a13b9b2a33');
});

f.run();
