import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, readdirSync, statSync, statfsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { probeUpload } from '../src/stages/probe.js';
import { isFailedItem, unpack, type UnpackItem } from '../src/stages/unpack.js';
import { decodeWav } from '../src/stages/decode.js';
import { loadConfig, type Config } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { StageContext } from '../src/types.js';
import { ASTERISK_PROMPT, make7z, makeSilenceZip, makeTempDir, makeWav, makeZip, makeZipRaw, removeDir, run, writeFile } from './fixtures/make-audio.js';
import { rejects } from './fixtures/assert-error.js';
import { fileSource } from '../src/audio/byte-source.js';
import { AudioSeal } from '../src/audio/sealed-file.js';

/** An upload as the unpack stage gets it: its bytes, and the key its members are sealed with. */
const seal = AudioSeal.ephemeral();
const upload = (file: string) => ({ source: fileSource(file), seal });

const up = suite('unpack');
let dir = '';
let wavA = '';
let wavB = '';
let n = 0;
const config = loadConfig({});
const limits = config.archive;

function ctx(archive: Partial<Config['archive']> = {}): StageContext {
  return { jobId: 'job', signal: new AbortController().signal, log: silentLogger, config: { ...config, archive: { ...config.archive, ...archive } } };
}

function workDir(): string {
  const d = path.join(dir, `work-${n++}`);
  mkdirSync(d);
  return d;
}


function summary(items: UnpackItem[]) {
  return items.map((i) => (isFailedItem(i) ? { name: i.name, code: i.error.code } : { name: i.name, metadata: i.metadata }));
}

up.before(async () => {
  dir = makeTempDir('voxdex-unpack-');
  wavA = await makeWav(dir, { name: 'a.wav', rate: 8000, channels: 2, encoding: 'mulaw', seconds: 0.5 });
  wavB = await makeWav(dir, { name: 'b.wav', rate: 16000, encoding: 'pcm_s16', seconds: 0.3 });
  writeFileSync(path.join(dir, 'a.json'), '{"agent":"Ann","call":7}');
});
up.after(() => removeDir(dir));

up('passes a single WAV upload through as one item, detected by content whatever its name', async () => {
  const named = writeFile(dir, 'upload.bin', readFileSync(wavA));
  assert.equal(await probeUpload(named, {}, limits), { kind: 'wav' });
  const source = fileSource(named);
  const out = await unpack({ source, seal, name: 'call.wav', workDir: workDir() }, ctx());
  assert.equal(out, { kind: 'wav', items: [{ name: 'call.wav', source }] });
});

up('unpacks a deflate zip with a name.json sidecar as that member’s metadata', async () => {
  const zip = await makeZip(dir, 'calls.zip', [wavA, path.join(dir, 'a.json'), wavB]);
  assert.equal(await probeUpload(zip, {}, limits), { kind: 'zip', members: 2 });
  const wd = workDir();
  const out = await unpack({ ...upload(zip), workDir: wd }, ctx());
  assert.is(out.kind, 'zip');
  assert.equal(summary(out.items), [
    { name: 'a.wav', metadata: { agent: 'Ann', call: 7 } },
    { name: 'b.wav', metadata: undefined },
  ]);
  const a = out.items[0]!;
  assert.ok(!isFailedItem(a) && a.sealedPath!.startsWith(wd));
  if (!isFailedItem(a)) assert.is((await decodeWav(a.source)).format.channels, 2);
  assert.ok(!isFailedItem(a) && readFileSync(a.sealedPath!).indexOf('RIFF') < 0, 'the member waits sealed');
});

up('unpacks a stored zip with members in a subfolder, and a real Asterisk prompt inside it', async () => {
  const zip = await makeZip(dir, 'stored.zip', [{ path: ASTERISK_PROMPT, name: 'prompts/activated.wav' }, { path: wavB, name: 'prompts/b.wav' }], { store: true });
  const out = await unpack({ ...upload(zip), workDir: workDir() }, ctx());
  assert.equal(summary(out.items).map((i) => i.name), ['prompts/activated.wav', 'prompts/b.wav']);
  const item = out.items[0]!;
  assert.ok(!isFailedItem(item));
  if (!isFailedItem(item)) assert.is((await decodeWav(item.source)).format.sampleRate, 8000);
});

