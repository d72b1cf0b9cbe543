import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readWavHeader } from '../src/audio/wav-header.js';
import { decode, decodeWav, decodeWavBuffer } from '../src/stages/decode.js';
import { fileSource } from '../src/audio/byte-source.js';
import { silentLogger } from '../src/log.js';
import { loadConfig } from '../src/config.js';
import type { DecodedAudio, SampleEncoding } from '../src/types.js';
import { ASTERISK_PROMPT, LIBRIVOX_WAV, chunk, fmtChunk, makeTempDir, makeWav, removeDir, riffWave, run, writeFile } from './fixtures/make-audio.js';
import { rejects } from './fixtures/assert-error.js';

const dec = suite('decode');
let dir = '';

dec.before(() => {
  dir = makeTempDir('voxdex-decode-');
});
dec.after(() => removeDir(dir));

/** sox's own decoding of a WAV to interleaved float32. */
async function soxFloat(wav: string): Promise<Float32Array> {
  const out = path.join(dir, `${path.basename(wav)}.f32`);
  await run('sox', ['-D', wav, '-t', 'raw', '-e', 'floating-point', '-b', '32', out]);
  const b = readFileSync(out);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

function assertSameAsSox(audio: DecodedAudio, ref: Float32Array, tolerance = 0) {
  const nch = audio.channels.length;
  assert.is(audio.channels[0]!.length * nch, ref.length, 'frame count');
  let worst = 0;
  for (let c = 0; c < nch; c++) {
    const ch = audio.channels[c]!;
    for (let i = 0; i < ch.length; i++) worst = Math.max(worst, Math.abs(ch[i]! - ref[i * nch + c]!));
  }
  assert.ok(worst <= tolerance, `largest difference from sox ${worst}`);
}


const cases: Array<[SampleEncoding, number, number, number]> = [
  // encoding, rate, channels, fmt tag sox writes
  ['pcm_u8', 8000, 1, 1],
  ['pcm_s16', 16000, 2, 1],
  ['pcm_s16', 8000, 6, 0xfffe],
  ['pcm_s24', 11025, 1, 0xfffe],
  ['pcm_s32', 12000, 2, 0xfffe],
  ['pcm_f32', 16000, 1, 3],
  ['mulaw', 8000, 2, 7],
  ['alaw', 8000, 3, 6],
];

for (const [encoding, rate, channels, tag] of cases) {
  dec(`decodes ${encoding} at ${rate} Hz with ${channels} channel(s) sample-exactly as sox does`, async () => {
    const wav = await makeWav(dir, { rate, channels, encoding, seconds: 0.4, tone: 'noise', amplitude: 0.9 });
    assert.is(readFileSync(wav).readUInt16LE(20), tag, 'format tag written by sox');
    const audio = await decodeWav(wav);
    assert.equal(audio.format, { encoding, sampleRate: rate, channels, bitsPerSample: { pcm_u8: 8, pcm_s16: 16, pcm_s24: 24, pcm_s32: 32, pcm_f32: 32, mulaw: 8, alaw: 8 }[encoding] });
    assert.is(audio.channels.length, channels);
    assert.is(audio.channels[0]!.length, rate * 0.4);
    assert.is(audio.durationSec, (rate * 0.4) / rate);
    assertSameAsSox(audio, await soxFloat(wav), encoding === 'pcm_f32' ? 1e-6 : encoding === 'pcm_s32' ? 6e-8 : 0);
    assert.equal(decodeWavBuffer(readFileSync(wav)).channels, audio.channels);
  });
}

dec('decodes a real 8 kHz Asterisk telephone prompt', async () => {
  const audio = await decodeWav(ASTERISK_PROMPT);
  assert.equal(audio.format, { encoding: 'pcm_s16', sampleRate: 8000, channels: 1, bitsPerSample: 16 });
  const seconds = Number((await run('soxi', ['-D', ASTERISK_PROMPT])).trim());
  assert.ok(Math.abs(audio.durationSec - seconds) < 1e-3, `${audio.durationSec} vs soxi ${seconds}`);
  assertSameAsSox(audio, await soxFloat(ASTERISK_PROMPT));
  assert.equal(audio.warnings, []);
});

dec('decodes 16 kHz LibriVox speech and espeak-ng speech', async () => {
  const libri = await decodeWav(LIBRIVOX_WAV);
  assert.is(libri.format.sampleRate, 16000);
  assertSameAsSox(libri, await soxFloat(LIBRIVOX_WAV));
  const speech = await makeWav(dir, { rate: 8000, channels: 2, encoding: 'mulaw', texts: ['good morning', 'good evening'] });
  const audio = await decodeWav(speech);
  assert.is(audio.channels.length, 2);
  assert.ok(audio.durationSec > 0.5);
  assertSameAsSox(audio, await soxFloat(speech));
});

dec('streams a file larger than one read block identically to the in-memory decoder', async () => {
  const wav = await makeWav(dir, { rate: 16000, channels: 2, encoding: 'pcm_s24', seconds: 45, tone: 'noise' }); // 4.3 MB > 4 MiB block
  const a = await decodeWav(wav);
  const b = decodeWavBuffer(readFileSync(wav));
  assert.is(a.channels[0]!.length, 720000);
  assert.ok(Buffer.from(a.channels[1]!.buffer).equals(Buffer.from(b.channels[1]!.buffer)));
  assert.ok(Buffer.from(a.channels[0]!.buffer).equals(Buffer.from(b.channels[0]!.buffer)));
});

dec('skips LIST and fact chunks and honours odd-size chunk padding', async () => {
  const samples = Int16Array.of(0, 1000, -1000, 32767, -32768);
  const data = Buffer.from(samples.buffer);
  const wav = riffWave([chunk('LIST', Buffer.from('INFOx')), fmtChunk({ rate: 8000 }), chunk('fact', Buffer.alloc(4)), chunk('junk', Buffer.from('abc')), chunk('data', data)]);
  const audio = decodeWavBuffer(wav);
  assert.equal(Array.from(audio.channels[0]!), Array.from(samples, (s) => s / 32768));
  assert.equal(audio.warnings, []);
  const file = writeFile(dir, 'padded.wav', wav);
  assert.equal((await decodeWav(file)).channels, audio.channels);
});

dec('reads to end of file with a warning when the data size is 0 or larger than the file', async () => {
  const data = Buffer.from(Int16Array.of(1, 2, 3, 4).buffer);
  const zero = decodeWavBuffer(riffWave([fmtChunk(), chunk('data', data, 0)]));
  assert.is(zero.channels[0]!.length, 4);
  assert.equal(zero.warnings, ['data chunk size 0; read to end of file']);
  const streamed = decodeWavBuffer(riffWave([fmtChunk(), chunk('data', data, 0xffffffff)]));
  assert.equal(streamed.warnings, ['data chunk size 4294967295; read to end of file']);
  const big = writeFile(dir, 'lying.wav', riffWave([fmtChunk(), chunk('data', data, 1000)]));
  const audio = await decodeWav(big);
  assert.equal(Array.from(audio.channels[0]!), [1, 2, 3, 4].map((s) => s / 32768));
  assert.equal(audio.warnings, ['data chunk claims 1000 bytes but the file holds 8; read to end of file']);
});

dec('drops a trailing partial frame with a warning', () => {
  const audio = decodeWavBuffer(riffWave([fmtChunk({ channels: 2 }), chunk('data', Buffer.from([1, 0, 2, 0, 3, 0, 4, 0, 5, 0]))]));
  assert.is(audio.channels[1]!.length, 2);
  assert.equal(audio.warnings, ['2 trailing bytes of a partial frame ignored']);
});

dec('accepts 8000 to 48000 Hz and rejects 7999, 48001 and 96000 Hz with BAD_SAMPLE_RATE', async () => {
  const data = chunk('data', Buffer.alloc(8));
  for (const rate of [8000, 16000, 22050, 44100, 48000]) assert.is(decodeWavBuffer(riffWave([fmtChunk({ rate }), data])).format.sampleRate, rate);
  await rejects(() => decodeWavBuffer(riffWave([fmtChunk({ rate: 7999 }), data])), 'BAD_SAMPLE_RATE', /^Sample rate 7999 Hz is outside 8000–48000 Hz; resample the recording to a rate in that range/);
  await rejects(() => decodeWavBuffer(riffWave([fmtChunk({ rate: 48001 }), data])), 'BAD_SAMPLE_RATE', /48001 Hz/);
  const hi = await makeWav(dir, { rate: 96000, seconds: 0.1 });
  await rejects(() => decodeWav(hi), 'BAD_SAMPLE_RATE', /96000 Hz/);
  await rejects(() => readWavHeader(hi), 'BAD_SAMPLE_RATE', /96000 Hz/);
  const cd = await makeWav(dir, { rate: 22050, seconds: 0.1 });
  assert.is((await decodeWav(cd)).format.sampleRate, 22050);
});

dec('names compressed WAV codecs it does not decode itself with UNSUPPORTED_AUDIO (the decode stage transcodes them)', async () => {
  const adpcm = path.join(dir, 'adpcm.wav');
  await run('sox', ['-n', '-r', '8000', '-e', 'ms-adpcm', adpcm, 'synth', '0.2', 'sine', '300']);
  await rejects(() => decodeWav(adpcm), 'UNSUPPORTED_AUDIO', /^WAV with Microsoft ADPCM \(format tag 0x0002\) is not supported\. Send PCM, mu-law or A-law\.$/);
  const gsm = path.join(dir, 'gsm.wav');
  await run('sox', ['-n', '-r', '8000', '-e', 'gsm-full-rate', gsm, 'synth', '0.2', 'sine', '300']);
  await rejects(() => readWavHeader(gsm), 'UNSUPPORTED_AUDIO', /GSM 6\.10 \(format tag 0x0031\)/);
  await rejects(() => decodeWavBuffer(riffWave([fmtChunk({ bits: 12 }), chunk('data', Buffer.alloc(4))])), 'UNSUPPORTED_AUDIO', /PCM with 12 bits per sample/);
});

dec('reads only the header for the acceptance check', async () => {
  const wav = await makeWav(dir, { rate: 12000, channels: 2, encoding: 'alaw', seconds: 2 });
  const h = readWavHeader(wav);
  assert.equal(h.format, { encoding: 'alaw', sampleRate: 12000, channels: 2, bitsPerSample: 8 });
  assert.is(h.frames, 24000);
  assert.is(h.blockAlign, 2);
  assert.is(h.dataOffset + h.dataBytes, readFileSync(wav).length);
});

dec('the stage stops with CANCELLED when the job is cancelled', async () => {
  const wav = await makeWav(dir, { seconds: 0.2 });
  const ac = new AbortController();
  ac.abort();
  const ctx = { jobId: 'j', signal: ac.signal, log: silentLogger, config: loadConfig({}) };
  await rejects(() => decode({ source: fileSource(wav) }, ctx), 'CANCELLED');
  const ok = await decode({ source: fileSource(wav) }, { ...ctx, signal: new AbortController().signal });
  assert.is(ok.channels[0]!.length, 1600);
});

dec.run();
