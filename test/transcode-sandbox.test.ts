import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { SANDBOX_ENV, SANDBOX_UID, sandboxed } from '../src/audio/sandbox.js';
import { transcoding } from '../src/audio/transcode.js';
import { decode } from '../src/stages/decode.js';
import { fileSource } from '../src/audio/byte-source.js';
import { probeUpload } from '../src/stages/probe.js';
import { rejects } from './fixtures/assert-error.js';
import { LIBRIVOX_WAV, makeCoded, makeTempDir, makeWav, removeDir, run } from './fixtures/make-audio.js';

const t = suite('transcode-sandbox');
const config = loadConfig({});
const limits = { memoryBytes: config.transcode.memoryBytes, cpuSec: 60 };
let dir = '';

t.before(() => {
  dir = makeTempDir('voxdex-sandbox-');
});
t.after(() => removeDir(dir));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` with `input` on stdin and `extraFds` more pipes than stdio (descriptors 3, 4, …), as the server would hold them. */
function runIt(command: string, args: string[], input: Uint8Array = new Uint8Array(), extraFds = 0): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: SANDBOX_ENV, stdio: ['pipe', 'pipe', 'pipe', ...Array<'pipe'>(extraFds).fill('pipe')] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('latin1')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('latin1')));
    child.stdin!.on('error', () => {});
    child.stdin!.end(input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const inSandbox = (program: string, args: string[], input?: Uint8Array, extraFds?: number) => {
  const s = sandboxed(program, args, limits);
  return runIt(s.command, s.args, input, extraFds);
};

/** ffmpeg told to read `input` itself (every protocol allowed: the sandbox alone must stop it), writing WAV to stdout. */
const ffmpegReading = (input: string, extra: string[] = []) => ['-hide_banner', '-nostdin', '-loglevel', 'error', '-protocol_whitelist', 'file,pipe,http,tcp,crypto,data', ...extra, '-i', input, '-t', '1', '-f', 'wav', 'pipe:1'];

t('a decoder told to open a file cannot: the sandbox holds /usr alone (the same command outside reads it)', async () => {
  const wav = await makeWav(dir, { rate: 8000, text: 'secret', name: 'secret.wav' });
  const outside = await runIt('ffmpeg', ffmpegReading(wav));
  assert.is(outside.code, 0, 'control: outside the sandbox ffmpeg reads the file');
  assert.ok(outside.stdout.startsWith('RIFF'));
  const inside = await inSandbox('ffmpeg', ffmpegReading(wav));
  assert.is.not(inside.code, 0);
  assert.is(inside.stdout, '');
  assert.match(inside.stderr, /No such file or directory/);
  // A concat list on stdin naming a file (what a hostile upload would carry), and /etc/passwd.
  const list = Buffer.from(`ffconcat version 1.0\nfile 'file:${wav}'\n`);
  assert.is((await runIt('ffmpeg', ffmpegReading('pipe:0', ['-f', 'concat', '-safe', '0']), list)).code, 0, 'control: the list is read outside');
  const listed = await inSandbox('ffmpeg', ffmpegReading('pipe:0', ['-f', 'concat', '-safe', '0']), list);
  assert.is.not(listed.code, 0);
  assert.is(listed.stdout, '');
  assert.is.not((await inSandbox('/usr/bin/cat', ['/etc/passwd'])).code, 0);
});

t('a decoder told to open a URL cannot: no network, not even loopback (the same command outside fetches it)', async () => {
  const wav = readFileSync(await makeWav(dir, { rate: 8000, text: 'remote', name: 'remote.wav' }));
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.end(wav);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/call.wav`;
  try {
    const outside = await runIt('ffmpeg', ffmpegReading(url));
    assert.is(outside.code, 0, 'control: outside the sandbox ffmpeg fetches the URL');
    assert.is(requests, 1);
    const inside = await inSandbox('ffmpeg', ffmpegReading(url));
    assert.is.not(inside.code, 0);
    assert.is(inside.stdout, '');
    assert.is(requests, 1, 'no request reached the server from the sandbox');
  } finally {
    server.close();
  }
});

