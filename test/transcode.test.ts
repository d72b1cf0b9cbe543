import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { mediaOfFile } from '../src/audio/media.js';
import { moovFirst } from '../src/audio/mp4-faststart.js';
import { ffmpegArgs, ffmpegLines, transcoding } from '../src/audio/transcode.js';
import { decode, decodeWav } from '../src/stages/decode.js';
import { fileSource } from '../src/audio/byte-source.js';
import { AudioSeal } from '../src/audio/sealed-file.js';
import { probeUpload } from '../src/stages/probe.js';
import { isFailedItem, unpack } from '../src/stages/unpack.js';
import type { StageContext } from '../src/types.js';
import { rejects } from './fixtures/assert-error.js';
import { CODED_FORMATS, LIBRIVOX_WAV, makeAmrWbSilence, makeCoded, makeTempDir, makeWav, makeZip, removeDir, run, type CodedFormat } from './fixtures/make-audio.js';

const t = suite('transcode');
let dir = '';
let n = 0;
const config = loadConfig({});
const seal = AudioSeal.ephemeral();

function ctx(env: Record<string, string> = {}): StageContext {
  return { jobId: 'job', signal: new AbortController().signal, log: silentLogger, config: loadConfig(env) };
}

function workDir(): string {
  const d = path.join(dir, `work-${n++}`);
  mkdirSync(d);
  return d;
}

