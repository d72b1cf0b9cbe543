/**
 * src/live/call-recording.ts: a live call's recording is sealed as it arrives (a sealed log, one
 * record per append: src/audio/sealed-log.ts), so no frame is ever on disk in plain form; finish()
 * makes it a sealed WAV with its real lengths; after a crash, finishCrashedRecording() makes the same
 * WAV of everything written, a record cut short by the crash left out.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { readAll } from '../src/audio/byte-source.js';
import { AudioSeal } from '../src/audio/sealed-file.js';
import { finishCrashedRecording, CallRecording } from '../src/live/call-recording.js';
import { decodeWav } from '../src/stages/decode.js';
import type { AudioFormat } from '../src/types.js';
import { ASTERISK_PROMPT, makeTempDir, removeDir } from './fixtures/make-audio.js';

const rec = suite('live recording, sealed');
let dir = '';
rec.before(() => {
  dir = makeTempDir('voxdex-live-rec-');
});
rec.after(() => removeDir(dir));

const seal = AudioSeal.ephemeral();
const FORMAT: AudioFormat = { encoding: 'pcm_s16', sampleRate: 8000, channels: 1, bitsPerSample: 16 };
/** Real speech as 16-bit PCM frames, in three appends. */
const speech = (() => {
  const wav = readFileSync(ASTERISK_PROMPT);
  const data = wav.subarray(wav.indexOf('data') + 8);
  const n = Math.floor(data.length / 6) * 2;
  return [data.subarray(0, n), data.subarray(n, 2 * n), data.subarray(2 * n, 3 * n)];
})();
let k = 0;

/** Nothing of the frames in the file's bytes: no 32-byte run of them, no RIFF header. */
function assertSealedBytes(file: string): void {
  const bytes = readFileSync(file);
  assert.is(bytes.indexOf('RIFF'), -1, 'no WAV header in plain form');
  for (const part of speech) for (let at = 0; at + 32 <= part.length; at += 499) assert.is(bytes.indexOf(part.subarray(at, at + 32)), -1, `frames at ${at}`);
}

async function recording(): Promise<CallRecording> {
  const r = await CallRecording.create(path.join(dir, `call-${k++}.wav`), seal, 0);
  r.start(FORMAT);
  for (const part of speech) await r.append(part);
  return r;
}

rec('sealed as it arrives; finished, a sealed WAV holding every frame', async () => {
  const r = await recording();
  assertSealedBytes(r.path);
  await r.finish();
  assertSealedBytes(r.path);
  const source = seal.open(r.path);
  const audio = await decodeWav(source);
  assert.is(audio.channels[0]!.length, Buffer.concat(speech).length / 2);
  assert.equal(audio.warnings, []);
  assert.ok((await readAll(source)).subarray(44).equals(Buffer.concat(speech)));
});

rec('after a crash: the log becomes the same WAV; a record cut short is left out; no audio is false', async () => {
  const r = await recording();
  await r.close(); // the process died: no finish
  assertSealedBytes(r.path);
  assert.ok(await finishCrashedRecording(seal, r.path));
  assert.ok((await readAll(seal.open(r.path))).subarray(44).equals(Buffer.concat(speech)));
  assert.ok(await finishCrashedRecording(seal, r.path), 'a WAV finished before the crash is kept as it is');

  const torn = await recording();
  await torn.close();
  truncateSync(torn.path, statSync(torn.path).size - 10);
  assert.ok(await finishCrashedRecording(seal, torn.path));
  const kept = (await readAll(seal.open(torn.path))).subarray(44);
  assert.ok(kept.equals(Buffer.concat(speech.slice(0, 2))), `${kept.length} bytes kept`);

  const silent = await CallRecording.create(path.join(dir, 'silent.wav'), seal, 0);
  await silent.close();
  assert.not.ok(await finishCrashedRecording(seal, silent.path));
  const other = await recording();
  await other.close();
  assert.not.ok(await finishCrashedRecording(AudioSeal.ephemeral(), other.path), 'a log under another key holds nothing that opens');
});

rec.run();