for (const method of ['LZMA', 'LZMA2']) {
  up(`unpacks a 7z archive compressed with ${method}`, async () => {
    const sz = await make7z(dir, `calls-${method}.7z`, [wavA, path.join(dir, 'a.json'), wavB], { method });
    assert.equal(await probeUpload(sz, {}, limits), { kind: '7z', members: 2 });
    const out = await unpack({ ...upload(sz), workDir: workDir() }, ctx());
    assert.equal(summary(out.items), [
      { name: 'a.wav', metadata: { agent: 'Ann', call: 7 } },
      { name: 'b.wav', metadata: undefined },
    ]);
  });
}

for (const [label, make] of [
  ['zip ZipCrypto', () => makeZip(dir, 'zc.zip', [wavA, wavB], { password: 's3cret pass' })],
  ['zip AES-256', () => make7z(dir, 'aes.zip', [wavA, wavB], { type: 'zip', password: 's3cret pass' })],
  ['7z AES-256', () => make7z(dir, 'aes.7z', [wavA, wavB], { password: 's3cret pass' })],
  ['7z AES-256 with encrypted headers', () => make7z(dir, 'he.7z', [wavA, wavB], { password: 's3cret pass', encryptHeaders: true })],
] as const) {
  up(`unpacks a ${label} archive with the right zpass`, async () => {
    const file = await make();
    assert.is((await probeUpload(file, { zpass: 's3cret pass' }, limits)).members, 2);
    const out = await unpack({ ...upload(file), zpass: 's3cret pass', workDir: workDir() }, ctx());
    assert.equal(summary(out.items).map((i) => i.name), ['a.wav', 'b.wav']);
    assert.ok(out.items.every((i) => !isFailedItem(i)));
  });
}