/** Correlation of two signals over their common length (1 = the same waveform). */
function correlation(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

t.before(() => {
  dir = makeTempDir('voxdex-transcode-');
});
t.after(() => removeDir(dir));

t('the ffmpeg command reads only pipes, with the container forced, one thread, 8-16 kHz 16-bit WAV out', () => {
  const args = ffmpegArgs('mp3');
  const at = (flag: string) => args[args.indexOf(flag) + 1];
  assert.is(at('-protocol_whitelist'), 'pipe');
  assert.is(at('-f'), 'mp3');
  assert.is(at('-i'), 'pipe:0');
  assert.is(at('-threads'), '1');
  assert.is(args.at(-1), 'pipe:1');
  assert.is(at('-af'), 'aresample=async=1:first_pts=0,aformat=sample_fmts=s16:sample_rates=8000|11025|12000|16000');
  assert.is(transcoding(config.transcode), 'on');
});

t('decodes every transcoded format made from real speech to its length, at 8 or 16 kHz, close to the WAV', async () => {
  const source = path.join(dir, 'libri.wav');
  await run('sox', [LIBRIVOX_WAV, source, 'trim', '0', '4']);
  const reference = (await decodeWav(source)).channels[0]!;
  for (const format of Object.keys(CODED_FORMATS) as CodedFormat[]) {
    const file = await makeCoded(dir, source, format);
    const media = mediaOfFile(file, config.transcode);
    assert.is(media.kind, 'coded', format);
    assert.equal(await probeUpload(file, { transcode: config.transcode }, config.archive), { kind: 'coded' }, format);
    const audio = await decode({ source: fileSource(file) }, ctx());
    const rate = CODED_FORMATS[format].rate;
    assert.is(audio.format.sampleRate, rate, format);
    assert.is(audio.format.channels, 1, format);
    assert.ok(Math.abs(audio.durationSec - 4) < 0.08, `${format}: ${audio.durationSec} s`);
    if (rate === 16000) {
      // Codec delay shifts some formats by a few ms: the best alignment within 30 ms must correlate.
      let best = 0;
      for (let lag = 0; lag < 480; lag += 8) best = Math.max(best, correlation(reference, audio.channels[0]!.subarray(lag)));
      assert.ok(best > (format === 'flac' ? 0.9999 : 0.6), `${format}: correlation ${best.toFixed(3)}`);
    }
  }
});

t('FLAC decodes sample for sample to the WAV it was made from', async () => {
  const wav = await makeWav(dir, { rate: 16000, text: 'lossless', name: 'lossless.wav' });
  const flac = await makeCoded(dir, wav, 'flac');
  assert.equal((await decode({ source: fileSource(flac) }, ctx())).channels, (await decodeWav(wav)).channels);
});

t('44.1 and 48 kHz, 22.05 kHz, 24-bit, float and EXTENSIBLE WAVs are decoded by voxdex itself at their rate', async () => {
  for (const [rate, encoding] of [[44100, 'pcm_s24'], [48000, 'pcm_f32'], [22050, 'pcm_s16'], [32000, 'pcm_s32']] as const) {
    const wav = await makeWav(dir, { rate, encoding, seconds: 0.5, channels: 2 });
    assert.equal(await probeUpload(wav, { transcode: config.transcode }, config.archive), { kind: 'wav' });
    const audio = await decode({ source: fileSource(wav) }, ctx());
    assert.equal([audio.format.sampleRate, audio.format.encoding, audio.format.channels, audio.channels[0]!.length], [rate, encoding, 2, rate / 2]);
  }
  const ext = path.join(dir, 'ext.wav');
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', LIBRIVOX_WAV, '-ar', '48000', '-ac', '2', '-c:a', 'pcm_s24le', ext]);
  assert.is(readFileSync(ext).readUInt16LE(20), 0xfffe, 'ffmpeg writes 24-bit stereo as WAVE_FORMAT_EXTENSIBLE');
  const audio = await decode({ source: fileSource(ext) }, ctx());
  assert.equal([audio.format.sampleRate, audio.format.encoding, audio.format.transcodedFrom], [48000, 'pcm_s24', undefined]);
  await rejects(() => probeUpload(ext, { transcode: config.transcode }, { ...config.archive, maxAudioSec: 1 }), 'TOO_LARGE');
});

t('an M4A with its index after the media data decodes like the same file written with faststart', async () => {
  const wav = path.join(dir, 'for-m4a.wav');
  await run('sox', [LIBRIVOX_WAV, wav, 'repeat', '30']); // ~3.5 min: more than ffmpeg's probe buffer
  const late = path.join(dir, 'late.m4a');
  const early = path.join(dir, 'early.m4a');
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', '-b:a', '32k', late]);
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', late, '-c', 'copy', '-movflags', '+faststart', early]);
  const lateBytes = readFileSync(late);
  assert.ok(lateBytes.indexOf('moov') > lateBytes.indexOf('mdat'), 'the fixture keeps moov at the end');
  const reordered = moovFirst(lateBytes);
  assert.ok(Buffer.from(reordered).indexOf('moov') < Buffer.from(reordered).indexOf('mdat'));
  const a = await decode({ source: fileSource(late) }, ctx());
  const b = await decode({ source: fileSource(early) }, ctx());
  assert.ok(a.durationSec > 200, String(a.durationSec));
  assert.equal(a.channels, b.channels);
  const first = readFileSync(early);
  assert.is(moovFirst(first), first, 'already first: returned as it is');
});

t('AMR-WB (constructed: no packaged encoder) decodes at 16 kHz; AMR-NB at 8 kHz', async () => {
  const wb = makeAmrWbSilence(dir, 'quiet.awb', 100);
  const audio = await decode({ source: fileSource(wb) }, ctx());
  assert.equal([audio.format.sampleRate, audio.channels[0]!.length], [16000, 32000]);
});

t('hostile files fail cleanly before the answer: truncated, garbage behind an MP3 header, no audio', async () => {
  const wav = await makeWav(dir, { rate: 16000, text: 'a recording cut short', name: 'cut.wav' });
  const m4a = await makeCoded(dir, wav, 'm4a-aac');
  const bytes = readFileSync(m4a);
  const cut = path.join(dir, 'cut.m4a');
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2))); // the index (at the end) is gone
  await rejects(() => probeUpload(cut, { transcode: config.transcode }, config.archive), 'BAD_AUDIO', /^The MP4\/M4A file could not be decoded \(ffmpeg: .+\)\. Send a complete, undamaged recording\.$|^The MP4\/M4A file holds no audio/);
  const garbage = path.join(dir, 'garbage.mp3');
  writeFileSync(garbage, Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(10), Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 251))]));
  await rejects(() => probeUpload(garbage, { transcode: config.transcode }, config.archive), 'BAD_AUDIO', /MPEG audio \(MP3 with an ID3 tag\)/);
  const frameOnly = path.join(dir, 'frame.mp3');
  writeFileSync(frameOnly, Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]));
  await rejects(() => decode({ source: fileSource(frameOnly) }, ctx()), 'BAD_AUDIO');
});

