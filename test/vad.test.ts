/**
 * src/vad: the endpointer on probability sequences (no model), then Silero on real speech and silence at
 * 8 kHz (telephone band, mu-law) and 16 kHz, streaming in ragged pushes, batched streams, a tampered model.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeWav } from '../src/stages/decode.js';
import { createEndpointer, type VadEvent } from '../src/vad/endpointer.js';
import { speechRegions } from '../src/vad/regions.js';
import { loadSileroVad, SILERO_DIR, sileroState, type SileroVad } from '../src/vad/silero.js';
import { createVadStream } from '../src/vad/stream.js';
import { rejects } from './fixtures/assert-error.js';
import { meetingWav } from './fixtures/meetings.js';

const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
const PROMPT = '/usr/share/asterisk/sounds/en_US_f_Allison/agent-loginok.wav';

/** Endpointer at 8 kHz with 256-sample windows (32 ms): events of a probability sequence. */
function endpoints(probs: number[], params = {}): VadEvent[] {
  const e = createEndpointer(8000, 256, params);
  const events = probs.flatMap((p) => e.push(p));
  return [...events, ...e.finish(probs.length * 256)];
}
const run = (n: number, p: number) => Array<number>(n).fill(p);
const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

const ep = suite('vad endpointer');

ep('a run of speech becomes one padded utterance; a run shorter than min speech is dropped', () => {
  const ev = endpoints([...run(5, 0.01), ...run(20, 0.9), ...run(5, 0.01), ...run(3, 0.9), ...run(10, 0.01)]);
  assert.equal(ev.map((e) => e.type), ['start', 'end']);
  const [s, e] = ev as [{ type: 'start'; time: number }, { type: 'end'; start: number; end: number }];
  assert.ok(close(s.time, 5 * 0.032 - 0.03), String(s.time));
  assert.ok(close(e.start, s.time) && close(e.end, 25 * 0.032 + 0.03), JSON.stringify(e));
});

ep('start is announced once the speech has lasted min speech; end after min silence', () => {
  const e = createEndpointer(8000, 256, { minSpeechMs: 250, minSilenceMs: 100 });
  const at = (probs: number[]) => probs.map((p) => e.push(p).map((x) => x.type).join());
  const starts = at(run(10, 0.9));
  assert.is(starts.indexOf('start'), 7); // 8 windows = 256 ms ≥ 250 ms
  const ends = at(run(6, 0.01));
  assert.is(ends.indexOf('end'), 4); // 4 windows after the first silent one: 128 ms ≥ 100 ms
});

ep('probabilities between the two thresholds keep the utterance open (hysteresis)', () => {
  const ev = endpoints([...run(10, 0.9), ...run(20, 0.4), ...run(10, 0.01)]);
  assert.is(ev.length, 2);
  assert.ok(close((ev[1] as { end: number }).end, 30 * 0.032 + 0.03), JSON.stringify(ev));
  assert.is(endpoints([...run(10, 0.9), ...run(20, 0.3), ...run(10, 0.9)]).length, 4); // 0.3 < 0.35 is silence
});

ep('padding never reaches back into the previous utterance', () => {
  const ev = endpoints([...run(10, 0.9), ...run(5, 0.01), ...run(10, 0.9), ...run(10, 0.01)], { padMs: 100 });
  const ends = ev.filter((e): e is Extract<VadEvent, { type: 'end' }> => e.type === 'end');
  assert.is(ends.length, 2);
  assert.ok(close(ends[0]!.end, 0.42) && close(ends[1]!.start, 0.42), JSON.stringify(ends)); // 15·0.032 − 0.1 = 0.38 would overlap
});

ep('an utterance longer than max speech is cut at its longest pause', () => {
  // 2 s max: speech 1 s, pause 160 ms, speech 0.5 s, pause 128 ms, speech 1 s
  const probs = [...run(31, 0.9), ...run(5, 0.2), ...run(16, 0.9), ...run(4, 0.2), ...run(40, 0.9), ...run(10, 0.01)];
  const ends = endpoints(probs, { maxSpeechS: 2, minSilenceMs: 200 }).filter((e): e is Extract<VadEvent, { type: 'end' }> => e.type === 'end');
  assert.is(ends.length, 2);
  assert.ok(close(ends[0]!.end, 31 * 0.032 + 0.03), JSON.stringify(ends));
  assert.ok(close(ends[1]!.start, 36 * 0.032 - 0.03), JSON.stringify(ends));
});

