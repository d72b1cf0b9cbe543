/**
 * `voxdex transcribe` as a new user meets it (issue 21): a file that is missing, unreadable, a folder or
 * not audio is one line naming it (exit 1, no stack trace, the other files still run); on a terminal the
 * command says it is loading the models and draws progress for short recordings too; piped, stderr
 * stays empty.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, makeWav, removeDir, run } from '../fixtures/make-audio.js';
import { ROOT } from './harness.js';

const t = suite('e2e: voxdex transcribe, new user');
let dir = '';

t.before(async () => {
  dir = makeTempDir('voxdex-transcribe-edges-');
  await makeWav(dir, { rate: 16000, text: 'please hold the line', name: 'hold.wav' });
  await run('sox', ['-n', '-r', '8000', '-b', '16', '-c', '1', path.join(dir, 'silent.wav'), 'trim', '0', '3']);
  writeFileSync(path.join(dir, 'notes.txt'), 'this is not audio\n');
  mkdirSync(path.join(dir, 'calls'));
});
t.after(() => removeDir(dir));

function voxdex(args: string[], opts: { tty?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = [process.execPath, path.join(ROOT, 'bin/voxdex.js'), ...args];
  // `script` gives the command a terminal (stdout and stderr both go to it), as a user at a shell has.
  const [cmd, ...rest] = opts.tty ? ['script', '-qec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'] : argv;
  return new Promise((resolve) => {
    const proc = spawn(cmd!, rest, { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_ASR_THREADS: '1', TERM: 'xterm' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

t('a missing file is one line naming it and the problem, exit 1', async () => {
  assert.equal(await voxdex(['transcribe', 'missing.wav']), { code: 1, stdout: '', stderr: 'voxdex: missing.wav: no such file\n' });
  assert.equal(await voxdex(['transcribe', 'calls']), { code: 1, stdout: '', stderr: 'voxdex: calls: is a folder, not a recording\n' });
  assert.equal(await voxdex(['transcribe', 'notes.txt']), {
    code: 1,
    stdout: '',
    stderr: 'voxdex: notes.txt: Found unknown content, which is not audio voxdex accepts. Send WAV, MP3, FLAC, Ogg (Vorbis, Opus), M4A/AAC, AMR, WebM, or a zip/7z archive of such files.\n',
  });
});

t('bad files among good ones: one line each, the good one transcribed, exit 1; piped, nothing else on stderr', async () => {
  const r = await voxdex(['transcribe', 'missing.wav', 'hold.wav', 'notes.txt']);
  assert.is(r.code, 1);
  assert.equal(r.stderr.split('\n'), ['voxdex: missing.wav: no such file', `voxdex: notes.txt: Found unknown content, which is not audio voxdex accepts. Send WAV, MP3, FLAC, Ogg (Vorbis, Opus), M4A/AAC, AMR, WebM, or a zip/7z archive of such files.`, '']);
  assert.match(r.stdout, /hold/);
  const piped = await voxdex(['transcribe', 'hold.wav']);
  assert.equal([piped.code, piped.stderr], [0, '']);
  assert.match(piped.stdout, /hold/);
});

t('a recording without speech prints no lines, says so on stderr and exits 0 (issue 29)', async () => {
  assert.equal(await voxdex(['transcribe', 'silent.wav']), { code: 0, stdout: '', stderr: 'voxdex: silent.wav: no speech found in 3 s of audio; nothing to transcribe\n' });
  const both = await voxdex(['transcribe', 'silent.wav', 'hold.wav', '--output', 'text']);
  assert.is(both.code, 0);
  assert.is(both.stderr, 'voxdex: silent.wav: no speech found in 3 s of audio; nothing to transcribe\n');
  assert.match(both.stdout, /^==> silent\.wav <==\n\n==> hold\.wav <==\n\[00:0\d\] .*hold/i);
});

t('on a terminal: "loading the speech models", then a progress bar even for a short recording', async () => {
  const r = await voxdex(['transcribe', 'hold.wav'], { tty: true });
  assert.is(r.code, 0, r.stdout);
  const loading = r.stdout.indexOf('voxdex: loading the speech models…');
  const bar = r.stdout.search(/transcribe hold\.wav \[[█░]+\] 100% \| [\d.]+ s of audio/);
  assert.ok(loading >= 0 && bar > loading, r.stdout);
});

t.run();