t('a file that decodes to more audio than allowed is stopped (TOO_LARGE), whatever its header says', async () => {
  // One second of an AMR-NB tone at 4.75 kb/s, its frames repeated: 390 KB that decode to 600 s of audio.
  const tone = path.join(dir, 'tone.amr');
  await run('sox', ['-n', '-r', '8000', '-c', '1', '-t', 'amr-nb', '-C', '0', tone, 'synth', '1', 'sine', '440']);
  const frames = readFileSync(tone).subarray(6);
  const amr = path.join(dir, 'long.amr');
  writeFileSync(amr, Buffer.concat([Buffer.from('#!AMR\n', 'latin1'), ...Array.from({ length: 600 }, () => frames)]));
  assert.equal(await probeUpload(amr, { transcode: config.transcode }, config.archive), { kind: 'coded' });
  const t0 = process.cpuUsage();
  await rejects(() => decode({ source: fileSource(amr) }, ctx({ VOXDEX_TRANSCODE_MAX_AUDIO_SEC: '60' })), 'TOO_LARGE', /^The recording decodes to more than 60 seconds of audio \(every channel counted; VOXDEX_TRANSCODE_MAX_AUDIO_SEC=60\)/);
  const cpu = process.cpuUsage(t0);
  assert.ok(cpu.user + cpu.system < 2e6, 'stopped early');
  // The request's own audio limit applies too.
  await rejects(() => decode({ source: fileSource(amr) }, ctx({ VOXDEX_MAX_REQUEST_AUDIO_SEC: '30' })), 'TOO_LARGE', /more than 30 seconds/);
  assert.ok(Math.abs((await decode({ source: fileSource(amr) }, ctx())).durationSec - 600) < 1);
});

t('ffmpeg runs within its memory limit: too small a limit is TOO_LARGE naming the setting', async () => {
  const wav = await makeWav(dir, { rate: 16000, text: 'memory', name: 'mem.wav' });
  const mp3 = await makeCoded(dir, wav, 'mp3-32k');
  await rejects(() => decode({ source: fileSource(mp3) }, ctx({ VOXDEX_TRANSCODE_MEMORY_MIB: '64' })), 'TOO_LARGE', /VOXDEX_TRANSCODE_MEMORY_MIB/);
});

t('a cancelled decode kills ffmpeg: CANCELLED', async () => {
  const wav = path.join(dir, 'cancel.wav');
  await run('sox', [LIBRIVOX_WAV, wav, 'repeat', '60']);
  const flac = await makeCoded(dir, wav, 'flac');
  const ac = new AbortController();
  const c = { ...ctx(), signal: ac.signal };
  setTimeout(() => ac.abort(), 5);
  await rejects(() => decode({ source: fileSource(flac) }, c), 'CANCELLED');
});