ep('end events carry the speech inside the padding; openStart and committed say where the next utterance may start', () => {
  const e = createEndpointer(8000, 256, { padMs: 100 });
  assert.is(e.openStart, undefined);
  const ev = [...run(10, 0.01), ...run(20, 0.9)].flatMap((p) => e.push(p));
  assert.ok(close(e.openStart!, 10 * 0.032 - 0.1) && close(e.committed, e.openStart!), `${e.openStart} ${e.committed}`);
  ev.push(...run(10, 0.01).flatMap((p) => e.push(p)));
  const end = ev.find((x): x is Extract<VadEvent, { type: 'end' }> => x.type === 'end')!;
  assert.ok(close(end.speechStart, 10 * 0.032) && close(end.speechEnd, 30 * 0.032) && close(end.start, end.speechStart - 0.1) && close(end.end, end.speechEnd + 0.1), JSON.stringify(end));
  assert.is(e.openStart, undefined);
  assert.ok(close(e.committed, 40 * 0.032 - 0.1), String(e.committed)); // the next run of speech, padded back
});

ep('speech shorter than shortSpeechMs needs shortSilenceMs to end; longer speech ends after minSilenceMs', () => {
  const params = { minSilenceMs: 200, shortSilenceMs: 600, shortSpeechMs: 1000 };
  // 0.5 s of speech, 0.4 s pause, 0.5 s of speech: one utterance (the first part is short).
  const short = endpoints([...run(5, 0.01), ...run(16, 0.9), ...run(12, 0.01), ...run(16, 0.9), ...run(30, 0.01)], params);
  assert.is(short.filter((x) => x.type === 'end').length, 1);
  // 1.3 s of speech, the same pause: two utterances.
  const long = endpoints([...run(5, 0.01), ...run(40, 0.9), ...run(12, 0.01), ...run(16, 0.9), ...run(30, 0.01)], params);
  assert.is(long.filter((x) => x.type === 'end').length, 2);
});

ep('after a cut at its longest pause, the rest keeps its own pauses for the next cut', () => {
  // 3 s max: 1 s speech, 320 ms pause, 1.3 s speech, 160 ms pause, 1.6 s speech, 128 ms pause, 1.6 s speech
  const probs = [...run(31, 0.9), ...run(10, 0.2), ...run(40, 0.9), ...run(5, 0.2), ...run(50, 0.9), ...run(4, 0.2), ...run(50, 0.9), ...run(20, 0.01)];
  const ends = endpoints(probs, { maxSpeechS: 3, minSilenceMs: 500 }).filter((e): e is Extract<VadEvent, { type: 'end' }> => e.type === 'end');
  // Cut at the 320 ms pause, then at the 160 ms pause found after it (not mid-speech), then at the 128 ms one.
  assert.equal(ends.map((e) => Math.round(e.speechEnd / 0.032)), [31, 81, 136, 190]);
  for (const e of ends) assert.ok(e.end - e.start <= 3 + 1e-9, JSON.stringify(e));
});

ep('an utterance still open at the end of the stream is closed there', () => {
  const ev = endpoints([...run(3, 0.01), ...run(20, 0.9)]);
  assert.equal(ev.map((e) => e.type), ['start', 'end']);
  assert.ok(close((ev[1] as { end: number }).end, 23 * 0.032));
});

ep.run();

const s = suite('vad silero');
let model: SileroVad;
let tmp = '';
s.before(async () => {
  model = await loadSileroVad();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-vad-'));
});
s.after(async () => {
  await model.release();
  rmSync(tmp, { recursive: true, force: true });
});

/** A file through sox to 8 kHz mu-law telephone band (as calls arrive), decoded back to float. */
async function telephone(file: string): Promise<Float32Array> {
  const out = path.join(tmp, 'tel.wav');
  execFileSync('sox', ['-V1', '-D', file, '-r', '8000', '-e', 'u-law', '-b', '8', out, 'sinc', '300-3400']);
  return (await decodeWav(out)).channels[0]!;
}
const speechSeconds = (r: { start: number; end: number }[]) => r.reduce((a, x) => a + x.end - x.start, 0);

s('digital silence and quiet noise have no speech, at both rates', async () => {
  let seed = 7;
  const noise = Float32Array.from({ length: 16000 * 3 }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.002);
  for (const [samples, rate] of [[new Float32Array(24000), 8000], [noise, 16000], [noise.subarray(0, 24000), 8000]] as const) {
    const r = await speechRegions(samples, rate, {}, model);
    assert.equal(r.regions, []);
    assert.ok(Math.max(...r.probabilities) < 0.1, `${rate}: ${Math.max(...r.probabilities)}`);
    assert.is(r.probabilities.length, Math.ceil(samples.length / (rate === 8000 ? 256 : 512)));
  }
});

