import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAsrPool, type AsrPool } from '../src/asr/pool.js';
import { createTranscriber, type Transcriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { frameLevels } from '../src/audio/segment.js';
import type { DecodedAudio } from '../src/types.js';
import { cpuMark, cpuMsSince, type CpuMark } from './fixtures/cpu-budget.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const GOFORWARD = path.join(DATA, 'goforward.raw');
const CARDS = (n: number) => path.join(DATA, 'cards', `00${n}.wav`);
const LIBRIVOX = ['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`));

const t = suite('asr transcriber');
let dir = '';
let pool: AsrPool;
let transcriber: Transcriber;

/** sox → raw s16le at `rate`, as DecodedAudio (one Float32Array per channel). */
function soxAudio(inputs: string[], effects: string[] = [], rate = 16000, channels = 1): DecodedAudio {
  const out = path.join(dir, `a${Math.random().toString(36).slice(2)}.raw`);
  execFileSync('sox', [...inputs, '-t', 'raw', '-e', 'signed', '-b', '16', '-r', String(rate), '-c', String(channels), out, ...effects]);
  return pcmAudio(readInt16(out), rate, channels);
}

function readInt16(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2).slice();
}

function pcmAudio(pcm: Int16Array, rate: number, nch = 1): DecodedAudio {
  const frames = pcm.length / nch;
  const channels = Array.from({ length: nch }, (_, c) => Float32Array.from({ length: frames }, (_x, i) => pcm[i * nch + c]! / 32768));
  return { format: { encoding: 'pcm_s16', sampleRate: rate, channels: nch, bitsPerSample: 16 }, channels, durationSec: frames / rate, warnings: [] };
}

const text = (words: Array<{ word: string }>) => words.map((w) => w.word).join(' ');

t.before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-asr-'));
  const config = loadConfig({ VOXDEX_ASR_THREADS: '2' });
  pool = createAsrPool({ threads: 2 });
  transcriber = createTranscriber({ config, log: silentLogger, pool });
  await transcriber.ready();
});

