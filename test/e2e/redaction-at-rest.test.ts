/**
 * Privacy at rest (issue 17, API.md §10): a real-speech payment call — the caller reads a 16-digit
 * card number in four groups and a security code, with real digit recordings (Asterisk's
 * en_US_f_Allison/digits) — is sent with scrubtext=true&scrubaudio=true to `voxdex serve` started as
 * a child process. Once it is done, EVERY byte under the data dir (SQLite files and their -wal/-shm,
 * blobs, result files, checkpoints) and everything the server logged is scanned for the card and the
 * code as numerals and as words, and for the original recording's bytes over the digits (as uploaded,
 * mu-law, and as 16-bit PCM): none may be found.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MULAW_TO_INT16 } from '../../src/audio/g711.js';
import { luhn } from '../../src/numbers/lexicon.js';
import { SqliteTenancy } from '../../src/tenancy/sqlite-tenancy.js';
import { tenancyDbPath } from '../../src/tenancy/tenancy.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startChild, upload, waitHealthy, waitResult, type Child } from './harness.js';

const DIGITS = '/usr/share/asterisk/sounds/en_US_f_Allison/digits';
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const CARD = '4539148803436467';
const CVV = '739';

const test = suite('e2e: nothing unredacted at rest');
let dir = '';
let child: Child | undefined;
/** Byte ranges of the upload (data chunk offsets) where the caller says the digits. */
const digitBytes: Array<[number, number]> = [];
let callFile = '';

/** A stereo 8 kHz mu-law call: agent questions (espeak-ng) on channel 0, real digits on channel 1. */
function makeCall(): string {
  const parts: Array<{ ch: 0 | 1; file: string; gapAfter: number; digit?: boolean }> = [];
  const tts = (text: string, name: string) => {
    const wav = path.join(dir, `${name}.wav`);
    execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', path.join(dir, `${name}-22k.wav`), text]);
    execFileSync('sox', ['-V1', path.join(dir, `${name}-22k.wav`), '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed', wav]);
    return wav;
  };
  parts.push({ ch: 0, file: tts('can I have the card number please', 'q1'), gapAfter: 0.6 });
  for (let g = 0; g < 4; g++) {
    for (const d of CARD.slice(g * 4, g * 4 + 4)) parts.push({ ch: 1, file: path.join(DIGITS, `${d}.wav`), gapAfter: 0.12, digit: true });
    parts[parts.length - 1]!.gapAfter = 0.9;
  }
  parts.push({ ch: 0, file: tts('and the security code on the back', 'q2'), gapAfter: 0.6 });
  for (const d of CVV) parts.push({ ch: 1, file: path.join(DIGITS, `${d}.wav`), gapAfter: 0.12, digit: true });
  parts.push({ ch: 0, file: tts('thank you, your payment of forty dollars is done', 'q3'), gapAfter: 0.5 });

  const rate = 8000;
  const clips = parts.map((p) => {
    const raw = path.join(dir, 'clip.raw');
    execFileSync('sox', ['-V1', p.file, '-t', 'raw', '-r', String(rate), '-c', '1', '-b', '16', '-e', 'signed', raw]);
    const b = readFileSync(raw);
    return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  });
  const frames = Math.ceil(parts.reduce((n, p, i) => n + clips[i]!.length + p.gapAfter * rate, rate * 0.3));
  const stereo = new Int16Array(frames * 2);
  let at = Math.round(rate * 0.3);
  const spans: Array<[number, number]> = [];
  parts.forEach((p, i) => {
    const c = clips[i]!;
    for (let k = 0; k < c.length; k++) stereo[(at + k) * 2 + p.ch] = c[k]!;
    if (p.digit) spans.push([at + Math.floor(c.length * 0.3), at + Math.floor(c.length * 0.7)]);
    at += c.length + Math.round(p.gapAfter * rate);
  });
  const raw = path.join(dir, 'call.raw');
  writeFileSync(raw, stereo);
  const out = path.join(dir, 'payment-call.wav');
  execFileSync('sox', ['-V1', '-t', 'raw', '-r', String(rate), '-c', '2', '-b', '16', '-e', 'signed', raw, '-e', 'mu-law', '-b', '8', out]);
  // The mu-law data chunk starts after the header sox writes; its frames are 2 bytes (one per channel).
  const wav = readFileSync(out);
  const dataAt = wav.indexOf(Buffer.from('data')) + 8;
  for (const [a, b] of spans) digitBytes.push([dataAt + a * 2, dataAt + b * 2]);
  return out;
}

/** Every file under `root`, recursively (SQLite -wal and -shm included). */
function allFiles(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const f = path.join(root, name);
    return statSync(f).isDirectory() ? allFiles(f) : [f];
  });
}

