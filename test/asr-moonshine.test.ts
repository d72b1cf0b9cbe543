import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { loadTokenizer } from '../src/asr/moonshine/tokenizer.js';
import { createAsrPool, type AsrPool } from '../src/asr/pool.js';
import { createTranscriber, type Transcriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import { toChannelPcm } from '../src/audio/resample.js';
import { frameLevels } from '../src/audio/segment.js';
import type { DecodedAudio } from '../src/types.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const DIGITS = '/usr/share/asterisk/sounds/en_US_f_Allison/digits';
const PROMPTS = '/usr/share/asterisk/sounds/en_US_f_Allison';
const LIBRIVOX = ['0870', '0880'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`));

const t = suite('asr moonshine (default engine)');
const registry = loadModelRegistry(loadConfig({}).modelsFile);
let dir = '';
let pool: AsrPool;
let transcriber: Transcriber;
const flag = () => new Int32Array(new SharedArrayBuffer(4));
const text = (words: Array<{ word: string }>) => words.map((w) => w.word).join(' ');

function raw16k(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2).slice();
}
function pcmAudio(pcm: Int16Array, rate: number): DecodedAudio {
  const ch = Float32Array.from(pcm, (v) => v / 32768);
  return { format: { encoding: 'pcm_s16', sampleRate: rate, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / rate, warnings: [] };
}
/** Where a recording becomes audible: the first 10 ms frame 25 dB over its noise floor (and within 50 dB of its peak), in seconds. */
function onset(pcm: Int16Array, rate: number): number {
  const levels = frameLevels(pcm, rate);
  const peak = Math.max(...levels);
  const floor = Float32Array.from(levels).sort()[Math.floor(levels.length * 0.1)]!;
  return levels.findIndex((l) => l > Math.max(floor + 25, peak - 50)) / 100;
}
/** A 16 kHz utterance as the engine gets it (decoded, resampled). */
async function utterance(file: string): Promise<{ pcm: Int16Array; rate: number }> {
  const a = await decodeWav(file);
  return { pcm: toChannelPcm(a, 16000)[0]!.samples, rate: a.format.sampleRate };
}

t.before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-moonshine-'));
  pool = createAsrPool({ threads: 1 });
  transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '1' }), log: silentLogger, pool, registry });
  await transcriber.ready();
});
t.after(async () => {
  await transcriber.close();
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

t('reads the model\'s 32,000 byte pieces and decodes "▁" as a space, skipping <s> and </s>', () => {
  const tok = loadTokenizer(path.join(registry.resolve('en-us-moonshine', 16000).dir, 'tokenizer.bin'));
  assert.is(tok.size, 32000);
  const piece = (id: number) => new TextDecoder().decode(tok.piece(id));
  assert.equal([0, 1, 2].map(piece), ['<unk>', '<s>', '</s>']);
  const idOf = (s: string) => Array.from({ length: tok.size }, (_, i) => i).find((i) => piece(i) === s)!;
  const ids = [1, idOf('▁go'), idOf('▁forward'), 2];
  assert.ok(ids.every((i) => i !== undefined));
  assert.is(tok.decode(ids), 'go forward');
});

t('auto transcribes 16 kHz speech with Moonshine and times each word by alignment, within 100 ms of a known onset', async () => {
  // 1.2 s of digital silence, then "go forward ten meters".
  const go = raw16k(path.join(DATA, 'goforward.raw'));
  const pcm = new Int16Array(1.2 * 16000 + go.length);
  pcm.set(go, 1.2 * 16000);
  const r = await transcriber.transcribe(pcmAudio(pcm, 16000), { source: 'gap.wav' });
  assert.is(r.model, 'en-us-moonshine');
  const words = r.utterances.flatMap((u) => u.events);
  assert.is(text(words), 'go forward ten meters');
  const expected = 1.2 + onset(go, 16000);
  assert.ok(Math.abs(words[0]!.start - expected) <= 0.1, `"go" at ${words[0]!.start}, onset ${expected}`);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    assert.ok(w.start < w.end && w.confidence > 0 && w.confidence <= 1, JSON.stringify(w));
    if (i > 0) assert.ok(w.start >= words[i - 1]!.end, 'words in order, not overlapping');
  }
});

t('8 kHz mu-law calls go to Moonshine too (upsampled), aligned with the telephony model', async () => {
  const wav = path.join(dir, 'transfer.wav');
  execFileSync('sox', [path.join(PROMPTS, 'transfer.wav'), '-e', 'u-law', '-b', '8', wav]);
  const audio = await decodeWav(wav);
  assert.is(audio.format.sampleRate, 8000);
  const r = await transcriber.transcribe(audio, { source: 'transfer.wav' });
  assert.is(r.model, 'en-us-moonshine');
  assert.is(text(r.utterances.flatMap((u) => u.events)), 'please hold while i try that extension');
  assert.is(registry.aligner(registry.resolve('auto', 8000), 8000)!.hmm, path.join(path.dirname(registry.file), 'build', 'en-us-8k'));
});

t('a digit string comes out as spoken digit words, each within 100 ms of where its recording starts', async () => {
  // Seven real 8 kHz digit recordings with 0.25 s of silence between them: known boundaries.
  const digits = ['5', '5', '5', '0', '1', '2', '3'];
  const gap = new Int16Array(2000);
  const parts: Int16Array[] = [];
  const starts: number[] = [];
  let at = 0;
  for (const d of digits) {
    const a = await decodeWav(path.join(DIGITS, `${d}.wav`));
    const pcm = Int16Array.from(a.channels[0]!, (v) => Math.round(v * 32767));
    starts.push(at / 8000 + onset(pcm, 8000));
    parts.push(pcm, gap);
    at += pcm.length + gap.length;
  }
  const all = new Int16Array(at);
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  const r = await transcriber.transcribe(pcmAudio(all, 8000), { source: 'digits.wav' });
  const words = r.utterances.flatMap((u) => u.events);
  assert.is(text(words), 'five five five zero one two three');
  words.forEach((w, i) => assert.ok(Math.abs(w.start - starts[i]!) <= 0.1, `${w.word} at ${w.start}, recording starts ${starts[i]!.toFixed(3)}`));
});

t('never writes words for silence, steady noise or a tone, even when handed them as an utterance', async () => {
  const spec = registry.resolve('auto', 16000);
  const aligner = registry.aligner(spec, 16000);
  const make = (effect: string[]) => {
    const out = path.join(dir, `n${Math.random().toString(36).slice(2)}.raw`);
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed', out, 'synth', '3', ...effect]);
    return raw16k(out);
  };
  const cases: Array<[string, Int16Array, string]> = [
    ['digital silence', new Int16Array(48000), 'no-speech'],
    ['white noise', make(['whitenoise', 'vol', '0.05']), 'non-speech'],
    ['pink noise', make(['pinknoise', 'vol', '0.2']), 'non-speech'],
    ['a 440 Hz tone', make(['sine', '440', 'vol', '0.3']), 'non-speech'],
  ];
  for (const [what, pcm, note] of cases) {
    const out = await pool.decode(spec, pcm.slice(), flag(), { aligner });
    assert.equal(out.words, [], what);
    assert.equal(out.notes, [note], what);
    const r = await transcriber.transcribe(pcmAudio(pcm, 16000), { source: 'noise.wav' });
    assert.equal(r.utterances, [], what);
  }
});

t('an abort flag raised while Moonshine decodes stops it between decoder steps (CANCELLED before the decode would have ended)', async () => {
  // Two real utterances back to back (about 15 s): the whole decode, timed first, sets when the flag is raised
  // (a third of the way in) so the test holds on a fast idle machine and a loaded one alike.
  const parts = await Promise.all(LIBRIVOX.map(async (f) => (await utterance(f)).pcm));
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (pcm.set(p, at), at + p.length), 0);
  const spec = registry.resolve('auto', 16000);
  const aligner = registry.aligner(spec, 16000);
  let started = performance.now();
  await pool.decode(spec, pcm.slice(), flag(), { aligner });
  const whole = performance.now() - started;
  const abort = flag();
  started = performance.now();
  setTimeout(() => Atomics.store(abort, 0, 1), whole / 3);
  const err = await pool.decode(spec, pcm, abort, { aligner }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const took = performance.now() - started;
  assert.instance(err, VoxdexError);
  assert.is((err as VoxdexError).code, 'CANCELLED');
  assert.ok(took < whole, `stopped after ${Math.round(took)} ms; the whole decode took ${Math.round(whole)} ms`);
});

t('PocketSphinx models stay selectable by name next to the Moonshine default', async () => {
  const r = await transcriber.transcribe(pcmAudio(raw16k(path.join(DATA, 'goforward.raw')), 16000), { source: 'g.raw', model: 'en-us' });
  assert.is(r.model, 'en-us');
  assert.is(text(r.utterances.flatMap((u) => u.events)), 'go forward ten meters');
});

t.run();
