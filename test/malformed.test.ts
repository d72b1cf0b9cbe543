import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readWavHeader } from '../src/audio/wav-header.js';
import { decodeWav, decodeWavBuffer } from '../src/stages/decode.js';
import { probeUpload } from '../src/stages/probe.js';
import { unpack } from '../src/stages/unpack.js';
import { VoxdexError } from '../src/errors.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { StageContext } from '../src/types.js';
import { chunk, fmtBody, fmtChunk, make7z, makeTempDir, makeWav, makeZip, makeZipBomb, makeZipRaw, removeDir, riffWave, run, writeFile } from './fixtures/make-audio.js';
import { rejects } from './fixtures/assert-error.js';
import { fileSource } from '../src/audio/byte-source.js';
import { AudioSeal } from '../src/audio/sealed-file.js';

/** An upload as the unpack stage gets it: its bytes, and the key its members are sealed with. */
const seal = AudioSeal.ephemeral();
const upload = (file: string) => ({ source: fileSource(file), seal });

const bad = suite('malformed');
let dir = '';
let wav = '';
let n = 0;
const config = loadConfig({});
const ctx: StageContext = { jobId: 'job', signal: new AbortController().signal, log: silentLogger, config };

bad.before(async () => {
  dir = makeTempDir('voxdex-malformed-');
  wav = await makeWav(dir, { name: 'ok.wav', rate: 8000, encoding: 'mulaw', seconds: 0.5 });
});
bad.after(() => removeDir(dir));

function workDir(): string {
  const d = path.join(dir, `work-${n++}`);
  mkdirSync(d);
  return d;
}


const data = chunk('data', Buffer.alloc(16));
const lie = (id: string, size: number, body: Uint8Array = Buffer.alloc(0)) => chunk(id, body, size);

const wavCorpus: Array<[string, Buffer, string, RegExp]> = [
  ['a RIFF header cut after 6 bytes', Buffer.from('RIFF\x10\x00'), 'BAD_AUDIO', /file is only 6 bytes; a RIFF header needs 12/],
  ['RIFF/WAVE with no chunks', riffWave([]), 'BAD_AUDIO', /no fmt chunk/],
  ['a fmt chunk of 12 bytes', riffWave([chunk('fmt ', fmtBody().subarray(0, 12)), data]), 'BAD_AUDIO', /fmt chunk is 12 bytes; at least 16 are needed/],
  ['a fmt chunk cut off by the end of file', riffWave([lie('fmt ', 16, fmtBody().subarray(0, 10))]), 'BAD_AUDIO', /fmt chunk is cut off \(10 of 16 bytes\)/],
  ['a fmt chunk claiming 2 GiB', riffWave([lie('fmt ', 0x7fffffff, fmtBody()), data]), 'BAD_AUDIO', /fmt chunk claims 2147483647 bytes/],
  ['zero channels', riffWave([fmtChunk({ channels: 0, blockAlign: 2 }), data]), 'BAD_AUDIO', /fmt chunk says zero channels/],
  ['0 Hz', riffWave([fmtChunk({ rate: 0 }), data]), 'BAD_AUDIO', /fmt chunk says 0 Hz/],
  ['a block align that does not match the channels', riffWave([fmtChunk({ channels: 2, blockAlign: 2 }), data]), 'BAD_AUDIO', /block align 2 does not match 2 channel\(s\) × 2 byte\(s\) = 4/],
  ['no data chunk', riffWave([fmtChunk()]), 'BAD_AUDIO', /no data chunk/],
  ['a data chunk before the fmt chunk', riffWave([data, fmtChunk()]), 'BAD_AUDIO', /data chunk comes before the fmt chunk/],
  ['a LIST chunk lying about its size', riffWave([fmtChunk(), lie('LIST', 0xfffffff0, Buffer.from('INFO')), data]), 'BAD_AUDIO', /no data chunk/],
  ['an empty data chunk at the end of the file', riffWave([fmtChunk(), chunk('data', Buffer.alloc(0))]), 'BAD_AUDIO', /data chunk holds no samples/],
  ['a short WAVE_FORMAT_EXTENSIBLE fmt', riffWave([fmtChunk({ tag: 0xfffe, extra: Buffer.alloc(2) }), data]), 'BAD_AUDIO', /WAVE_FORMAT_EXTENSIBLE fmt chunk is 18 bytes; 40 are needed/],
  ['mu-law with 16 bits per sample', riffWave([fmtChunk({ tag: 7, bits: 16 }), data]), 'BAD_AUDIO', /G\.711 mu-law with 16 bits per sample/],
  ['two fmt chunks', riffWave([fmtChunk(), fmtChunk(), data]), 'BAD_AUDIO', /two fmt chunks/],
  ['big-endian RIFX', Buffer.concat([Buffer.from('RIFX\x00\x00\x00\x00WAVE'), fmtChunk(), data]), 'UNSUPPORTED_AUDIO', /Big-endian RIFX/],
  ['RF64', Buffer.concat([Buffer.from('RF64\xff\xff\xff\xffWAVE', 'latin1'), fmtChunk(), data]), 'UNSUPPORTED_AUDIO', /RF64 WAVE is not supported/],
  ['257 channels', riffWave([fmtChunk({ channels: 257, bits: 8, tag: 7 }), data]), 'UNSUPPORTED_AUDIO', /^WAV with 257 channels; at most 256 are supported\.$/],
  ['96 kHz', riffWave([fmtChunk({ rate: 96000 }), data]), 'BAD_SAMPLE_RATE', /Sample rate 96000 Hz is outside 8000–48000 Hz/],
];

