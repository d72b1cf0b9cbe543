import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { vetModel } from '../src/asr/binding.js';
import { createModelRegistry, loadModelRegistry, type ModelSpec } from '../src/asr/models.js';
import { createAsrPool } from '../src/asr/pool.js';
import { loadConfig, PACKAGE_ROOT } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';

const EN = '/usr/share/pocketsphinx/model/en-us';
const TIDIGITS = '/usr/share/pocketsphinx/test/data/tidigits';
const wide = { name: 'en-us', aliases: ['en'], engine: 'pocketsphinx', sampleRate: 16000, inputRate: 16000, hmm: `${EN}/en-us`, dict: `${EN}/cmudict-en-us.dict`, lm: `${EN}/en-us.lm.bin` };
// A real 8 kHz model from pocketsphinx-testdata stands in for the telephony model.
const narrow = { name: 'digits-8k', engine: 'pocketsphinx', sampleRate: 8000, hmm: `${TIDIGITS}/hmm`, dict: `${TIDIGITS}/lm/tidigits.dic`, lm: `${TIDIGITS}/lm/tidigits.lm.bin` };

const m = suite('asr models');
let dir = '';
m.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-models-'));
});
m.after(() => rmSync(dir, { recursive: true, force: true }));

/** A full ModelSpec from the fields a test cares about. */
const spec = (o: Record<string, unknown>) => ({ aliases: [], description: '', options: {}, auto: [], dir: '', align: {}, ...o }) as unknown as ModelSpec;

async function rejection(p: Promise<unknown>): Promise<VoxdexError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VoxdexError);
  return err as VoxdexError;
}

m('the shipped registry lists auto first, then en-us-moonshine, and resolves aliases', () => {
  const reg = loadModelRegistry(path.join(PACKAGE_ROOT, 'models', 'registry.json'));
  assert.equal(reg.list().slice(0, 3), ['auto', 'en-us-moonshine', 'en-us']);
  assert.is(reg.resolve('en', 16000).name, 'en-us');
  assert.is(reg.resolve('en-us', 8000).name, 'en-us');
  assert.is(reg.resolve('moonshine', 8000).name, 'en-us-moonshine');
  assert.is(reg.resolve(undefined, 44100).dir, path.join(PACKAGE_ROOT, 'models', 'build', 'moonshine-int8'));
});

m('auto picks the telephony model for audio at 11025 Hz or less, and the wideband one above', () => {
  const reg = createModelRegistry({ default: 'auto', models: [wide, narrow] }, 'test.json');
  assert.is(reg.resolve('auto', 8000).name, 'digits-8k');
  assert.is(reg.resolve('auto', 11025).name, 'digits-8k');
  assert.is(reg.resolve('auto', 16000).name, 'en-us');
  assert.equal(reg.list(), ['auto', 'en-us', 'digits-8k']);
});

m('auto picks a telephony model that decodes upsampled 8 kHz audio at 16 kHz by its inputRate', () => {
  const upsampled = { ...narrow, sampleRate: 16000, inputRate: 8000 };
  const reg = createModelRegistry({ default: 'auto', models: [wide, upsampled] }, 'test.json');
  assert.is(reg.resolve('auto', 8000).name, 'digits-8k');
  assert.is(reg.resolve('auto', 16000).name, 'en-us');
  assert.throws(() => createModelRegistry({ models: [{ ...wide, inputRate: 22050 }] }, 'r.json'), /models\[0\].inputRate must be an integer between 8000 and sampleRate \(16000\)/);
});

m('the installed registry sends every rate to Moonshine, aligned by en-us-8k for 8 kHz calls and by en-us above', () => {
  const reg = loadModelRegistry(loadConfig({}).modelsFile);
  for (const rate of [8000, 11025, 16000, 44100]) assert.is(reg.resolve('auto', rate).name, 'en-us-moonshine');
  const ms = reg.resolve('auto', 8000);
  const narrowAligner = reg.aligner(ms, 8000)!;
  assert.is(narrowAligner.hmm, path.join(PACKAGE_ROOT, 'models', 'build', 'en-us-8k'));
  assert.is(narrowAligner.lm, '');
  assert.is(reg.aligner(ms, 16000)!.hmm, `${EN}/en-us`);
  assert.equal(reg.eager().map((s) => s.name), ['en-us-moonshine', 'en-us-8k-align', 'en-us-align']);
});