/** What must not be found: the numbers as numerals (grouped any way) and as words, and the audio. */
function needles(): Array<{ what: string; bytes: Buffer }> {
  const out: Array<{ what: string; bytes: Buffer }> = [];
  const text = (what: string, s: string) => out.push({ what, bytes: Buffer.from(s, 'utf8') });
  text('card', CARD);
  for (const sep of [' ', '-']) text(`card grouped by "${sep}"`, CARD.match(/.{4}/g)!.join(sep));
  for (let g = 0; g < 4; g++) text(`card group ${g + 1} as a JSON word`, `"${CARD.slice(g * 4, g * 4 + 4)}"`);
  for (let g = 0; g < 4; g++) text(`card group ${g + 1} in the index`, ` ${CARD.slice(g * 4, g * 4 + 4)} `);
  text('code as a JSON word', `"${CVV}"`);
  // As words: every three digits in a row, as a transcript or the index would hold them.
  const said = (d: string) => [...d].map((x) => WORDS[Number(x)]);
  for (const num of [CARD, CVV]) {
    for (let i = 0; i + 3 <= num.length; i++) {
      const w = said(num.slice(i, i + 3));
      text(`"${w.join(' ')}"`, w.join(' '));
      text(`"${w.join('","')}" (JSON words)`, w.map((x) => `"word":"${x}"`).join(''));
    }
  }
  // The recording over the digits: as uploaded (mu-law) and as 16-bit PCM (what a playable copy holds).
  const wav = readFileSync(callFile);
  digitBytes.forEach(([a, b], i) => {
    const mid = (a + b) >> 1;
    const mulaw = wav.subarray(mid - 32, mid + 32);
    out.push({ what: `upload bytes of digit ${i + 1}`, bytes: Buffer.from(mulaw) });
    const pcm = Buffer.alloc(mulaw.length * 2);
    for (let k = 0; k < mulaw.length; k++) pcm.writeInt16LE(MULAW_TO_INT16[mulaw[k]!]!, k * 2);
    out.push({ what: `PCM of digit ${i + 1}`, bytes: pcm });
  });
  return out;
}

test.before(() => {
  dir = makeTempDir('voxdex-redaction-at-rest-');
  assert.ok(luhn(CARD), 'the test card passes Luhn');
  callFile = makeCall();
});

test.after(async () => {
  if (child && child.proc.exitCode === null) {
    child.proc.kill('SIGTERM');
    await child.exited;
  }
  removeDir(dir);
});

test('a redacted payment call leaves no digit, word or sound of the card and code anywhere', async () => {
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const tenancy = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token } = tenancy.addCompany('acme', { org: 'pay', folder: 'calls' });
  tenancy.close();
  child = await startChild(dataDir, { VOXDEX_ASR_THREADS: '2', VOXDEX_LOG_LEVEL: 'debug' });
  await waitHealthy(child.url, 120_000);

  const sent = await upload(child.url, { file: callFile, fields: { token: token, scrubtext: 'true', scrubaudio: 'true' } });
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  const done = await waitResult(child.url, token, sent.body.requestid, 1_200_000);
  assert.is(done.status, 200, JSON.stringify(done.body));
  const doc = (await (await fetch(done.body as string)).json()) as { utterances: unknown };
  const events = (doc.utterances as Array<{ metadata: { channel: number }; events: Array<{ word: string; redacted?: string }> }>)
    .filter((u) => u.metadata.channel === 1).flatMap((u) => u.events);
  assert.ok(events.some((e) => e.redacted === 'card'), JSON.stringify(events));
  assert.ok(events.filter((e) => e.redacted).every((e) => /^#+$/.test(e.word)));

  // The playable audio is the silenced copy.
  const link = await getJson(`${child.url}/transcribe/${sent.body.requestid}/audio?token=${token}`);
  assert.is(link.status, 200, JSON.stringify(link.body));
  const played = Buffer.from(await (await fetch(link.body as string)).arrayBuffer());
  const n = needles();
  for (const { what, bytes } of n) assert.is(played.indexOf(bytes), -1, `the played audio holds ${what}`);

  // A search for the card finds nothing.
  for (const terms of [CARD, CARD.slice(0, 4), '"four five three nine"']) {
    const r = await getJson(`${child.url}/search/acme/pay/calls?${new URLSearchParams({ token: token, terms, fields: 'tid' })}`, { headers: { accept: 'application/json' } });
    assert.equal(r.body, [], `search ${terms}`);
  }

  child.proc.kill('SIGTERM');
  await child.exited;
  const found: string[] = [];
  for (const file of allFiles(dataDir)) {
    const bytes = readFileSync(file);
    for (const { what, bytes: needle } of n) if (bytes.indexOf(needle) >= 0) found.push(`${path.relative(dataDir, file)}: ${what}`);
  }
  const logs = Buffer.from(child.output(), 'utf8');
  for (const { what, bytes: needle } of n) if (logs.indexOf(needle) >= 0) found.push(`logs: ${what}`);
  assert.equal(found, []);
});

test.run();
