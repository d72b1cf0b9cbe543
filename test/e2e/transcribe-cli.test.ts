/**
 * `voxdex transcribe` (run as a user runs it: bin/voxdex.js in a child process, in the files' folder) against the service: the same files
 * give the same transcript documents, srt and vtt as the API's; progress on a terminal; per-file errors.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderTranscript } from '../../src/render/output.js';
import type { Service } from '../../src/service.js';
import type { TranscriptDocument } from '../../src/types.js';
import { makeCall, makeTempDir, makeWav, makeZip, removeDir } from '../fixtures/make-audio.js';
import { ROOT, startInProcess, upload, waitResult } from './harness.js';

const t = suite('e2e: voxdex transcribe');
const ctx = {} as { dir: string; svc: Service; token: string; call: string; hold: string; zip: string; quiet: string };

t.before(async () => {
  ctx.dir = makeTempDir('voxdex-transcribe-cli-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_ASR_THREADS: '2' });
  ctx.token = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.call = await makeCall(ctx.dir, { seconds: 6, encoding: 'mulaw', name: 'call.wav' });
  ctx.hold = await makeWav(ctx.dir, { rate: 16000, text: 'please hold the line', name: 'hold.wav' });
  writeFileSync(path.join(ctx.dir, 'hold.json'), '{"agent":"bob"}');
  ctx.zip = await makeZip(ctx.dir, 'calls.zip', [ctx.hold, path.join(ctx.dir, 'hold.json')]);
  ctx.quiet = await makeWav(ctx.dir, { rate: 8000, seconds: 32, tone: 'noise', amplitude: 0.0005, name: 'quiet.wav' });
});
t.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

function voxdex(args: string[], opts: { tty?: boolean } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const argv = [process.execPath, path.join(ROOT, 'bin/voxdex.js'), ...args];
  // `script` gives the command a terminal (stdout and stderr both go to it), as a user at a shell has.
  const [cmd, ...rest] = opts.tty ? ['script', '-qec', argv.map((a) => `'${a}'`).join(' '), '/dev/null'] : argv;
  return new Promise((resolve) => {
    const proc = spawn(cmd!, rest, { cwd: ctx.dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, VOXDEX_ASR_THREADS: '2', TERM: 'xterm' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The service's document for a file (and, for an archive, its members), through the API. */
async function serviceDocs(file: string, output = 'json'): Promise<{ body: string; type: string | null }> {
  const up = await upload(ctx.svc.url, { file, fields: { token: ctx.token, output } });
  assert.is(up.status, 200, JSON.stringify(up.body));
  assert.is((await waitResult(ctx.svc.url, ctx.token, up.body.requestid)).status, 200);
  const r = await fetch(`${ctx.svc.url}/transcribe/${up.body.requestid}/result?token=${ctx.token}`);
  return { body: r.headers.get('content-type') === 'application/zip' ? '' : await r.text(), type: r.headers.get('content-type') };
}

/**
 * What must match between two documents of the same audio: not the ids and clock times, nor the
 * categories (a company's saved rules, scored when the service indexes a call; the command has no company).
 */
function comparable(doc: TranscriptDocument) {
  const { requestid: _r, started: _s, donedate: _d, categories: _c, ...rest } = doc;
  return rest;
}

t('gives the documents the service gives for the same files (a WAV and a zip with a sidecar), one JSON per line; a missing file fails alone', async () => {
  const call = JSON.parse((await serviceDocs(ctx.call)).body) as TranscriptDocument;
  const hold = JSON.parse((await serviceDocs(ctx.hold)).body) as TranscriptDocument;
  assert.ok(call.utterances.length > 0 && hold.utterances.length > 0);
  const r = await voxdex(['transcribe', 'call.wav', 'missing.wav', 'calls.zip', '--output', 'json']);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /^voxdex: missing\.wav: /);
  const lines = r.stdout.trimEnd().split('\n');
  assert.is(lines.length, 2);
  const [cliCall, cliHold] = lines.map((l) => JSON.parse(l) as TranscriptDocument);
  assert.equal(comparable(cliCall!), comparable(call));
  // The archive member carries its sidecar's metadata, as the service's archive result does.
  assert.equal(comparable(cliHold!), { ...comparable(hold), streamtags: { metadata: { agent: 'bob' } } });
  assert.is(cliCall!.requestid, cliHold!.requestid);
});

t('srt and vtt: the API serves them with their types; the command prints the same for the channels asked', async () => {
  const doc = JSON.parse((await serviceDocs(ctx.call)).body) as TranscriptDocument;
  const srt = await serviceDocs(ctx.call, 'srt');
  assert.is(srt.type, 'application/x-subrip; charset=utf-8');
  assert.is(srt.body, renderTranscript(doc, 'srt'));
  assert.match(srt.body, /^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n(Agent|Customer): \S/);
  const vtt = await serviceDocs(ctx.call, 'vtt');
  assert.is(vtt.type, 'text/vtt; charset=utf-8');
  assert.is(vtt.body, renderTranscript(doc, 'vtt'));
  assert.match(vtt.body, /^WEBVTT\n\n00:00:\d\d\.\d{3} --> /);
  // Channel 1 alone: its utterances are the service's channel-1 utterances (each channel is segmented and decoded on its own)…
  const r = await voxdex(['transcribe', 'call.wav', '--output', 'srt', '--channels', '1']);
  assert.is(r.code, 0, r.stderr);
  // …without a role: one channel alone is one party, and roles need two (docs/speakers.md)
  const only1 = { ...doc, utterances: doc.utterances.filter((u) => u.metadata.channel === 1).map((u) => ({ ...u, metadata: { ...u.metadata, role: undefined } })) };
  assert.ok(only1.utterances.length > 0);
  assert.is(r.stdout, renderTranscript(only1, 'srt'));
  assert.is(r.stderr, '');
});

t('draws a progress bar on the terminal for a long recording; bad options are usage errors', async () => {
  const r = await voxdex(['transcribe', 'quiet.wav'], { tty: true });
  assert.is(r.code, 0, r.stdout);
  assert.match(r.stdout, /transcribe quiet\.wav \[[█░]+\] 100% \| 32 s of audio \| eta/);
  const bad = await voxdex(['transcribe', 'call.wav', '--output', 'doc']);
  assert.equal(bad, { code: 2, stdout: '', stderr: 'voxdex: Expected one of json, jsontop, text, srt, vtt for --output but received "doc"\n' });
  const ch = await voxdex(['transcribe', 'call.wav', '--channels', 'left']);
  assert.equal(ch, { code: 2, stdout: '', stderr: 'voxdex: Expected channel numbers such as 0 or 0,1 for --channels but received "left"\n' });
  const diarize = await voxdex(['transcribe', 'call.wav', '--diarize=maybe']);
  assert.equal(diarize, { code: 2, stdout: '', stderr: 'voxdex: Expected one of true, false, 1, 0 for diarize but received "maybe"\n' });
  const speakers = await voxdex(['transcribe', 'call.wav', '--speakers', '0']);
  assert.equal(speakers, { code: 2, stdout: '', stderr: 'voxdex: Expected an integer between 1 and 10 for speakers but received "0"\n' });
});

t.run();