m('a moonshine model whose files are missing is not listed and auto falls back to the band\'s PocketSphinx model', () => {
  const ms = { name: 'ms', engine: 'moonshine', sampleRate: 16000, inputRate: 8000, auto: ['narrowband', 'wideband'], dir: path.join(dir, 'none'), align: { wideband: 'en-us' } };
  const reg = createModelRegistry({ models: [ms, wide, narrow] }, 'test.json');
  assert.is(reg.resolve('auto', 8000).name, 'digits-8k');
  assert.is(reg.resolve('auto', 16000).name, 'en-us');
  assert.throws(() => reg.resolve('ms', 8000), (e: VoxdexError) => e.code === 'MODEL_LOAD_FAILED' && /encoder_model\.ort does not exist; run `bash models\/fetch-moonshine\.sh && bash models\/fold-moonshine\.sh && bash models\/quantize-moonshine\.sh`/.test(e.message));
  assert.throws(() => createModelRegistry({ models: [{ ...ms, align: { wideband: 'nope' } }, wide] }, 'r.json'), /align.wideband "nope" names no PocketSphinx model/);
  assert.throws(() => createModelRegistry({ models: [{ ...ms, sampleRate: 8000 }] }, 'r.json'), /sampleRate must be 16000 for a moonshine model/);
});

m('auto falls back to the wideband model when the telephony model is not built', () => {
  const reg = createModelRegistry({ models: [wide, { ...narrow, hmm: path.join(dir, 'not-built') }] }, 'test.json');
  assert.is(reg.resolve('auto', 8000).name, 'en-us');
  assert.equal(reg.list(), ['auto', 'en-us']);
  assert.throws(() => reg.resolve('digits-8k', 8000), (e: VoxdexError) => e.code === 'MODEL_LOAD_FAILED' && e.message.includes(`${path.join(dir, 'not-built')} does not exist`));
});

m('relative model paths are relative to the package root', () => {
  const reg = createModelRegistry({ models: [{ ...wide, hmm: 'models/build/x' }] }, 'test.json', '/opt/voxdex');
  assert.is(reg.specs()[0]!.hmm, '/opt/voxdex/models/build/x');
});

m('rejects a malformed registry with MODEL_LOAD_FAILED naming the field', () => {
  assert.throws(() => createModelRegistry({ models: [{ ...wide, sampleRate: 'x' }] }, 'r.json'), /models file r.json: models\[0\].sampleRate must be an integer/);
  assert.throws(() => createModelRegistry({ models: [wide, { ...narrow, name: 'en' }] }, 'r.json'), /"en" is used twice/);
  assert.throws(() => createModelRegistry({ models: [{ ...wide, options: { beam: '1' } }] }, 'r.json'), /options must map engine flags/);
  writeFileSync(path.join(dir, 'bad.json'), '{ nope');
  assert.throws(() => loadModelRegistry(path.join(dir, 'bad.json')), (e: VoxdexError) => e.code === 'MODEL_LOAD_FAILED' && /is not readable JSON/.test(e.message));
});

m('a model with a corrupt language model fails with MODEL_LOAD_FAILED and the engine\'s reason', async () => {
  const lm = path.join(dir, 'corrupt.lm.bin');
  writeFileSync(lm, 'this is not a language model');
  const err = await rejection(vetModel(spec({ ...wide, name: 'bad-lm', lm })));
  assert.is(err.code, 'MODEL_LOAD_FAILED');
  assert.match(err.message, /model bad-lm: PocketSphinx could not load .*corrupt\.lm\.bin is not a dump file/);
});

m('a corrupt acoustic model (on which the library calls exit) fails with MODEL_LOAD_FAILED, not a crash', async () => {
  const hmm = path.join(dir, 'hmm');
  cpSync(`${EN}/en-us`, hmm, { recursive: true });
  writeFileSync(path.join(hmm, 'mdef'), Buffer.alloc(1000, 0x5a));
  const bad = spec({ ...wide, name: 'bad-hmm', hmm });
  const pool = createAsrPool({ threads: 1 });
  try {
    const err = await rejection(pool.ready([bad]));
    assert.is(err.code, 'MODEL_LOAD_FAILED');
    assert.match(err.message, /^model bad-hmm: PocketSphinx aborted while loading hmm=.*\/hmm \(.*mdef/);
    const again = await rejection(pool.decode(bad, new Int16Array(16000), new Int32Array(new SharedArrayBuffer(4))));
    assert.is(again.code, 'MODEL_LOAD_FAILED');
  } finally {
    await pool.close();
  }
});

m('rejects unknown engine options with MODEL_LOAD_FAILED', async () => {
  const err = await rejection(vetModel(spec({ ...wide, name: 'bad-opt', options: { '-no_such_flag': '1' } })));
  assert.match(err.message, /^model bad-opt: invalid PocketSphinx options/);
});

m.run();