t('VOXDEX_TRANSCODE=off and a missing ffmpeg: 415 naming the format and how to enable transcoding', async () => {
  const wav = await makeWav(dir, { rate: 8000, text: 'off', name: 'off.wav' });
  const mp3 = await makeCoded(dir, wav, 'mp3-32k');
  const gsm = await makeCoded(dir, wav, 'gsm-wav');
  const off = loadConfig({ VOXDEX_TRANSCODE: 'off' }).transcode;
  await rejects(() => probeUpload(mp3, { transcode: off }, config.archive), 'UNSUPPORTED_AUDIO', /^Found MPEG audio \(MP3 with an ID3 tag\); transcoding is turned off on this installation \(VOXDEX_TRANSCODE=off\); the operator enables it by removing that setting\. Or send RIFF\/WAVE/);
  await rejects(() => probeUpload(gsm, { transcode: off }, config.archive), 'UNSUPPORTED_AUDIO', /^Found WAV with GSM 6\.10 \(format tag 0x0031\); transcoding is turned off/);
  await rejects(() => decode({ source: fileSource(mp3) }, ctx({ VOXDEX_TRANSCODE: 'off' })), 'UNSUPPORTED_AUDIO', /VOXDEX_TRANSCODE=off/);
  const missing = loadConfig({ VOXDEX_FFMPEG: path.join(dir, 'no-such-ffmpeg') }).transcode;
  assert.is(transcoding(missing), 'missing');
  await rejects(() => probeUpload(mp3, { transcode: missing }, config.archive), 'UNSUPPORTED_AUDIO', /^Found MPEG audio \(MP3 with an ID3 tag\); transcoding needs ffmpeg, which is not installed on this installation; the operator enables it by installing it \(scripts\/install\.sh, or apt-get install ffmpeg\)\./);
  // A format nobody transcodes says so, with transcoding on.
  const midi = path.join(dir, 'song.mid');
  writeFileSync(midi, Buffer.from('MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60', 'latin1'));
  await rejects(() => probeUpload(midi, { transcode: config.transcode }, config.archive), 'UNSUPPORTED_AUDIO', /^Found a MIDI file, which voxdex does not transcode\. Send WAV, MP3, FLAC/);
});

t('an archive may hold any accepted format: each member decodes, a broken one is a per-file error', async () => {
  const wav = await makeWav(dir, { rate: 8000, text: 'one archive many formats', name: 'mixed.wav' });
  const members = [wav, await makeCoded(dir, wav, 'mp3-32k'), await makeCoded(dir, wav, 'opus'), await makeCoded(dir, wav, 'gsm-wav'), await makeCoded(dir, wav, 'amr-nb')];
  const broken = path.join(dir, 'broken.flac');
  writeFileSync(broken, Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.alloc(200, 7)]));
  const zip = await makeZip(dir, 'mixed.zip', [...members, broken]);
  assert.equal(await probeUpload(zip, { transcode: config.transcode }, config.archive), { kind: 'zip', members: 6 });
  const out = await unpack({ source: fileSource(zip), seal, workDir: workDir() }, ctx());
  assert.is(out.items.length, 6);
  for (const item of out.items) {
    assert.not.ok(isFailedItem(item), item.name);
    if (isFailedItem(item)) continue;
    if (item.name === 'broken.flac') await rejects(() => decode({ source: item.source }, ctx()), 'BAD_AUDIO', /^The FLAC audio could not be decoded|^The FLAC audio holds no audio/);
    else {
      // AMR-NB from sox uses DTX: ffmpeg 5.1 does not decode comfort-noise frames; inner ones become silence, trailing ones are lost.
      const short = (await decodeWav(wav)).durationSec - (await decode({ source: item.source }, ctx())).durationSec;
      assert.ok(short > -0.1 && short < (item.name.endsWith('.amr') ? 1.5 : 0.1), `${item.name}: ${short}`);
    }
  }
  // With transcoding off the coded members are per-file errors and the WAV still goes through.
  const off = await unpack({ source: fileSource(zip), seal, workDir: workDir() }, ctx({ VOXDEX_TRANSCODE: 'off' }));
  assert.equal(
    off.items.map((i) => (isFailedItem(i) ? i.error.code : 'ok')),
    ['ok', 'UNSUPPORTED_AUDIO', 'UNSUPPORTED_AUDIO', 'UNSUPPORTED_AUDIO', 'UNSUPPORTED_AUDIO', 'UNSUPPORTED_AUDIO'],
  );
});

t('ffmpeg messages reach clients printable, without pipe names and repeats', () => {
  assert.equal(ffmpegLines('[mp3 @ 0x55d] Header missing\n[mp3 @ 0x55d] Header missing\n    Last message repeated 3 times\npipe:0: Invalid data found when processing input\x07\n'), [
    'Header missing',
    'Invalid data found when processing input?',
  ]);
});

t.run();
