/**
 * The segmentation seam (src/asr/segmenter.ts) with the Silero VAD on real speech: utterances per
 * prompt in a call with pauses, clean and in noise, long speech cut within the limit, padding kept out
 * of digital silence, nothing in non-speech; the live endpointer cutting exactly as the batch does
 * (8 kHz, and a 44.1 kHz call resampled as it arrives), and its horizon never passing an utterance it
 * has not returned.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createSegmenter, energySegmenter, sileroSegmenter, type Segmenter } from '../src/asr/segmenter.js';
import { resample, toChannelPcm } from '../src/audio/resample.js';
import type { Segment } from '../src/audio/segment.js';
import { loadConfig } from '../src/config.js';
import type { LiveSegment } from '../src/asr/endpointer.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio } from '../src/types.js';
import { ASTERISK_SOUNDS, LIBRIVOX_DIR, makeTempDir, removeDir } from './fixtures/make-audio.js';

const s = suite('segmenter');
const PROMPTS = ['agent-loginok', 'conf-getpin', 'conf-onlyperson', 'privacy-unident'].map((n) => path.join(ASTERISK_SOUNDS, `${n}.wav`));
const GOFORWARD = '/usr/share/pocketsphinx/test/data/goforward.raw';
const RATE = 16000; // the engine's
let dir = '';
let silero: Segmenter;
s.before(async () => {
  dir = makeTempDir('voxdex-segmenter-');
  silero = sileroSegmenter();
  await silero.ready();
});
s.after(() => removeDir(dir));

const mono = (x: Float32Array, rate: number): DecodedAudio => ({ format: { encoding: 'pcm_s16', sampleRate: rate, channels: 1, bitsPerSample: 16 }, channels: [x], durationSec: x.length / rate, warnings: [] });

async function cut(seg: Segmenter, a: DecodedAudio, maxUtteranceSec = 20): Promise<Segment[]> {
  const [pcm] = toChannelPcm(a, RATE);
  return seg.segment({ source: a.channels[0]!, sourceRate: a.format.sampleRate, pcm: pcm!.samples, rate: RATE }, { maxUtteranceSec });
}

/** The prompts joined with pauses of 0.6, 0.8, 1.0 s (digital silence), 0.5 s before, 1 s after; where each lies (s). */
async function promptCall(): Promise<{ x: Float32Array; spans: Array<[number, number]> }> {
  const parts = await Promise.all(PROMPTS.map(async (f) => (await decodeWav(f)).channels[0]!));
  const gaps = [0.6, 0.8, 1.0, 1.0];
  const x = new Float32Array(4000 + parts.reduce((n, p, i) => n + p.length + gaps[i]! * 8000, 0));
  const spans: Array<[number, number]> = [];
  let at = 4000;
  parts.forEach((p, i) => {
    x.set(p, at);
    // Where the prompt is audible (its own leading and trailing quiet aside).
    const first = p.findIndex((v) => Math.abs(v) > 0.02);
    const last = p.length - 1 - [...p].reverse().findIndex((v) => Math.abs(v) > 0.02);
    spans.push([(at + first) / 8000, (at + last) / 8000]);
    at += p.length + gaps[i]! * 8000;
  });
  return { x, spans };
}

