import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { segment, segmentSamples } from '../src/audio/segment.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const GOFORWARD = path.join(DATA, 'goforward.raw');
const LIBRIVOX = ['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`));

const s = suite('segment');
let dir = '';
s.before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-segment-'));
});
s.after(() => rmSync(dir, { recursive: true, force: true }));

function sox(inputs: string[], effects: string[] = []): Int16Array {
  const out = path.join(dir, `s${Math.random().toString(36).slice(2)}.raw`);
  execFileSync('sox', [...inputs, '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '16000', '-c', '1', out, ...effects]);
  const b = readFileSync(out);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2).slice();
}

function go(): Int16Array {
  const b = readFileSync(GOFORWARD);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2).slice();
}

s('finds one utterance in goforward.raw, padded inside the file', () => {
  const pcm = go();
  const segs = segmentSamples(pcm, 16000);
  assert.is(segs.length, 1);
  const [g] = segs;
  assert.ok(g!.speechStart >= 0.3 * 16000 && g!.speechStart <= 0.5 * 16000, `speech starts at ${g!.speechStart / 16000}`);
  assert.ok(g!.speechEnd >= 2.0 * 16000, `speech ends at ${g!.speechEnd / 16000}`);
  assert.is(g!.start, Math.max(0, g!.speechStart - 4000));
  assert.ok(g!.end <= pcm.length);
});

s('splits two sentences at the silence between them, without overlap', () => {
  const a = go();
  const gap = 16000; // 1 s of silence at the noise level of the recording (a copy of its quiet start)
  const pcm = new Int16Array(a.length * 2 + gap);
  pcm.set(a, 0);
  for (let i = 0; i < gap; i++) pcm[a.length + i] = a[i % 4000]!;
  pcm.set(a, a.length + gap);
  const segs = segmentSamples(pcm, 16000);
  assert.is(segs.length, 2);
  assert.ok(segs[0]!.end <= segs[1]!.start, 'no overlap');
  assert.ok(segs[1]!.speechStart >= a.length + gap, `second speech at ${segs[1]!.speechStart / 16000}`);
  assert.ok(segs[1]!.speechStart - (a.length + gap) < 0.6 * 16000);
});

s('keeps every utterance under maxUtteranceSec on long read speech', () => {
  const pcm = sox(LIBRIVOX);
  const segs = segmentSamples(pcm, 16000, { maxUtteranceSec: 5 });
  assert.ok(segs.length >= 6, `${segs.length} segments`);
  for (const g of segs) assert.ok(g.end - g.start <= 5 * 16000, `segment of ${(g.end - g.start) / 16000} s`);
  for (let i = 1; i < segs.length; i++) assert.ok(segs[i - 1]!.end <= segs[i]!.start);
  const speech = segs.reduce((n, g) => n + g.speechEnd - g.speechStart, 0);
  assert.ok(speech > 0.6 * pcm.length, `speech ${speech / 16000} s of ${pcm.length / 16000} s`);
});

s('finds nothing in silence, digital or noisy', () => {
  assert.equal(segmentSamples(new Int16Array(16000 * 3), 16000), []);
  const hiss = sox(['-n'], ['synth', '3', 'whitenoise', 'vol', '0.001']);
  assert.equal(segmentSamples(hiss, 16000), []);
  assert.equal(segmentSamples(new Int16Array(0), 16000), []);
});

s('never pads into digital silence', () => {
  const a = go();
  const pcm = new Int16Array(a.length + 32000);
  pcm.set(a, 16000);
  const [g] = segmentSamples(pcm, 16000);
  assert.ok(g!.start >= 16000 && g!.end <= 16000 + a.length, `${g!.start}..${g!.end}`);
});

s('the stage segments every channel with config.segment.maxUtteranceSec', async () => {
  const config = loadConfig({ VOXDEX_MAX_UTTERANCE_SEC: '4' });
  const pcm = sox(LIBRIVOX.slice(0, 2));
  const out = await segment([{ channel: 0, sampleRate: 16000, samples: pcm }, { channel: 1, sampleRate: 16000, samples: go() }], {
    jobId: 'j',
    signal: new AbortController().signal,
    log: silentLogger,
    config,
  });
  assert.equal(out.map((c) => c.channel), [0, 1]);
  for (const g of out[0]!.segments) assert.ok(g.end - g.start <= 4 * 16000);
  assert.is(out[1]!.segments.length, 1);
});

s.run();
