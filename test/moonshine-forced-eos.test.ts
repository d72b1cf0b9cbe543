/**
 * The safeguard "forced past an immediate end-of-sequence" (src/asr/engines/moonshine.ts) on real speech
 * the model answers with nothing: 1.5 s of the shared meeting trn01 (18.0–19.5 s, holding a short turn
 * of a quiet speaker; the model gives end-of-sequence first with p ≈ 0.94). The audio is encoded once: the forcing happens in
 * the first decode, not in a second one.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import * as ort from 'onnxruntime-node';
import { toEngineDesc } from '../src/asr/binding.js';
import type { MoonshineDesc, PocketSphinxDesc } from '../src/asr/engines/engine.js';
import { loadMoonshineEngine } from '../src/asr/engines/moonshine.js';
import { loadPocketSphinx } from '../src/asr/engines/pocketsphinx.js';
import { loadModelRegistry } from '../src/asr/models.js';
import { loadMoonshine, type MoonshineModel } from '../src/asr/moonshine/model.js';
import { loadConfig } from '../src/config.js';
import { meetingWav } from './fixtures/meetings.js';

const registry = loadModelRegistry(loadConfig({}).modelsFile);
const spec = registry.resolve('en-us-moonshine', 16000);

/** A stretch of a shared meeting as 16 kHz mono s16. */
function clip(id: string, start: number, sec: number): Int16Array {
  const b = execFileSync('sox', [meetingWav(id), '-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', '-', 'trim', String(start), String(sec)]);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2);
}
const quietSpeech = () => clip('trn01', 18, 1.5); // the RTTM's turn of MEE068 at 18.705–19.669 s
const float = (s: Int16Array) => Float32Array.from(s, (v) => v / 32768);

/** Counts the encoder's runs (the calls that feed `input_values`) while fn runs. */
async function encoderRuns(fn: () => Promise<unknown>): Promise<number> {
  const proto = (ort.InferenceSession as unknown as { prototype: { run: (...a: unknown[]) => Promise<unknown> } }).prototype;
  const run = proto.run;
  let n = 0;
  proto.run = function (this: unknown, ...a: unknown[]) {
    if (a[0] && typeof a[0] === 'object' && 'input_values' in (a[0] as object)) n++;
    return run.apply(this, a);
  };
  try {
    await fn();
  } finally {
    proto.run = run;
  }
  return n;
}

const t = suite('moonshine: forced past an immediate end-of-sequence');
let model: MoonshineModel;
t.before(async () => {
  model = await loadMoonshine(spec.dir);
});
t.after(async () => {
  await model?.release();
});

t('the model ends at once on this real speech; forcing past it says so and writes tokens', async () => {
  const pcm = float(quietSpeech());
  const plain = await model.decode(pcm, { maxTokens: 12 });
  assert.is(plain.tokens.length, 0);
  assert.is(plain.forced, false);
  assert.ok(Math.exp(plain.firstEosLogprob) > 0.5, `p(eos) ${Math.exp(plain.firstEosLogprob)}`);
  const forced = await model.decode(pcm, { maxTokens: 12, forcePastEos: true });
  assert.is(forced.forced, true);
  assert.ok(forced.tokens.length > 0, 'forced: no tokens');
  assert.is(forced.firstEosLogprob, plain.firstEosLogprob);
  // Where the first token is not end-of-sequence, forcing changes nothing.
  const speech = float(clip('trn03', 2, 3));
  const a = await model.decode(speech, { maxTokens: 24 });
  const b = await model.decode(speech, { maxTokens: 24, forcePastEos: true });
  assert.ok(a.tokens.length > 0, 'trn03 at 2 s: no tokens');
  assert.is(b.forced, false);
  assert.equal(b.tokens, a.tokens);
});

t('the engine encodes such an utterance once, and notes the forcing', async () => {
  const engine = await loadMoonshineEngine(toEngineDesc(spec) as MoonshineDesc, { aligner: loadPocketSphinx });
  const req = { samples: quietSpeech(), abort: new Int32Array(new SharedArrayBuffer(4)), aligner: toEngineDesc(registry.aligner(spec, 16000)!) as PocketSphinxDesc };
  let notes: string[] = [];
  const runs = await encoderRuns(async () => {
    notes = (await engine.decode(req)).notes;
  });
  assert.ok(notes.includes('forced-past-eos'), notes.join(', '));
  assert.is(runs, 1);
});

t.run();