/** Pink noise (Paul Kellet's filter over seeded white noise) at `snrDb` below the prompts' level. */
function pink(x: Float32Array, snrDb: number): Float32Array {
  let seed = 99;
  let b0 = 0, b1 = 0, b2 = 0;
  const n = Float32Array.from(x, () => {
    const w = (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    return b0 + b1 + b2 + w * 0.1848;
  });
  const rms = (y: Float32Array) => Math.sqrt(y.reduce((a, v) => a + v * v, 0) / y.length);
  const speech = rms(x.filter((v) => v !== 0));
  const g = speech / rms(n) / 10 ** (snrDb / 20);
  return x.map((v, i) => v + g * n[i]!);
}

function assertOnePerPrompt(segs: Segment[], spans: Array<[number, number]>, what: string): void {
  assert.is(segs.length, spans.length, `${what}: ${JSON.stringify(segs.map((g) => [g.start / RATE, g.end / RATE]))}`);
  segs.forEach((g, i) => {
    const [a, b] = spans[i]!;
    assert.ok(g.start / RATE <= a && g.end / RATE >= b, `${what} ${i}: ${g.start / RATE}–${g.end / RATE} does not hold ${a}–${b}`);
    assert.ok(g.speechStart / RATE > a - 0.3 && g.speechEnd / RATE < b + 0.4, `${what} ${i}: speech ${g.speechStart / RATE}–${g.speechEnd / RATE} for ${a}–${b}`);
    assert.ok(g.start <= g.speechStart && g.speechEnd <= g.end);
    if (i > 0) assert.ok(segs[i - 1]!.end <= g.start, 'no overlap');
  });
}

s('a call of real prompts with pauses: one utterance per prompt, holding the whole prompt, padded, not overlapping', async () => {
  const { x, spans } = await promptCall();
  assertOnePerPrompt(await cut(silero, mono(x, 8000)), spans, 'clean');
});

s('the same call in pink noise at 5 dB SNR: still one utterance per prompt (the energy segmenter bridges its pauses)', async () => {
  const { x, spans } = await promptCall();
  const noisy = mono(pink(x, 5), 8000);
  assertOnePerPrompt(await cut(silero, noisy), spans, 'pink 5 dB');
  assert.ok((await cut(energySegmenter, noisy)).length < spans.length, 'the energy segmenter merges prompts in noise');
});

s('continuous speech longer than the longest utterance is cut at pauses: every piece within the limit, the speech kept', async () => {
  const files = ['0870', '0880', '0890'].map((n) => path.join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${n}.wav`));
  const out = path.join(dir, 'joined.raw');
  // Each reading without its leading/trailing silence, joined: ~18 s with no pause longer than the reader's own.
  execFileSync('sox', [...files, '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '16000', '-c', '1', out]);
  const b = readFileSync(out);
  const x = Float32Array.from(new Int16Array(b.buffer, b.byteOffset, b.length / 2), (v) => v / 32768);
  const segs = await cut(silero, mono(x, 16000), 6);
  assert.ok(segs.length >= 3, `${segs.length} pieces`);
  for (const g of segs) assert.ok(g.end - g.start <= 6 * RATE, `a piece of ${(g.end - g.start) / RATE} s`);
  const speech = segs.reduce((n, g) => n + g.end - g.start, 0) / RATE;
  assert.ok(speech > 0.8 * (x.length / 16000), `${speech} s kept of ${x.length / 16000} s`);
});

s('padding never reaches into digital silence; silence and steady noise give no utterance', async () => {
  const raw = readFileSync(GOFORWARD);
  const go = Float32Array.from(new Int16Array(raw.buffer, raw.byteOffset, raw.length / 2), (v) => v / 32768);
  const x = new Float32Array(go.length + 32000);
  x.set(go, 16000);
  const [g, ...rest] = await cut(silero, mono(x, 16000));
  assert.equal(rest, []);
  assert.ok(g!.start >= 16000 && g!.end <= 16000 + go.length, `${g!.start}..${g!.end}`);
  let seed = 5;
  const hiss = Float32Array.from({ length: 16000 * 3 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.05);
  const hum = Float32Array.from({ length: 8000 * 3 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 8000));
  assert.equal(await cut(silero, mono(new Float32Array(8000 * 3), 8000)), []);
  assert.equal(await cut(silero, mono(hiss, 16000)), []);
  assert.equal(await cut(silero, mono(hum, 8000)), []);
});

/** The live endpointer fed `piece`-sample messages: its segments at the engine's rate, and each push's horizon. */
async function live(seg: Segmenter, x: Float32Array, rate: number, piece: number) {
  const ep = seg.endpointer({ sampleRate: rate, maxUtteranceSec: 20 });
  const got: Array<LiveSegment & { after: number }> = [];
  const horizons: Array<{ at: number; committed: number }> = [];
  const pushes = [];
  for (let i = 0; i < x.length; i += piece) {
    pushes.push(ep.push(x.subarray(i, i + piece)).then((e) => {
      got.push(...e.segments.map((g) => ({ ...g, after: got.length })));
      horizons.push({ at: got.length, committed: e.committed });
    })); // not awaited: pushes keep their order
  }
  await Promise.all(pushes);
  got.push(...(await ep.flush()).map((g) => ({ ...g, after: got.length })));
  const at = (n: number) => Math.round((n * RATE) / rate);
  return { segments: got.map((g) => ({ start: at(g.start), end: at(g.end), speechStart: at(g.speechStart), speechEnd: at(g.speechEnd) })), raw: got, horizons };
}

s('live: fed in ragged messages, the endpointer cuts exactly where the batch segmenter cuts (8 kHz, and 44.1 kHz resampled as it arrives)', async () => {
  const { x } = await promptCall();
  const noisy = pink(x, 10);
  for (const [samples, rate, piece] of [[x, 8000, 800], [noisy, 8000, 333], [resample(noisy, 8000, 44100), 44100, 4410]] as const) {
    const batch = await cut(silero, mono(samples, rate));
    const l = await live(silero, samples, rate, piece);
    assert.ok(batch.length >= 4);
    assert.equal(l.segments, batch, `${rate} Hz`);
    // Each utterance leaves with its own audio.
    for (const g of l.raw) assert.equal(g.audio, samples.slice(g.start, g.end));
  }
});

s("live: a push's horizon (committed) never passes the start of an utterance it has not returned", async () => {
  const { x } = await promptCall();
  const l = await live(silero, x, 8000, 800);
  for (const h of l.horizons) {
    const later = l.raw.slice(h.at);
    for (const g of later) assert.ok(g.start >= h.committed, `committed ${h.committed} passes an utterance starting at ${g.start}`);
  }
  assert.ok(l.horizons.at(-1)!.committed > l.raw.at(-1)!.end, 'the horizon moves on through the final silence');
});

s('VOXDEX_SEGMENTER picks the segmenter (energy by default); another value is refused', () => {
  assert.is(loadConfig({}).segment.segmenter, 'energy');
  assert.is(createSegmenter(loadConfig({}).segment.segmenter), energySegmenter);
  assert.is(createSegmenter(loadConfig({ VOXDEX_SEGMENTER: 'silero' }).segment.segmenter).name, 'silero');
  assert.throws(() => loadConfig({ VOXDEX_SEGMENTER: 'webrtc' }), /one of energy, silero for VOXDEX_SEGMENTER/);
});

s.run();