t('the decoder runs as an unprivileged user, with no capabilities, no_new_privs and only its three pipes', async () => {
  const status = await inSandbox('/usr/bin/cat', ['/proc/self/status']);
  assert.is(status.code, 0, status.stderr);
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status.stdout)?.[1]?.trim();
  if (process.getuid?.() === 0) assert.match(field('Uid') ?? '', new RegExp(`^${SANDBOX_UID}\\s`));
  assert.is(field('NoNewPrivs'), '1');
  for (const caps of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) assert.is(field(caps), '0000000000000000', caps);
  // Descriptors 3 and 4 are open in the process that starts the sandbox; the decoder does not get them.
  const probe = ['/proc/self/fd/3', '/proc/self/fd/4'];
  const outside = await runIt('/usr/bin/readlink', probe, undefined, 2);
  assert.match(outside.stdout, /^(pipe|socket):\[\d+\]\n(pipe|socket):\[\d+\]\n$/, 'control: the descriptors are inherited outside');
  const inside = await inSandbox('/usr/bin/readlink', probe, undefined, 2);
  assert.is(inside.stdout, '');
  assert.is.not(inside.code, 0);
});

t('transcoding refuses to run ffmpeg outside its sandbox (fail closed): 415 naming what the operator installs', async () => {
  // An ffmpeg outside /usr runs on its own but cannot be found inside the sandbox.
  const elsewhere = path.join(dir, 'ffmpeg');
  symlinkSync('/usr/bin/ffmpeg', elsewhere);
  const cfg = loadConfig({ VOXDEX_FFMPEG: elsewhere });
  assert.is(transcoding(cfg.transcode), 'unsandboxed');
  const mp3 = await makeCoded(dir, await makeWav(dir, { rate: 8000, text: 'closed', name: 'closed.wav' }), 'mp3-32k');
  await rejects(
    () => probeUpload(mp3, { transcode: cfg.transcode }, config.archive),
    'UNSUPPORTED_AUDIO',
    /^Found MPEG audio \(MP3 with an ID3 tag\); transcoding runs ffmpeg only inside its sandbox, which cannot be made on this installation \(bubblewrap missing, or user namespaces not allowed\); the operator enables it by installing bubblewrap \(scripts\/install\.sh, or apt-get install bubblewrap\) and allowing unprivileged user namespaces\./,
  );
  assert.is(transcoding(config.transcode), 'on', 'the installed ffmpeg runs in the sandbox');
  assert.is((await decode({ source: fileSource(mp3) }, { jobId: 'j', signal: new AbortController().signal, log: silentLogger, config })).format.transcodedFrom, 'MPEG audio (MP3 with an ID3 tag)');
});

t('ffmpeg stopped by its CPU limit (or the wall clock, 3 times it) inside the sandbox is TOO_LARGE naming the setting', async () => {
  const wav = path.join(dir, 'cpu.wav');
  await run('sox', [LIBRIVOX_WAV, '-r', '16000', wav, 'repeat', '500']); // an hour
  const flac = await makeCoded(dir, wav, 'flac');
  const c = loadConfig({ VOXDEX_TRANSCODE_CPU_SEC: '1', VOXDEX_TRANSCODE_MAX_AUDIO_SEC: '86400' });
  await rejects(
    () => decode({ source: fileSource(flac) }, { jobId: 'j', signal: new AbortController().signal, log: silentLogger, config: c }),
    'TOO_LARGE',
    /^Decoding the FLAC audio took longer than allowed \(1 CPU seconds, VOXDEX_TRANSCODE_CPU_SEC\)/,
  );
});

t('decodes in bounded memory: the peak is at most 1.75 times the samples it returns (it was 2.15)', async () => {
  // 20 minutes of real speech, 16 kHz FLAC: 76.8 MB of Float32 samples. Measured in a fresh process.
  const wav = path.join(dir, 'long.wav');
  await run('sox', [LIBRIVOX_WAV, '-r', '16000', wav, 'repeat', '200', 'trim', '0', '1200']);
  const flac = path.join(dir, 'long.flac');
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'flac', flac]);
  const out = await run(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'decode-peak.ts'), flac]);
  const { peakBytes, resultBytes, durationSec } = JSON.parse(out) as { peakBytes: number; resultBytes: number; durationSec: number };
  assert.is(durationSec, 1200);
  assert.is(resultBytes, 1200 * 16000 * 4);
  assert.ok(peakBytes <= 1.75 * resultBytes, `peak ${(peakBytes / 1e6).toFixed(1)} MB for ${(resultBytes / 1e6).toFixed(1)} MB of samples (${(peakBytes / resultBytes).toFixed(2)}×)`);
});


t.run();
