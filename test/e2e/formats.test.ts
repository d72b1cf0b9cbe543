/**
 * Every transcoded format and WAVE rate through POST /transcribe with the real ASR: real speech
 * (a LibriVox reader at 16 kHz, the Asterisk voice at 8 kHz) encoded here by ffmpeg/sox, each
 * transcript compared with the same speech sent as WAV; an archive of mixed formats; hostile files
 * refused before the 200; the playable audio of a transcoded file; VOXDEX_TRANSCODE=off → 415.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { ASTERISK_SOUNDS, CODED_FORMATS, LIBRIVOX_WAV, makeCoded, makeTempDir, makeZip, removeDir, run, type CodedFormat } from '../fixtures/make-audio.js';
import { readZip, startInProcess, upload, waitResult } from './harness.js';
import { wordDistance as wordErrors } from '../../bench/lib/wer.js';

const e2e = suite('e2e: audio formats');
const ctx = {} as { dir: string; svc: Service; acme: string; speech: string; phone: string };

/** The transcript's words of one file sent as `file` (a single-file request, output json). */
async function transcribe(file: string, fields: Record<string, string> = {}): Promise<{ id: string; words: string[] }> {
  const up = await upload(ctx.svc.url, { file, fields: { token: ctx.acme, numtrans: 'false', ...fields } });
  assert.is(up.status, 200, `${path.basename(file)}: ${JSON.stringify(up.body)}`);
  const r = await waitResult(ctx.svc.url, ctx.acme, up.body.requestid, 120_000);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const doc = await (await fetch(r.body)).json();
  return { id: up.body.requestid, words: doc.utterances.flatMap((u: { events: Array<{ word: string }> }) => u.events.map((e) => e.word.toLowerCase())) };
}

e2e.before(async () => {
  ctx.dir = makeTempDir('voxdex-e2e-formats-');
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  ctx.acme = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.speech = path.join(ctx.dir, 'reader.wav');
  await run('sox', [LIBRIVOX_WAV, ctx.speech]);
  // "Please enter your conference number followed by the pound key."
  ctx.phone = path.join(ctx.dir, 'prompt.wav');
  await run('sox', [path.join(ASTERISK_SOUNDS, 'conf-getconfno.wav'), ctx.phone]);
});