for (const [what, bytes, code, message] of wavCorpus) {
  bad(`rejects a WAV with ${what} with ${code}`, async () => {
    await rejects(() => decodeWavBuffer(bytes), code, message);
    const file = writeFile(dir, `corpus-${n++}.wav`, bytes);
    await rejects(() => readWavHeader(file), code, message);
    await rejects(() => decodeWav(file), code, message);
    await rejects(() => probeUpload(file, {}, config.archive), code, message);
  });
}

bad('a real WAV cut inside its header is BAD_AUDIO; cut inside its data it decodes what is there with a warning', async () => {
  const full = readFileSync(wav);
  await rejects(() => decodeWavBuffer(full.subarray(0, 30)), 'BAD_AUDIO', /fmt chunk is cut off/);
  const cut = decodeWavBuffer(full.subarray(0, full.length - 1000));
  assert.is(cut.channels[0]!.length, 4000 - 1000);
  assert.match(cut.warnings[0]!, /^data chunk claims 4000 bytes but the file holds 3000; read to end of file$/);
});

bad('never throws anything but a VoxdexError on 3000 mutated WAV headers', () => {
  const base = readFileSync(wav).subarray(0, 200);
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const codes = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const b = Buffer.from(base);
    for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) b[Math.floor(rand() * 64)] = Math.floor(rand() * 256);
    const cut = rand() < 0.3 ? b.subarray(0, Math.floor(rand() * b.length)) : b;
    try {
      const audio = decodeWavBuffer(cut);
      assert.ok(audio.channels.length > 0 && audio.channels[0]!.length > 0);
      codes.add('ok');
    } catch (err) {
      assert.instance(err, VoxdexError, `mutation ${i}: ${String(err)}`);
      codes.add((err as VoxdexError).code);
    }
  }
  assert.ok(codes.has('ok') && codes.has('BAD_AUDIO') && codes.has('UNSUPPORTED_AUDIO'), [...codes].join());
});

// ---------------------------------------------------------------- uploads that are not WAV/zip/7z

bad('with transcoding off, rejects uploads that are not RIFF/WAVE, zip or 7z with UNSUPPORTED_AUDIO naming what they are', async () => {
  const off = loadConfig({ VOXDEX_TRANSCODE: 'off' });
  const offCtx = { ...ctx, config: off };
  const flac = path.join(dir, 'x.flac');
  await run('sox', [wav, flac]);
  const ogg = path.join(dir, 'x.ogg');
  await run('sox', [wav, ogg]);
  const gz = path.join(dir, 'x.wav.gz');
  await run('sh', ['-c', `gzip -c "${wav}" > "${gz}"`]);
  const avi = riffWave([chunk('LIST', Buffer.from('hdrl'))], 'AVI ');
  const cases: Array<[string, Uint8Array | string, RegExp]> = [
    ['mp3-id3.wav', Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(20)]), /^Found MPEG audio \(MP3 with an ID3 tag\); transcoding is turned off on this installation \(VOXDEX_TRANSCODE=off\)/],
    ['mp3-frame.wav', Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0]), /^Found MPEG audio; transcoding is turned off/],
    ['ogg.wav', readFileSync(ogg), /^Found Ogg Vorbis audio; transcoding is turned off/],
    ['flac.wav', readFileSync(flac), /^Found FLAC audio; transcoding is turned off/],
    ['avi.wav', avi, /^Found RIFF AVI video, which is not audio voxdex accepts/],
    ['gz.wav', readFileSync(gz), /^Found a gzip archive, which is not audio/],
    ['rar.zip', Buffer.from('Rar!\x1a\x07\x01\x00junk', 'latin1'), /^Found a RAR archive, which/],
    ['doc.wav', '%PDF-1.4\n%junk\n', /^Found a PDF document, which/],
    ['noise.wav', 'hello, this is not audio', /^Found unknown content, which/],
    ['empty.wav', '', /^Found an empty file, which/],
  ];
  for (const [name, bytes, message] of cases) {
    const file = writeFile(dir, name, bytes);
    await rejects(() => probeUpload(file, { transcode: off.transcode }, config.archive), 'UNSUPPORTED_AUDIO', message);
    await rejects(() => unpack({ ...upload(file), workDir: workDir() }, offCtx), 'UNSUPPORTED_AUDIO', message);
  }
  // With transcoding on, the same audio formats are read by ffmpeg: garbage behind their headers is BAD_AUDIO.
  for (const name of ['mp3-id3.wav', 'mp3-frame.wav']) await rejects(() => probeUpload(path.join(dir, name), {}, config.archive), 'BAD_AUDIO', /^The MPEG audio/);
  assert.equal(await probeUpload(path.join(dir, 'flac.wav'), {}, config.archive), { kind: 'coded' });
});

