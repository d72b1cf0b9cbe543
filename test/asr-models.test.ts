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

async function rejection(p: Promise<unknown>): Promise<VoxdexError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VoxdexError);
  return err as VoxdexError;
}

m('the shipped registry lists auto first, then en-us, and resolves aliases', () => {
  const reg = loadModelRegistry(path.join(PACKAGE_ROOT, 'models', 'registry.json'));
  assert.equal(reg.list().slice(0, 2), ['auto', 'en-us']);
  assert.is(reg.resolve('en', 16000).name, 'en-us');
  assert.is(reg.resolve('en-us', 8000).name, 'en-us');
  assert.is(reg.resolve(undefined, 44100).hmm, `${EN}/en-us`);
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

m('the installed registry sends 8 kHz calls to en-us-8k and 16 kHz audio to en-us', () => {
  const reg = loadModelRegistry(loadConfig({}).modelsFile);
  assert.is(reg.resolve('auto', 8000).name, 'en-us-8k');
  assert.is(reg.resolve('auto', 16000).name, 'en-us');
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
  const err = await rejection(vetModel({ ...wide, name: 'bad-lm', lm, aliases: [], description: '', options: {} } as ModelSpec));
  assert.is(err.code, 'MODEL_LOAD_FAILED');
  assert.match(err.message, /model bad-lm: PocketSphinx could not load .*corrupt\.lm\.bin is not a dump file/);
});

m('a corrupt acoustic model (on which the library calls exit) fails with MODEL_LOAD_FAILED, not a crash', async () => {
  const hmm = path.join(dir, 'hmm');
  cpSync(`${EN}/en-us`, hmm, { recursive: true });
  writeFileSync(path.join(hmm, 'mdef'), Buffer.alloc(1000, 0x5a));
  const spec = { ...wide, name: 'bad-hmm', hmm, aliases: [], description: '', options: {} } as ModelSpec;
  const pool = createAsrPool({ threads: 1 });
  try {
    const err = await rejection(pool.ready([spec]));
    assert.is(err.code, 'MODEL_LOAD_FAILED');
    assert.match(err.message, /^model bad-hmm: PocketSphinx aborted while loading hmm=.*\/hmm \(.*mdef/);
    const again = await rejection(pool.decode(spec, new Int16Array(16000), new Int32Array(new SharedArrayBuffer(4))));
    assert.is(again.code, 'MODEL_LOAD_FAILED');
  } finally {
    await pool.close();
  }
});

m('rejects unknown engine options with MODEL_LOAD_FAILED', async () => {
  const err = await rejection(vetModel({ ...wide, name: 'bad-opt', aliases: [], description: '', options: { '-no_such_flag': '1' } } as ModelSpec));
  assert.match(err.message, /^model bad-opt: invalid PocketSphinx options/);
});

m.run();