s('real read speech (16 kHz) is one region covering the voice; its telephone-band copy too', async () => {
  const a = await decodeWav(LIBRIVOX);
  const wide = await speechRegions(a.channels[0]!, 16000, {}, model);
  const tel = await speechRegions(await telephone(LIBRIVOX), 8000, {}, model);
  for (const r of [wide, tel]) {
    assert.is(r.regions.length, 1, JSON.stringify(r.regions));
    assert.ok(speechSeconds(r.regions) > 6.0 && speechSeconds(r.regions) <= 7.13, JSON.stringify(r.regions));
  }
});

s('a telephone prompt after a second of silence: its onset is found within 100 ms', async () => {
  const prompt = (await decodeWav(PROMPT)).channels[0]!;
  const onset = prompt.findIndex((x) => Math.abs(x) > 0.02) / 8000; // first clearly audible sample
  const call = new Float32Array(8000 + prompt.length + 8000);
  call.set(prompt, 8000);
  const r = await speechRegions(call, 8000, {}, model);
  assert.ok(r.regions.length >= 1);
  const start = r.regions[0]!.start;
  assert.ok(start >= 0.9 && Math.abs(start - (1 + onset)) < 0.1, `start ${start}, onset ${1 + onset}`);
  assert.ok(r.regions.at(-1)!.end < 1 + prompt.length / 8000 + 0.2);
});

s('a real meeting (two men talking) in the telephone band: speech almost throughout', async () => {
  const r = await speechRegions(await telephone(meetingWav('trn03')), 8000, {}, model);
  assert.ok(speechSeconds(r.regions) > 20, String(speechSeconds(r.regions)));
});

s('streaming in ragged pushes gives the same probabilities and events as one push', async () => {
  const samples = (await decodeWav(PROMPT)).channels[0]!;
  const whole = createVadStream(model, { sampleRate: 8000 });
  const a = await whole.push(samples);
  const aEnd = await whole.end();
  const ragged = createVadStream(model, { sampleRate: 8000 });
  const sizes = [1, 100, 333, 256, 1000, 7, 4096];
  const pushes: ReturnType<typeof ragged.push>[] = [];
  for (let i = 0, k = 0; i < samples.length; k++) {
    const n = sizes[k % sizes.length]!;
    pushes.push(ragged.push(samples.subarray(i, i + n))); // not awaited: order is kept
    i += n;
  }
  const b = await Promise.all(pushes);
  const bEnd = await ragged.end();
  const probs = [...b.flatMap((u) => [...u.probabilities]), ...bEnd.probabilities];
  assert.equal(probs, [...a.probabilities, ...aEnd.probabilities]);
  assert.equal([...b.flatMap((u) => u.events), ...bEnd.events], [...a.events, ...aEnd.events]);
  assert.is(b.reduce((n, u) => (assert.is(u.firstWindow, n), n + u.probabilities.length), 0), a.probabilities.length);
  await rejects(() => ragged.push(samples), 'INTERNAL', /after end/);
});

s('streams scored in one batch get exactly what each gets alone', async () => {
  const x = (await decodeWav(PROMPT)).channels[0]!;
  const y = await telephone(LIBRIVOX);
  const alone = [sileroState(8000), sileroState(8000)];
  const batched = [sileroState(8000), sileroState(8000)];
  for (let i = 0; i + 256 <= Math.min(x.length, y.length) && i < 256 * 60; i += 256) {
    const wx = x.slice(i, i + 256);
    const wy = y.slice(i, i + 256);
    const one = [(await model.score([alone[0]!], [wx]))[0], (await model.score([alone[1]!], [wy]))[0]];
    const two = await model.score(batched, [wx, wy]);
    assert.ok(Math.abs(one[0]! - two[0]!) < 1e-5 && Math.abs(one[1]! - two[1]!) < 1e-5, `${i}: ${one} vs ${two}`);
  }
});

s('other rates are refused with BAD_SAMPLE_RATE; a model file that is not the checked one is not loaded', async () => {
  await rejects(() => speechRegions(new Float32Array(4410), 44100, {}, model), 'BAD_SAMPLE_RATE', /8000 or 16000 Hz audio, not 44100 Hz/);
  const bad = path.join(tmp, 'bad');
  execFileSync('mkdir', ['-p', bad]);
  copyFileSync(path.join(SILERO_DIR, 'silero_vad.onnx'), path.join(bad, 'silero_vad.onnx'));
  writeFileSync(path.join(bad, 'silero_vad.onnx'), Buffer.from('tampered'), { flag: 'a' });
  await rejects(() => loadSileroVad(bad), 'MODEL_LOAD_FAILED', /sha256 [0-9a-f]{64}, expected 1a153a22/);
  await rejects(() => loadSileroVad(path.join(tmp, 'none')), 'MODEL_LOAD_FAILED', /fetch-silero\.sh/);
});

s.run();