up('reports nested archives, non-audio, bad metadata and lone .json as per-file errors', async () => {
  const inner = await makeZip(dir, 'inner.zip', [wavB]);
  const flac = path.join(dir, 'song.flac');
  await run('sox', ['-n', '-r', '8000', flac, 'synth', '0.2', 'sine', '300']);
  const gz = path.join(dir, 'x.gz');
  writeFileSync(gz, Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
  const notes = writeFile(dir, 'notes.txt', 'call notes\n');
  const badMeta = writeFile(dir, 'bad.json', '{"agent": ');
  const arrMeta = writeFile(dir, 'arr.json', '[1,2]');
  const lone = writeFile(dir, 'lone.json', '{}');
  const zip = await makeZip(dir, 'mixed.zip', [
    wavA,
    inner,
    { path: flac, name: 'song.wav' },
    gz,
    notes,
    { path: wavB, name: 'bad.wav' },
    badMeta,
    { path: wavB, name: 'arr.wav' },
    arrMeta,
    lone,
  ]);
  const out = await unpack({ ...upload(zip), workDir: workDir() }, ctx());
  assert.equal(summary(out.items), [
    { name: 'a.wav', metadata: undefined },
    { name: 'inner.zip', code: 'NESTED_ARCHIVE' },
    { name: 'song.wav', metadata: undefined },
    { name: 'x.gz', code: 'NESTED_ARCHIVE' },
    { name: 'notes.txt', code: 'NOT_AUDIO' },
    { name: 'bad.wav', code: 'BAD_ARGUMENT' },
    { name: 'arr.wav', code: 'BAD_ARGUMENT' },
    { name: 'lone.json', code: 'NOT_AUDIO' },
  ]);
  const song = out.items[2]!;
  assert.not.ok(isFailedItem(song), 'FLAC (named .wav) is transcoded');
  const nested = out.items[1]!;
  assert.ok(isFailedItem(nested) && /nested archives are not expanded/.test(nested.error.message));
  const bad = out.items[5]!;
  assert.ok(isFailedItem(bad) && /^Its metadata bad\.json is not valid JSON/.test(bad.error.message));
});

up('skips directory entries of recursively made zip and 7z archives', async () => {
  const src = path.join(dir, 'tree');
  mkdirSync(path.join(src, 'calls', 'deep'), { recursive: true });
  writeFileSync(path.join(src, 'calls', 'deep', 'b.wav'), readFileSync(wavB));
  writeFileSync(path.join(src, 'calls', 'deep', 'b.json'), '{"deep":true}');
  const zip = path.join(dir, 'tree.zip');
  await run('zip', ['-qr', zip, 'calls'], { cwd: src });
  const sz = path.join(dir, 'tree.7z');
  await run('7z', ['a', '-bd', sz, 'calls'], { cwd: src });
  for (const file of [zip, sz]) {
    assert.is((await probeUpload(file, {}, limits)).members, 1);
    const out = await unpack({ ...upload(file), workDir: workDir() }, ctx());
    assert.equal(summary(out.items), [{ name: 'calls/deep/b.wav', metadata: { deep: true } }]);
  }
});

up('treats member names with wildcard characters and a leading @ literally', async () => {
  const zip = await makeZipRaw(dir, 'odd-names.zip', [
    { name: 'notes [1] *.txt', data: 'text' },
    { name: '@call?.wav', file: wavB },
  ]);
  assert.equal(await probeUpload(zip, {}, limits), { kind: 'zip', members: 2 });
  const out = await unpack({ ...upload(zip), workDir: workDir() }, ctx());
  assert.equal(summary(out.items), [
    { name: 'notes [1] *.txt', code: 'NOT_AUDIO' },
    { name: '@call?.wav', metadata: undefined },
  ]);
});

up('stops with CANCELLED when the job is cancelled while 7z would run', async () => {
  const zip = await makeZip(dir, 'cancel.zip', [wavA]);
  const ac = new AbortController();
  ac.abort();
  await rejects(() => unpack({ ...upload(zip), workDir: workDir() }, { ...ctx(), signal: ac.signal }), 'CANCELLED', /^Unpacking was cancelled\.$/);
  await rejects(() => probeUpload(zip, { signal: ac.signal }, limits), 'CANCELLED');
});

up('fails with NO_AUDIO_MEMBERS when an archive holds no audio', async () => {
  const notes = writeFile(dir, 'readme.txt', 'nothing here\n');
  const zip = await makeZip(dir, 'text.zip', [notes]);
  await rejects(() => probeUpload(zip, {}, limits), 'NO_AUDIO_MEMBERS', /"readme\.txt" is unknown content/);
  await rejects(() => unpack({ ...upload(zip), workDir: workDir() }, ctx()), 'NO_AUDIO_MEMBERS', /readme\.txt: Archive member is unknown content/);
  const two = await makeZip(dir, 'two-texts.zip', [notes, writeFile(dir, 'page.pdf', '%PDF-1.4\n')]);
  await rejects(() => probeUpload(two, {}, limits), 'NO_AUDIO_MEMBERS', /^The archive holds no audio: "page\.pdf" is a PDF document; "readme\.txt" is unknown content\./);
  const onlyJson = await makeZip(dir, 'json.zip', [path.join(dir, 'a.json')]);
  await rejects(() => probeUpload(onlyJson, {}, limits), 'NO_AUDIO_MEMBERS', /only "a\.json"/);
  const nested = await makeZip(dir, 'nested-only.zip', [await makeZip(dir, 'in.zip', [wavA])]);
  await rejects(() => unpack({ ...upload(nested), workDir: workDir() }, ctx()), 'NO_AUDIO_MEMBERS', /nested archives are not expanded/);
});

up('enforces the member-count and total-size limits from the listing, before extracting', async () => {
  const zip = await makeZip(dir, 'three.zip', [wavA, wavB, { path: wavB, name: 'c.wav' }]);
  await rejects(() => probeUpload(zip, {}, { ...limits, maxMembers: 2 }), 'ARCHIVE_LIMIT', /^The archive has 3 members; at most 2 are accepted \(VOXDEX_ARCHIVE_MAX_MEMBERS=2\)/);
  const wd = workDir();
  const total = statSync(wavA).size + 2 * statSync(wavB).size;
  await rejects(() => unpack({ ...upload(zip), workDir: wd }, ctx({ maxTotalBytes: total - 1 })), 'ARCHIVE_LIMIT', new RegExp(`unpacks to ${total} bytes; at most ${total - 1} are accepted \\(VOXDEX_ARCHIVE_MAX_TOTAL_MIB=${Number(((total - 1) / 1048576).toFixed(2))}\\)`));
  assert.is((await probeUpload(zip, {}, { ...limits, maxTotalBytes: total, maxMembers: 3 })).members, 3);
  assert.equal(readdirSync(wd), []);
});

up('refuses an archive whose members, each under the per-member ratio threshold, unpack to more than 200 times its size', async () => {
  // 100 members of 1,048,058 bytes of mu-law silence (each under 1 MiB, so the per-member ratio check
  // skips them) beside one real call: 100 MB from a zip of about 100 kB.
  const zip = await makeSilenceZip(dir, 'silence-bomb.zip', wavA, 100);
  const size = statSync(zip).size;
  const total = statSync(wavA).size + 100 * 1_048_058;
  const times = Math.round(total / size);
  assert.ok(times > 200, `ratio ${times}`);
  const message = `The archive unpacks to ${total.toLocaleString('en-US')} bytes, ${times} times its own size of ${size.toLocaleString('en-US')} bytes; at most 200 times is accepted (VOXDEX_ARCHIVE_MAX_RATIO=200).`;
  await rejects(() => probeUpload(zip, {}, limits), 'ARCHIVE_LIMIT', new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  const wd = workDir();
  await rejects(() => unpack({ ...upload(zip), workDir: wd }, ctx()), 'ARCHIVE_LIMIT', /VOXDEX_ARCHIVE_MAX_RATIO=200/);
  assert.equal(readdirSync(wd), [], 'nothing extracted');
});

up('caps the audio of one request from the listing (sizes at 8000 bytes/s) and from a single WAV header', async () => {
  const zip = await makeZip(dir, 'audio-cap.zip', [wavA, wavB, { path: path.join(dir, 'a.json'), name: 'a.json' }]);
  const bytes = statSync(wavA).size + statSync(wavB).size; // the .json sidecar does not count
  const seconds = bytes / 8000;
  const maxAudioSec = Math.floor(seconds);
  await rejects(
    () => probeUpload(zip, {}, { ...limits, maxAudioSec }),
    'ARCHIVE_LIMIT',
    new RegExp(
      `^The archive's 2 possible audio members may hold up to ${seconds.toFixed(1).replace(/\.0$/, '')} s of audio \\(${bytes.toLocaleString('en-US')} bytes at 8000 bytes per second per channel, the lowest rate accepted: before extraction only sizes are known\\); at most ${maxAudioSec} s per request is accepted \\(VOXDEX_MAX_REQUEST_AUDIO_SEC=${maxAudioSec}\\)\\. Split it into several requests\\.$`,
    ),
  );
  await rejects(() => unpack({ ...upload(zip), workDir: workDir() }, ctx({ maxAudioSec })), 'ARCHIVE_LIMIT', /VOXDEX_MAX_REQUEST_AUDIO_SEC/);
  assert.is((await probeUpload(zip, {}, { ...limits, maxAudioSec: maxAudioSec + 1 })).members, 2);
  // A single WAV: the exact length from its header, every channel counted (wavA: 0.5 s of stereo).
  await rejects(
    () => probeUpload(wavA, {}, { ...limits, maxAudioSec: 0.9 }),
    'TOO_LARGE',
    /^The recording holds 1 s of audio \(2 channels of 0\.5 s\); at most 0\.9 s per request is accepted \(VOXDEX_MAX_REQUEST_AUDIO_SEC=0\.9\)/,
  );
  assert.equal(await probeUpload(wavA, {}, { ...limits, maxAudioSec: 1 }), { kind: 'wav' });
  // The default allows a day of audio per request.
  assert.is(limits.maxAudioSec, 86_400);
});

up('sums the members’ real lengths before transcribing: three 390 s FLAC members are refused under a 600 s cap (issue 33.6)', async () => {
  // FLAC of a quiet tone: 390 s in a few KB, far under the listing's bound of 8000 bytes per second.
  const flac = path.join(dir, 'long.flac');
  await run('sox', ['-n', '-r', '8000', '-b', '16', flac, 'synth', '390', 'sine', '300', 'vol', '0.01']);
  const zip = await makeZip(dir, 'flacs.zip', [1, 2, 3].map((i) => ({ path: flac, name: `call-${i}.flac` })));
  // The listing's bound passes (the archive is small): the acceptance check lets it in.
  assert.is((await probeUpload(zip, {}, { ...limits, maxAudioSec: 600 })).members, 3);
  await rejects(
    () => unpack({ ...upload(zip), workDir: workDir() }, ctx({ maxAudioSec: 600 })),
    'ARCHIVE_LIMIT',
    /^The archive's 3 audio members hold more than 10 min of audio \(2 of 3 measured, the last one until the sum passed the limit: WAV members by their headers, the others decoded; every channel counted\); at most 10 min per request is accepted \(VOXDEX_MAX_REQUEST_AUDIO_SEC=600\)\. Split it into several requests\.$/,
  );
  // Two of them fit: 780 s under a 900 s cap, every member an item.
  const two = await makeZip(dir, 'two-flacs.zip', [1, 2].map((i) => ({ path: flac, name: `call-${i}.flac` })));
  const out = await unpack({ ...upload(two), workDir: workDir() }, ctx({ maxAudioSec: 900 }));
  assert.equal(summary(out.items).map((i) => i.name), ['call-1.flac', 'call-2.flac']);
});

up('refuses to unpack what would not leave the reserved free space on the data disk (503, retried later)', async () => {
  const zip = await makeZip(dir, 'disk.zip', [wavA, wavB]);
  const fs = statfsSync(dir);
  const reserveBytes = fs.bavail * fs.bsize; // keep everything free: nothing may be unpacked
  await rejects(
    () => probeUpload(zip, { disk: { dir, reserveBytes } }, limits),
    'OVERLOADED',
    /^Unpacking this archive needs 1 MiB of disk; the data disk has 0 MiB to spare beyond the \d+ MiB kept free \(VOXDEX_MIN_FREE_DISK_MIB=[\d.]+\)\. Retry later or ask the operator to free space\.$/,
  );
  assert.is((await probeUpload(zip, { disk: { dir, reserveBytes: 0 } }, limits)).members, 2);
  const wd = workDir();
  const c = ctx();
  await rejects(() => unpack({ ...upload(zip), workDir: wd }, { ...c, config: { ...c.config, queue: { ...c.config.queue, minFreeDiskBytes: reserveBytes } } }), 'OVERLOADED');
  assert.equal(readdirSync(wd), []);
});

/** A zip written by python's zipfile, members in order (a name may repeat); `legacy` names are stored as CP437 bytes without the UTF-8 flag. */
async function pyZip(name: string, members: Array<{ name: string; file: string; legacy?: boolean }>): Promise<string> {
  const out = path.join(dir, name);
  const script = [
    'import sys, json, zipfile, warnings',
    'warnings.simplefilter("ignore")',
    'out, members = sys.argv[1], json.loads(sys.argv[2])',
    'legacy = {}',
    'with zipfile.ZipFile(out, "w") as z:',
    '    for i, m in enumerate(members):',
    '        name = m["name"]',
    '        if m.get("legacy"):',
    '            raw = name.encode("cp437")',
    '            name = "".join(chr(b) if b < 128 else "~" for b in raw)',
    '            legacy[name.encode()] = raw',
    '        z.writestr(zipfile.ZipInfo(name), open(m["file"], "rb").read())',
    'data = open(out, "rb").read()',
    'for ascii_name, raw in legacy.items(): data = data.replace(ascii_name, raw)',
    'open(out, "wb").write(data)',
  ].join('\n');
  await run('python3', ['-c', script, out, JSON.stringify(members)]);
  return out;
}

up('a zip member whose name is not UTF-8 (CP437, no UTF-8 flag) is read under its decoded name (issue 21.5)', async () => {
  const zip = await pyZip('legacy-name.zip', [{ name: 'café.wav', file: wavA, legacy: true }]);
  // The raw name in the archive is the CP437 byte 0x82, not UTF-8.
  assert.ok(readFileSync(zip).includes(Buffer.from([0x63, 0x61, 0x66, 0x82, 0x2e])));
  assert.equal(await probeUpload(zip, {}, limits), { kind: 'zip', members: 1 });
  const out = await unpack({ ...upload(zip), workDir: workDir() }, ctx());
  assert.equal(summary(out.items), [{ name: 'café.wav', metadata: undefined }]);
  const item = out.items[0]!;
  assert.ok(!isFailedItem(item) && item.source.size === statSync(wavA).size);
});

up('a name stored twice: every copy is an item under a name of its own, none lost (issue 21.6)', async () => {
  const zip = await pyZip('dups.zip', [
    { name: 'same.wav', file: wavA },
    { name: 'same.wav', file: wavB },
    { name: 'same_1.wav', file: wavB },
    { name: 'same.wav', file: wavA },
  ]);
  assert.equal(await probeUpload(zip, {}, limits), { kind: 'zip', members: 4 });
  const out = await unpack({ ...upload(zip), workDir: workDir() }, ctx());
  assert.equal(out.items.map((i) => i.name), ['same.wav', 'same_2.wav', 'same_1.wav', 'same_3.wav']);
  const sizes = out.items.map((i) => (isFailedItem(i) ? i.error.code : i.source.size));
  assert.equal(sizes, [statSync(wavA).size, statSync(wavB).size, statSync(wavB).size, statSync(wavA).size]);
  assert.is(new Set(out.items.map((i) => !isFailedItem(i) && i.sealedPath)).size, 4);
});

up.run();