t.after(async () => {
  await transcriber.close();
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

t('transcribes goforward.raw as "go forward ten meters" with times, confidences and contract shape', async () => {
  const progress: number[] = [];
  const r = await transcriber.transcribe(pcmAudio(readInt16(GOFORWARD), 16000), { model: 'auto', source: 'goforward.raw', onProgress: (f) => progress.push(f) });
  assert.equal(progress, [1]);
  assert.is(r.model, 'en-us-moonshine');
  assert.is(r.nchannels, 1);
  assert.is(r.utterances.length, 1);
  const u = r.utterances[0]!;
  assert.is(text(u.events), 'go forward ten meters');
  assert.equal(u.metadata, { channel: 0, uttid: 0, source: 'goforward.raw', model: 'en-us-moonshine' });
  assert.is(u.start, u.events[0]!.start);
  assert.is(u.end, u.events[3]!.end);
  for (const w of u.events) {
    assert.ok(w.start < w.end && w.confidence >= 0 && w.confidence <= 1, JSON.stringify(w));
    assert.is(Math.round(w.start * 1000) / 1000, w.start, 'ms precision');
  }
  assert.ok(r.confidence! > 0.5, `confidence ${r.confidence}`);
  assert.equal(r.chaninfo.map((c) => c.channel), [0]);
  assert.is(r.audiosecs, 2.786);
});

t('tags the utterances of a stereo call with the channel that spoke them', async () => {
  // Left: "ten of clubs" at 0.3 s; right: "eight of spades ..." from 2.5 s. Real speech, merged by sox.
  const left = path.join(dir, 'left.wav');
  const right = path.join(dir, 'right.wav');
  execFileSync('sox', [CARDS(1), left, 'pad', '0.3', '6']);
  execFileSync('sox', [CARDS(5), right, 'pad', '2.5', '1']);
  const audio = soxAudio(['-M', left, right], [], 16000, 2);
  // PocketSphinx's words for this speaker (Moonshine hears "cloves" for "clubs" here).
  const r = await transcriber.transcribe(audio, { source: 'call.wav', model: 'en-us' });
  assert.is(r.nchannels, 2);
  assert.equal(
    r.utterances.map((u) => [u.metadata.channel, text(u.events)]),
    [
      [0, 'ten of clubs'],
      [1, 'eight of spades four of clubs seven of hearts'],
    ],
  );
  assert.equal(r.utterances.map((u) => u.metadata.uttid), [0, 1]);
  assert.ok(r.utterances[1]!.start >= 2.5, `right channel starts at ${r.utterances[1]!.start}`);
  assert.equal(r.chaninfo.map((c) => c.channel), [0, 1]);
});

t('places a word that follows a known silence within 100 ms of its energy onset', async () => {
  // "ten of clubs", 1.5 s of digital silence, then "go forward ten meters".
  const first = soxAudio([CARDS(1)]);
  const gap = 1.5;
  const go = readInt16(GOFORWARD);
  const levels = frameLevels(go, 16000);
  const peak = Math.max(...levels);
  const onset = levels.findIndex((l) => l > peak - 25) / 100; // where "go" becomes audible
  const firstPcm = Int16Array.from(first.channels[0]!, (v) => Math.round(v * 32768));
  const pcm = new Int16Array(firstPcm.length + gap * 16000 + go.length);
  pcm.set(firstPcm, 0);
  pcm.set(go, firstPcm.length + gap * 16000);
  // PocketSphinx's own word times (test/asr-moonshine.test.ts checks the aligned ones the same way).
  const r = await transcriber.transcribe(pcmAudio(pcm, 16000), { source: 'gap.wav', model: 'en-us' });
  const words = r.utterances.flatMap((u) => u.events);
  assert.is(text(words), 'ten of clubs go forward ten meters');
  const expected = firstPcm.length / 16000 + gap + onset;
  const goWord = words.find((w) => w.word === 'go')!;
  assert.ok(Math.abs(goWord.start - expected) <= 0.1, `"go" at ${goWord.start}, energy onset at ${expected.toFixed(3)}`);
  assert.is(r.utterances.length, 2, 'split at the silence');
});

t('cancels a long native decode within a second (CANCELLED)', async () => {
  // ~30 s of continuous speech as ONE utterance: only the native loop's flag can stop it early.
  const long = soxAudio(LIBRIVOX);
  const pcm = Int16Array.from(long.channels[0]!, (v) => Math.round(v * 32768));
  const spec = transcriber.registry.resolve('en-us', 16000);
  const abort = new Int32Array(new SharedArrayBuffer(4));
  let raised: CpuMark | undefined;
  setTimeout(() => {
    raised = cpuMark();
    Atomics.store(abort, 0, 1);
  }, 700);
  const err = await pool.decode(spec, pcm, abort).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, VoxdexError);
  assert.is((err as VoxdexError).code, 'CANCELLED');
  // CPU spent after the flag, not wall time (test/fixtures/cpu-budget.ts): the rest of 30 s of speech would be seconds.
  const after = cpuMsSince(raised!);
  assert.ok(after < 1000, `${Math.round(after)} ms of CPU after the flag`);
});

t('closing a pool while a long decode runs stops the decode and keeps the process alive', async () => {
  const own = createAsrPool({ threads: 1 });
  const spec = transcriber.registry.resolve('en-us', 16000);
  await own.ready([spec]);
  const long = soxAudio(LIBRIVOX);
  const pcm = Int16Array.from(long.channels[0]!, (v) => Math.round(v * 32768));
  const abort = new Int32Array(new SharedArrayBuffer(4));
  const decoding = own.decode(spec, pcm, abort).then(
    () => undefined,
    (e: unknown) => e,
  );
  await new Promise((r) => setTimeout(r, 500));
  const started = cpuMark();
  await own.close();
  assert.ok(cpuMsSince(started) < 1500, `close waited for the decode to stop, not to finish (${Math.round(cpuMsSince(started))} ms of CPU)`);
  assert.is(((await decoding) as VoxdexError)?.code, 'CANCELLED');
  assert.is(Atomics.load(abort, 0), 1);
});

t('an aborted signal stops a transcription with CANCELLED within a second', async () => {
  const long = soxAudio([...LIBRIVOX, ...LIBRIVOX]);
  const ac = new AbortController();
  let aborted: CpuMark | undefined;
  setTimeout(() => {
    aborted = cpuMark();
    ac.abort();
  }, 800);
  const err = await transcriber.transcribe(long, { source: 'long.wav', signal: ac.signal }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.is((err as VoxdexError)?.code, 'CANCELLED');
  const after = cpuMsSince(aborted!);
  assert.ok(after < 1000, `${Math.round(after)} ms of CPU after abort (test/fixtures/cpu-budget.ts)`);
});

t('many decodes in parallel on the pool give the same words as serial ones', async () => {
  const spec = transcriber.registry.resolve('en-us', 16000);
  const inputs = [1, 2, 3, 4, 5].map((n) => Int16Array.from(soxAudio([CARDS(n)]).channels[0]!, (v) => Math.round(v * 32768)));
  const flag = () => new Int32Array(new SharedArrayBuffer(4));
  const serial: string[] = [];
  for (const pcm of inputs) serial.push(text((await pool.decode(spec, pcm.slice(), flag())).words));
  const threads = new Set<number>();
  const parallel = await Promise.all(
    [...inputs, ...inputs].map(async (pcm) => {
      const out = await pool.decode(spec, pcm.slice(), flag());
      threads.add(out.threadId);
      return text(out.words);
    }),
  );
  assert.equal(parallel, [...serial, ...serial]);
  assert.is(threads.size, 2, 'both ASR threads decoded');
  assert.equal(serial, ['ten of clubs', 'for queen of clubs', 'seven of clubs', 'five five', 'eight of spades four of clubs seven of hearts']);
});

t('decoding in abortable chunks gives the same words and times as whole-utterance decoding', async () => {
  const spec = transcriber.registry.resolve('en-us', 16000);
  const flag = () => new Int32Array(new SharedArrayBuffer(4));
  for (const pcm of [readInt16(GOFORWARD), ...[1, 5].map((n) => Int16Array.from(soxAudio([CARDS(n)]).channels[0]!, (v) => Math.round(v * 32768)))]) {
    const chunked = await pool.decode(spec, pcm.slice(), flag());
    const whole = await pool.decode(spec, pcm.slice(), flag(), { wholeUtterance: true });
    assert.equal(text(chunked.words), text(whole.words));
    // Times agree to a frame (the front end's last partial frame may differ).
    chunked.words.forEach((w, i) => {
      const v = whole.words[i]!;
      assert.ok(Math.abs(w.start - v.start) <= 10 && Math.abs(w.end - v.end) <= 10, `${JSON.stringify(w)} vs ${JSON.stringify(v)}`);
    });
  }
});

t('rejects an unknown model name with UNKNOWN_MODEL', async () => {
  const err = await transcriber.transcribe(pcmAudio(readInt16(GOFORWARD), 16000), { model: 'klingon', source: 'x' }).catch((e: unknown) => e);
  assert.is((err as VoxdexError).code, 'UNKNOWN_MODEL');
  assert.match((err as VoxdexError).message, /unknown model "klingon"; available: auto, en-us/);
});

t.run();
