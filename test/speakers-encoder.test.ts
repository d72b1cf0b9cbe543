import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cosine, frameSamples, loadSpeakerEncoder, melFilterbank, partialSlices, type SpeakerEncoder } from '../src/speakers/encoder.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const here = path.dirname(fileURLToPath(import.meta.url));
const reference = JSON.parse(readFileSync(path.join(here, 'fixtures', 'resemblyzer-reference.json'), 'utf8')) as {
  utterances: { file: string; samples: number; embedding: number[] }[];
};

/** What bench/resemblyzer-reference.py fed the reference: int16 / 32768, then normalize_volume(-30 dBFS, increase only). */
export function referenceInput(file: string): Float32Array {
  const b = readFileSync(path.join(DATA, file));
  const pcm = file.endsWith('.raw') ? new Int16Array(b.buffer, b.byteOffset, b.length / 2) : new Int16Array(b.buffer, b.byteOffset + 44, (b.length - 44) / 2);
  const wav = Float32Array.from(pcm, (x) => x / 32768);
  let sq = 0;
  for (const x of wav) sq += (x * 32767) ** 2;
  const change = -30 - 20 * Math.log10(Math.sqrt(sq / wav.length) / 32767);
  if (change < 0) return wav;
  const gain = 10 ** (change / 20);
  return wav.map((x) => x * gain);
}

const s = suite('speakers-encoder');
let enc: SpeakerEncoder;
s.before(async () => {
  enc = await loadSpeakerEncoder();
});
s.after(async () => enc.release());

s('mel filterbank: Slaney scale, area-normalised triangles (librosa.filters.mel 16 kHz, n_fft 400, 40 bands)', () => {
  const fb = melFilterbank();
  assert.is(fb.length, 40);
  assert.is(fb[0]!.length, 201);
  // librosa 0.11 filters.mel(sr=16000, n_fft=400, n_mels=40)[0, 1] = 0.0073902094
  assert.ok(Math.abs(fb[0]![1]! - 0.0073902094) < 1e-8, String(fb[0]![1]));
  assert.ok(fb[39]![200]! === 0 && fb[39]![190]! > 0);
});

s('frames are centred with zero padding; partial slices follow compute_partial_slices', () => {
  const { frames, data } = frameSamples(Float32Array.from({ length: 480 }, (_, i) => i + 1));
  assert.is(frames, 4);
  assert.is(data[200], 1); // frame 0 starts 200 samples before the first
  assert.is(data[400 + 40], 1);
  assert.equal(partialSlices(16000 * 3).starts, [0, 77, 154]);
  assert.equal(partialSlices(16000).starts, [0]);
  assert.is(partialSlices(16000).padTo, 160 * 160);
});

s('embeddings match the reference implementation (Resemblyzer 0.1.4 on torch) on real utterances: cosine ≥ 0.999', async () => {
  assert.ok(reference.utterances.length >= 10);
  for (const u of reference.utterances) {
    const wav = referenceInput(u.file);
    assert.is(wav.length, u.samples, u.file);
    const e = await enc.embedUtterance(wav);
    const c = cosine(e, Float32Array.from(u.embedding));
    assert.ok(c >= 0.999, `${u.file}: cosine ${c}`);
  }
});

s('different readers are further apart than the same reader', async () => {
  const [a, b] = await Promise.all(['librivox/sense_and_sensibility_01_austen_64kb-0870.wav', 'librivox/sense_and_sensibility_01_austen_64kb-0890.wav'].map((f) => enc.embedUtterance(referenceInput(f))));
  const other = await enc.embedUtterance(referenceInput('goforward.raw'));
  assert.ok(cosine(a!, b!) > cosine(a!, other) + 0.1);
});

s.run();
