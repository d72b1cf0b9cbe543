/**
 * src/audio/wav-stream.ts: the playable 16-bit PCM conversion of a stored WAV, checked sample for
 * sample against SoX (`sox IN -D -b 16 -e signed-integer OUT [remix N | remix -]`) for every input
 * encoding, and any byte range equal to the same bytes of the whole file.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openPlayableWav, PLAYABLE_HEADER_BYTES, type ChannelSelection } from '../src/audio/wav-stream.js';
import type { SampleEncoding } from '../src/types.js';
import { rejects } from './fixtures/assert-error.js';
import { ASTERISK_PROMPT, makeTempDir, removeDir, run, SOX_ENCODING } from './fixtures/make-audio.js';

const ws = suite('wav-stream: playable WAV on the fly');
let dir = '';

ws.before(() => {
  dir = makeTempDir('voxdex-wavstream-');
});
ws.after(() => removeDir(dir));

async function bytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The data chunk of a RIFF/WAVE file. */
function dataChunk(file: Buffer): Buffer {
  for (let p = 12; p + 8 <= file.length; ) {
    const size = file.readUInt32LE(p + 4);
    if (file.toString('ascii', p, p + 4) === 'data') return file.subarray(p + 8, p + 8 + size);
    p += 8 + size + (size & 1);
  }
  throw new Error('no data chunk');
}

/** A 3-channel input: real speech, a loud tone that clips at 1.1, and pink noise. */
async function input(encoding: SampleEncoding, rate: number, seconds = 1): Promise<string> {
  const speech = path.join(dir, `speech-${rate}.wav`);
  await run('sox', [ASTERISK_PROMPT, '-r', String(rate), speech]);
  const tone = path.join(dir, `tone-${rate}.wav`);
  await run('sox', ['-n', '-r', String(rate), '-c', '1', '-b', '32', '-e', 'floating-point', tone, 'synth', '1.2', 'sine', '440', 'vol', '1.1']);
  const noise = path.join(dir, `noise-${rate}.wav`);
  await run('sox', ['-n', '-r', String(rate), '-c', '1', '-b', '32', '-e', 'floating-point', noise, 'synth', '1.2', 'pinknoise', 'vol', '0.4']);
  const out = path.join(dir, `in-${encoding}-${rate}-${seconds}.wav`);
  await run('sox', ['-D', '-M', speech, tone, noise, ...SOX_ENCODING[encoding], out, 'trim', '0', '1.0', 'repeat', String(seconds - 1)]);
  return out;
}

async function soxReference(file: string, selection: ChannelSelection): Promise<Buffer> {
  const out = path.join(dir, `ref-${path.basename(file, '.wav')}-${selection}.wav`);
  const effect = selection === 'all' ? [] : selection === 'mix' ? ['remix', '-'] : ['remix', String(selection + 1)];
  await run('sox', [file, '-D', '-b', '16', '-e', 'signed-integer', out, ...effect]);
  return dataChunk(readFileSync(out));
}

const ENCODINGS: [SampleEncoding, number][] = [
  ['mulaw', 8000],
  ['alaw', 8000],
  ['pcm_u8', 11025],
  ['pcm_s16', 16000],
  ['pcm_s24', 8000],
  ['pcm_s32', 12000],
  ['pcm_f32', 16000],
];

for (const [encoding, rate] of ENCODINGS) {
  ws(`converts ${encoding} at ${rate} Hz exactly as SoX does: all channels, channel 1, and the mix`, async () => {
    const file = await input(encoding, rate);
    for (const selection of ['all', 1, 'mix'] as const) {
      const wav = openPlayableWav(file, selection);
      const whole = await bytes(wav.stream(0, wav.size - 1));
      assert.is(whole.length, wav.size);
      assert.is(wav.channels, selection === 'all' ? 3 : 1);
      assert.is(wav.sampleRate, rate);
      assert.is(wav.frames, rate);
      // A canonical PCM header: 16-bit, the rate, the channels, the data size.
      assert.is(whole.toString('ascii', 0, 4), 'RIFF');
      assert.is(whole.readUInt32LE(4), wav.size - 8);
      assert.is(whole.readUInt16LE(20), 1);
      assert.is(whole.readUInt16LE(22), wav.channels);
      assert.is(whole.readUInt32LE(24), rate);
      assert.is(whole.readUInt16LE(34), 16);
      assert.is(whole.readUInt32LE(40), wav.size - PLAYABLE_HEADER_BYTES);
      const ours = whole.subarray(PLAYABLE_HEADER_BYTES);
      const ref = await soxReference(file, selection);
      assert.is(ours.length, ref.length, `${encoding} ${selection}: length`);
      assert.ok(ours.equals(ref), `${encoding} ${selection}: samples differ from SoX`);
    }
  });
}

ws('serves any byte range as the same bytes as the whole file (header, sample and chunk boundaries)', async () => {
  const file = await input('mulaw', 8000, 5); // 240,000 bytes of output: several converter chunks
  const wav = openPlayableWav(file, 'all');
  const whole = await bytes(wav.stream(0, wav.size - 1));
  const frame = 6;
  const chunk = 16_384 * frame; // the converter's chunk of output bytes
  const ranges: [number, number][] = [
    [0, 0],
    [0, 43],
    [10, 50],
    [44, 44],
    [45, 46],
    [43, 44 + chunk],
    [44 + chunk - 1, 44 + chunk + 1],
    [1001, 1001 + 3 * frame + 1],
    [wav.size - 1, wav.size - 1],
    [wav.size - 7, wav.size - 1],
  ];
  let seed = 7;
  for (let i = 0; i < 20; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const a = seed % wav.size;
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    ranges.push([a, Math.min(wav.size - 1, a + (seed % 70_000))]);
  }
  for (const [a, b] of ranges) {
    const part = await bytes(wav.stream(a, b));
    assert.ok(part.equals(whole.subarray(a, b + 1)), `range ${a}-${b}`);
  }
});

ws('refuses a channel the recording does not have, naming the channels it has', async () => {
  const file = await input('alaw', 8000);
  await rejects(() => openPlayableWav(file, 3), 'BAD_ARGUMENT', /has 3 channel\(s\).*channel 3 does not exist/);
  assert.throws(() => openPlayableWav(file, 'all').stream(5, 4), /bad range/);
});

ws.run();
