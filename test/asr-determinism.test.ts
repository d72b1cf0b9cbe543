/**
 * The same audio must give the same words, times and confidences whatever else a thread decoded
 * before it, in whatever order, with whatever concurrency (re-runs, resumed jobs and search must agree).
 * Uses the stock en-us model only (a registry of its own), so a telephony model being rebuilt cannot
 * change the words between two decodes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry, type ModelRegistry, type ModelSpec } from '../src/asr/models.js';
import { createAsrPool, type AsrPool } from '../src/asr/pool.js';
import { createTranscriber, type TranscribeResult } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import { toChannelPcm } from '../src/audio/resample.js';
import { segmentSamples } from '../src/audio/segment.js';
import type { DecodedAudio } from '../src/types.js';

const SOUNDS = '/usr/share/asterisk/sounds/en_US_f_Allison';
const EN_US = '/usr/share/pocketsphinx/model/en-us';

const t = suite('asr determinism');
let dir = '';
let registry: ModelRegistry;
let spec: ModelSpec;
let pool: AsrPool;
let callA: DecodedAudio;
let callB: DecodedAudio;

/** A stereo 8 kHz mu-law call made with sox: real telephone prompts, a different set on each side. */
function makeCall(name: string, first: number, seconds: number): string {
  const prompts = readdirSync(SOUNDS)
    .filter((f) => f.endsWith('.wav'))
    .sort();
  const side = (k: number) => {
    const picked = Array.from({ length: 3 }, (_, i) => path.join(SOUNDS, prompts[(first + k * 40 + i * 7) % prompts.length]!));
    const out = path.join(dir, `${name}-${k}.wav`);
    execFileSync('sox', ['-V1', ...picked, '-r', '8000', '-c', '1', out, 'pad', '0', '0.5', 'trim', '0', String(seconds)]);
    return out;
  };
  const out = path.join(dir, `${name}.wav`);
  execFileSync('sox', ['-V1', '-M', side(0), side(1), '-r', '8000', '-e', 'mu-law', '-b', '8', out, 'pad', '0', String(seconds), 'trim', '0', String(seconds)]);
  return out;
}

/** The utterances the transcriber would send to the pool, in channel/time order. */
function utterancesOf(audio: DecodedAudio): Int16Array[] {
  const out: Int16Array[] = [];
  for (const c of toChannelPcm(audio, spec.sampleRate)) {
    for (const s of segmentSamples(c.samples, c.sampleRate)) out.push(c.samples.slice(s.start, s.end));
  }
  return out;
}

const decodeAll = async (p: AsrPool, utts: Int16Array[]) => {
  const abort = new Int32Array(new SharedArrayBuffer(4));
  const out: string[] = [];
  for (const u of utts) out.push(JSON.stringify((await p.decode(spec, u.slice(), abort)).words));
  return out;
};

const stable = (r: TranscribeResult) => JSON.stringify({ model: r.model, utterances: r.utterances, confidence: r.confidence });

t.before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-asr-det-'));
  const file = path.join(dir, 'registry.json');
  writeFileSync(
    file,
    JSON.stringify({
      default: 'auto',
      models: [
        {
          name: 'en-us',
          engine: 'pocketsphinx',
          sampleRate: 16000,
          hmm: `${EN_US}/en-us`,
          dict: `${EN_US}/cmudict-en-us.dict`,
          lm: `${EN_US}/en-us.lm.bin`,
          options: { '-remove_silence': 'no' },
        },
      ],
    }),
  );
  registry = loadModelRegistry(file);
  spec = registry.resolve('en-us', 16000);
  callA = await decodeWav(makeCall('a', 0, 6));
  callB = await decodeWav(makeCall('b', 100, 6));
  pool = createAsrPool({ threads: 1 });
  await pool.ready([spec]);
});

t.after(async () => {
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

t('decodes the same utterances to identical words, times and confidences in any order on one thread', async () => {
  const utts = utterancesOf(callA);
  assert.ok(utts.length >= 2, `need several utterances, got ${utts.length}`);
  const forward = await decodeAll(pool, utts);
  assert.ok(forward.some((w) => w !== '[]'), 'recognised no words');
  const reversed = (await decodeAll(pool, [...utts].reverse())).reverse();
  assert.equal(reversed, forward);
});

t('decodes an utterance the same after another call or loud noise on the same thread', async () => {
  const utts = utterancesOf(callA);
  const alone = await decodeAll(pool, utts);
  const noise = path.join(dir, 'noise.raw');
  execFileSync('sox', ['-n', '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '16000', '-c', '1', noise, 'synth', '2', 'brownnoise', 'vol', '0.5']);
  const raw = readFileSync(noise);
  const loud = new Int16Array(raw.buffer, raw.byteOffset, raw.length / 2).slice();
  const others = [utterancesOf(callB)[0]!, loud];
  for (const before of others) {
    const interleaved: string[] = [];
    for (const u of utts) {
      await decodeAll(pool, [before]);
      interleaved.push(...(await decodeAll(pool, [u])));
    }
    assert.equal(interleaved, alone);
  }
});

t('gives a call the same transcript alone, after another call, and concurrently with it on two threads', async () => {
  const config = loadConfig({ VOXDEX_ASR_THREADS: '1' });
  const one = createTranscriber({ config, log: silentLogger, registry, pool });
  const first = await one.transcribe(callA, { model: 'auto', source: 'a.wav' });
  assert.is(first.model, 'en-us');
  assert.ok(first.utterances.length >= 2, `utterances: ${first.utterances.length}`);
  await one.transcribe(callB, { model: 'auto', source: 'b.wav' });
  const again = await one.transcribe(callA, { model: 'auto', source: 'a.wav' });
  assert.is(stable(again), stable(first));

  const pool2 = createAsrPool({ threads: 2 });
  try {
    const two = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '2' }), log: silentLogger, registry, pool: pool2 });
    await two.ready();
    const [b, a] = await Promise.all([two.transcribe(callB, { model: 'auto', source: 'b.wav' }), two.transcribe(callA, { model: 'auto', source: 'a.wav' })]);
    assert.ok(b.utterances.length > 0);
    assert.is(stable(a), stable(first));
  } finally {
    await pool2.close();
  }
});

t.run();
