/**
 * models/quantize-moonshine.sh (the int8 model, en-us-moonshine-int8) and what it writes on real speech.
 * The installed folded and int8 files are copied to a temp dir so the real ones are never touched.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { loadMoonshine, type MoonshineModel } from '../src/asr/moonshine/model.js';
import { loadConfig, PACKAGE_ROOT } from '../src/config.js';
import { normalizeWords, wordDistance } from '../bench/lib/wer.js';

const SCRIPT = path.join(PACKAGE_ROOT, 'models', 'quantize-moonshine.sh');
const FOLDED = path.join(PACKAGE_ROOT, 'models', 'build', 'moonshine-folded');
const INT8 = path.join(PACKAGE_ROOT, 'models', 'build', 'moonshine-int8');
const DATA = '/usr/share/pocketsphinx/test/data';
const quantizeInto = (src: string, out: string) =>
  spawnSync('bash', [SCRIPT], { cwd: PACKAGE_ROOT, env: { ...process.env, VOXDEX_MOONSHINE_FOLDED_DIR: src, VOXDEX_MOONSHINE_INT8_DIR: out }, encoding: 'utf8' });
const sha256 = (file: string) => spawnSync('sha256sum', [file], { encoding: 'utf8' }).stdout.slice(0, 64);

const q = suite('moonshine int8 model: derived at install');
let dir = '';
q.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-int8-'));
});
q.after(() => rmSync(dir, { recursive: true, force: true }));

q('the default model is the int8 one; the float graphs stay selectable by name', () => {
  const reg = loadModelRegistry(loadConfig({}).modelsFile);
  for (const rate of [8000, 16000]) {
    assert.is(reg.resolve(undefined, rate).name, 'en-us-moonshine');
    assert.is(reg.resolve(undefined, rate).dir, INT8);
  }
  assert.is(reg.resolve('moonshine-int8', 8000).name, 'en-us-moonshine');
  assert.is(reg.resolve('en-us-moonshine-float', 8000).dir, FOLDED);
  assert.is(reg.resolve('moonshine-float', 16000).name, 'en-us-moonshine-float');
});

q('int8 files with the recorded checksums are kept without quantizing again', () => {
  const out = path.join(dir, 'cached');
  cpSync(INT8, out, { recursive: true });
  const r = quantizeInto(FOLDED, out);
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout, '');
});

q('a source that is not the folded model fails with a clear message and installs nothing', () => {
  const src = path.join(dir, 'not-folded');
  mkdirSync(src);
  for (const n of ['encoder_model.onnx', 'decoder_model_merged.onnx', 'tokenizer.bin', 'LICENSE']) writeFileSync(path.join(src, n), `not a model: ${n}`);
  const out = path.join(dir, 'bad');
  const r = quantizeInto(src, out);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /voxdex: quantizing the Moonshine model failed; nothing was installed/);
  assert.not.ok(existsSync(out));
});

q('a missing folded model names the step to run first', () => {
  const r = quantizeInto(path.join(dir, 'nowhere'), path.join(dir, 'none'));
  assert.is(r.status, 1);
  assert.match(r.stderr, /nowhere\/encoder_model\.onnx is missing; run bash models\/fold-moonshine\.sh first/);
});

q('a damaged int8 file is derived again, reproducibly, to the recorded checksum', () => {
  const out = path.join(dir, 'damaged');
  cpSync(INT8, out, { recursive: true });
  writeFileSync(path.join(out, 'decoder_model_merged.onnx'), 'damaged');
  const r = quantizeInto(FOLDED, out);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /int8 Moonshine model installed/);
  assert.is(sha256(path.join(out, 'decoder_model_merged.onnx')), '479c5c05662fb4d8bec35de0fa1c305f305f3c6504246d0fe6262845ff7da4e6');
  assert.is(sha256(path.join(out, 'encoder_model.onnx')), sha256(path.join(INT8, 'encoder_model.onnx')));
  // The source is read, never written beside (the quantizer's scratch files go nowhere near it).
  assert.equal(readFileSync(path.join(FOLDED, 'tokenizer.bin')), readFileSync(path.join(out, 'tokenizer.bin')));
});

q.run();

const s = suite('moonshine int8 model: against the float model on real speech');
let float: MoonshineModel;
let int8: MoonshineModel;
s.before(async () => {
  float = await loadMoonshine(FOLDED);
  int8 = await loadMoonshine(INT8);
});
s.after(async () => {
  await float?.release();
  await int8?.release();
});

function speech(file: string): Float32Array {
  if (!existsSync(file)) throw new Error(`${file} is missing (Debian package pocketsphinx-testdata)`);
  const raw = execFileSync('sox', [file, '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '16000', '-c', '1', '-']);
  const s16 = new Int16Array(raw.buffer, raw.byteOffset, raw.length / 2);
  return Float32Array.from(s16, (v) => v / 32768);
}

s('the int8 model writes what the float model writes on real read speech (LibriVox, cards)', async () => {
  const files = [
    ...['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`)),
    ...[1, 3, 5].map((n) => path.join(DATA, 'cards', `00${n}.wav`)),
  ];
  let errors = 0;
  let words = 0;
  for (const f of files) {
    const pcm = speech(f);
    const opts = { maxTokens: Math.ceil((pcm.length / 16000) * 8) };
    const a = float.tokenizer.decode((await float.decode(pcm, opts)).tokens.map((t) => t.id));
    const b = int8.tokenizer.decode((await int8.decode(pcm, opts)).tokens.map((t) => t.id));
    errors += wordDistance(normalizeWords(a), normalizeWords(b));
    words += normalizeWords(a).length;
  }
  assert.ok(words > 60, `only ${words} words`);
  assert.is(errors, 0, `${errors} of ${words} words differ from the float model's`);
});

s('the int8 model is a real int8 graph: about half the float decoder on disk', () => {
  const size = (d: string) => readFileSync(path.join(d, 'decoder_model_merged.onnx')).length;
  assert.ok(size(INT8) < 0.5 * size(FOLDED), `int8 ${size(INT8)} B, float ${size(FOLDED)} B`);
});

s.run();