e2e.after(async () => {
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

e2e('every transcoded format of real speech gives the words the WAV gives (within 2 of them)', async () => {
  const reference = (await transcribe(ctx.speech)).words;
  assert.ok(reference.length >= 10, reference.join(' '));
  for (const format of Object.keys(CODED_FORMATS) as CodedFormat[]) {
    if (CODED_FORMATS[format].rate !== 16000) continue;
    const { words } = await transcribe(await makeCoded(ctx.dir, ctx.speech, format));
    const errors = wordErrors(reference, words);
    assert.ok(errors <= 2, `${format}: ${errors} errors against the WAV: "${words.join(' ')}" vs "${reference.join(' ')}"`);
  }
});

e2e('telephone formats (AMR-NB, GSM 6.10 WAV, MP3 at 8 kHz) of the Asterisk voice give the WAV words (within 1)', async () => {
  const reference = (await transcribe(ctx.phone)).words;
  assert.ok(wordErrors('please enter your conference number followed by the pound key'.split(' '), reference) <= 1, reference.join(' '));
  const mp3 = path.join(ctx.dir, 'prompt-8k.mp3');
  await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', ctx.phone, '-c:a', 'libmp3lame', '-b:a', '16k', mp3]);
  for (const file of [await makeCoded(ctx.dir, ctx.phone, 'amr-nb'), await makeCoded(ctx.dir, ctx.phone, 'gsm-wav'), mp3]) {
    const { words } = await transcribe(file);
    assert.ok(wordErrors(reference, words) <= 1, `${path.basename(file)}: "${words.join(' ')}"`);
  }
});

e2e('WAVs at 22.05, 44.1 and 48 kHz (16-bit, 24-bit, float) are resampled and transcribed as the 16 kHz original', async () => {
  const reference = (await transcribe(ctx.speech)).words;
  for (const [rate, bits, enc] of [[22050, '16', 'signed-integer'], [44100, '24', 'signed-integer'], [48000, '32', 'floating-point']] as const) {
    const wav = path.join(ctx.dir, `reader-${rate}.wav`);
    await run('sox', [ctx.speech, '-b', bits, '-e', enc, wav, 'rate', '-v', String(rate)]);
    const { words } = await transcribe(wav);
    assert.ok(wordErrors(reference, words) <= 1, `${rate} Hz: "${words.join(' ')}"`);
  }
});

e2e('a transcoded file plays back as the WAV it decoded to', async () => {
  const { id } = await transcribe(await makeCoded(ctx.dir, ctx.phone, 'gsm-wav', 'played.wav'));
  const r = await fetch(`${ctx.svc.url}/transcribe/${id}/audio?token=${ctx.acme}&inline=true`);
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'audio/wav');
  const bytes = Buffer.from(await r.arrayBuffer());
  assert.equal([bytes.toString('latin1', 0, 4), bytes.readUInt16LE(20), bytes.readUInt32LE(24)], ['RIFF', 1, 8000]);
});

e2e('an archive of mixed formats transcribes every member; a broken member is a per-file error', async () => {
  const members = [ctx.phone, await makeCoded(ctx.dir, ctx.phone, 'mp3-32k', 'a.mp3'), await makeCoded(ctx.dir, ctx.phone, 'opus', 'b.opus'), await makeCoded(ctx.dir, ctx.phone, 'amr-nb', 'c.amr')];
  const broken = path.join(ctx.dir, 'broken.m4a');
  writeFileSync(broken, readFileSync(await makeCoded(ctx.dir, ctx.phone, 'm4a-aac', 'whole.m4a')).subarray(0, 600));
  const up = await upload(ctx.svc.url, { file: await makeZip(ctx.dir, 'mixed.zip', [...members, broken]), fields: { token: ctx.acme, output: 'text' } });
  assert.is(up.status, 200, JSON.stringify(up.body));
  const r = await waitResult(ctx.svc.url, ctx.acme, up.body.requestid, 120_000);
  assert.is(r.status, 200, JSON.stringify(r.body));
  const files = await readZip(Buffer.from(await (await fetch(r.body)).arrayBuffer()));
  assert.equal(Object.keys(files).sort(), ['a.txt', 'b.txt', 'c.txt', 'errors.json', 'prompt.txt']);
  for (const name of ['a.txt', 'b.txt', 'c.txt', 'prompt.txt']) assert.match(files[name]!, /conference number/, name);
  const errors = JSON.parse(files['errors.json']!);
  assert.equal(errors.map((e: { file: string; error: { code: string } }) => [e.file, e.error.code]), [['broken.m4a', 'BAD_AUDIO']]);
});

e2e('hostile files are refused before the 200 with the contract errors', async () => {
  const cases: Array<[string, Buffer, number, string]> = [
    ['truncated.m4a', readFileSync(await makeCoded(ctx.dir, ctx.speech, 'm4a-aac', 'full.m4a')).subarray(0, 2000), 400, 'BAD_AUDIO'],
    ['garbage.mp3', Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x0a', 'latin1'), Buffer.alloc(10), Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919) % 251))]), 400, 'BAD_AUDIO'],
    ['empty.ogg', Buffer.from('OggS'), 400, 'BAD_AUDIO'],
  ];
  for (const [name, bytes, status, code] of cases) {
    const file = path.join(ctx.dir, name);
    writeFileSync(file, bytes);
    const up = await upload(ctx.svc.url, { file, fields: { token: ctx.acme } });
    assert.equal([up.status, up.body.error?.code], [status, code], `${name}: ${JSON.stringify(up.body)}`);
  }
});

e2e('VOXDEX_TRANSCODE=off: 415 UNSUPPORTED_AUDIO naming the format and how to enable transcoding', async () => {
  const off = await startInProcess(path.join(ctx.dir, 'data-off'), { VOXDEX_TRANSCODE: 'off', VOXDEX_ASR_THREADS: '1' });
  try {
    const token = (await off.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
    const up = await upload(off.url, { file: await makeCoded(ctx.dir, ctx.phone, 'opus', 'off.opus'), fields: { token } });
    assert.is(up.status, 415);
    assert.is(up.body.error.code, 'UNSUPPORTED_AUDIO');
    assert.match(up.body.error.message, /^Found Ogg Opus audio; transcoding is turned off on this installation \(VOXDEX_TRANSCODE=off\); the operator enables it by removing that setting\./);
  } finally {
    await off.close();
  }
});

e2e.run();