// ---------------------------------------------------------------- hostile archives

for (const member of ['../evil.wav', '/tmp/voxdex-abs-evil.wav', 'calls/../../evil.wav']) {
  bad(`rejects a zip with member ${member} as UNSAFE_ARCHIVE_MEMBER and writes nothing`, async () => {
    const zip = await makeZipRaw(dir, `slip-${n++}.zip`, [{ name: 'fine.wav', file: wav }, { name: member, file: wav }]);
    const wd = workDir();
    await rejects(() => probeUpload(zip, {}, config.archive), 'UNSAFE_ARCHIVE_MEMBER', /has an absolute path or "\.\."/);
    await rejects(() => unpack({ ...upload(zip), workDir: wd }, ctx), 'UNSAFE_ARCHIVE_MEMBER', new RegExp(`member ${JSON.stringify(member).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.equal(readdirSync(wd), []);
    assert.not.ok(existsSync(path.join(dir, 'evil.wav')));
    assert.not.ok(existsSync('/tmp/voxdex-abs-evil.wav'));
  });
}

bad('rejects a zip with a symbolic link member (zip -y) as UNSAFE_ARCHIVE_MEMBER', async () => {
  const link = path.join(dir, 'passwd.wav');
  await run('ln', ['-sf', '/etc/passwd', link]);
  const zip = await makeZip(dir, 'link.zip', [wav, link], { symlinks: true });
  await rejects(() => probeUpload(zip, {}, config.archive), 'UNSAFE_ARCHIVE_MEMBER', /^Archive member "passwd\.wav" is a symbolic link/);
  await rejects(() => unpack({ ...upload(zip), workDir: workDir() }, ctx), 'UNSAFE_ARCHIVE_MEMBER');
});

bad('rejects a zip bomb (200 MiB of zeros deflated) by its compression ratio before extracting', async () => {
  const bomb = await makeZipBomb(dir, 'bomb.zip', 200, 'zeros.wav');
  const wd = workDir();
  const t = performance.now();
  await rejects(() => probeUpload(bomb, {}, config.archive), 'ARCHIVE_LIMIT', /^Archive member "zeros\.wav" is compressed \d+:1; at most 200:1 is accepted \(VOXDEX_ARCHIVE_MAX_RATIO=200\)/);
  await rejects(() => unpack({ ...upload(bomb), workDir: wd }, ctx), 'ARCHIVE_LIMIT', /VOXDEX_ARCHIVE_MAX_RATIO/);
  assert.ok(performance.now() - t < 3000, 'decided from the listing');
  assert.equal(readdirSync(wd), []);
});

bad('rejects a solid 7z block of 20 MiB of zeros by its compression ratio', async () => {
  const zeros = writeFile(dir, 'zeros.wav', Buffer.alloc(20 << 20));
  const sz = await make7z(dir, 'bomb.7z', [wav, zeros]);
  await rejects(() => probeUpload(sz, {}, config.archive), 'ARCHIVE_LIMIT', /^Archive member "ok\.wav" \(and 1 more in its block\) is compressed \d+:1; at most 200:1/);
});

bad('a zip whose headers understate a member’s size extracts only the stated bytes and reports that member', async () => {
  const script = [
    'import sys, struct, zipfile',
    'out, ok = sys.argv[1], sys.argv[2]',
    'with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:',
    '    z.write(ok, "ok.wav")',
    '    z.writestr("big.wav", bytes(50 << 20))',
    'b = bytearray(open(out, "rb").read())',
    'i = b.find(b"PK\\x03\\x04", 30)', // the second local header
    'struct.pack_into("<I", b, i + 22, 1000)',
    'j = b.find(b"PK\\x01\\x02")',
    'j = b.find(b"PK\\x01\\x02", j + 4)', // the second central directory entry
    'struct.pack_into("<I", b, j + 24, 1000)',
    'open(out, "wb").write(b)',
  ].join('\n');
  const zip = path.join(dir, 'understated.zip');
  await run('python3', ['-c', script, zip, wav]);
  const wd = workDir();
  const out = await unpack({ ...upload(zip), workDir: wd }, ctx);
  assert.equal(
    out.items.map((i) => ('error' in i ? `${i.name} ${i.error.code}` : i.name)),
    ['ok.wav', 'big.wav BAD_ARCHIVE'],
  );
  // What is left of big.wav in the work folder (sealed) is at most the size the listing gave.
  for (const f of readdirSync(wd)) assert.ok(seal.open(path.join(wd, f)).size <= Math.max(1000, statSync(wav).size), f);
});

bad('rejects a truncated zip and a zip signature with garbage with BAD_ARCHIVE', async () => {
  const zip = readFileSync(await makeZip(dir, 'whole.zip', [wav]));
  const cut = writeFile(dir, 'cut.zip', zip.subarray(0, Math.floor(zip.length / 2)));
  await rejects(() => probeUpload(cut, {}, config.archive), 'BAD_ARCHIVE', /^The zip archive cannot be read/);
  const junk = writeFile(dir, 'junk.zip', Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 7)]));
  await rejects(() => unpack({ ...upload(junk), workDir: workDir() }, ctx), 'BAD_ARCHIVE');
  const sz = readFileSync(await make7z(dir, 'whole.7z', [wav]));
  const cut7 = writeFile(dir, 'cut.7z', sz.subarray(0, 40));
  await rejects(() => probeUpload(cut7, {}, config.archive), 'BAD_ARCHIVE', /^The 7z archive cannot be read/);
});

bad('a malformed 7z is BAD_ARCHIVE with a message that names no server path (issue 21.4)', async () => {
  const sz = readFileSync(await make7z(dir, 'whole4.7z', [wav]));
  const cases = [
    writeFile(dir, 'garbage.7z', Buffer.concat([sz.subarray(0, 8), Buffer.alloc(300, 9)])),
    writeFile(dir, 'cut4.7z', sz.subarray(0, 40)),
  ];
  for (const file of cases) {
    for (const attempt of [() => probeUpload(file, {}, config.archive), () => unpack({ ...upload(file), workDir: workDir() }, ctx)]) {
      try {
        await attempt();
        assert.unreachable(file);
      } catch (err) {
        const e = err as VoxdexError;
        assert.is(e.code, 'BAD_ARCHIVE');
        assert.match(e.message, /^The 7z archive cannot be read \(.+\)\. Send a complete, valid archive\.$/);
        assert.not.match(e.message, dir);
        assert.not.match(e.message, /\/(tmp|work|data)\b|garbage|cut4/);
      }
    }
  }
});

for (const [label, make] of [
  ['zip ZipCrypto', () => makeZip(dir, 'pw-zc.zip', [wav], { password: 'right' })],
  ['zip AES-256', () => make7z(dir, 'pw-aes.zip', [wav], { type: 'zip', password: 'right' })],
  ['7z AES-256', () => make7z(dir, 'pw-aes.7z', [wav], { password: 'right' })],
  ['7z AES-256 with encrypted headers (-mhe=on)', () => make7z(dir, 'pw-he.7z', [wav], { password: 'right', encryptHeaders: true })],
] as const) {
  bad(`rejects a ${label} archive with a wrong or missing zpass with BAD_ZPASS, quickly`, async () => {
    const file = await make();
    const t = performance.now();
    await rejects(() => probeUpload(file, { zpass: 'wrong' }, config.archive), 'BAD_ZPASS', /^The archive password \(zpass\) is wrong/);
    await rejects(() => probeUpload(file, {}, config.archive), 'BAD_ZPASS', /^The archive is encrypted\. Send its password in the zpass field\./);
    await rejects(() => unpack({ ...upload(file), zpass: 'wrong', workDir: workDir() }, ctx), 'BAD_ZPASS');
    await rejects(() => unpack({ ...upload(file), workDir: workDir() }, ctx), 'BAD_ZPASS');
    assert.ok(performance.now() - t < 5000);
    assert.equal(await probeUpload(file, { zpass: 'right' }, config.archive), { kind: file.endsWith('.7z') ? '7z' : 'zip', members: 1 });
  });
}

bad.run();
