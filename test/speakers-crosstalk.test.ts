/**
 * Crosstalk across channels (src/speakers/crosstalk.ts): the frame rule on level envelopes, then real
 * voices recorded one per channel with the other voice bleeding in at -20 dB (and none): the bleed words
 * are separated, the real speaker's words stay, and each channel stays one speaker.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bleedFrames, bleedWords, pairLag, separateCrosstalk } from '../src/speakers/crosstalk.js';
import type { DiarizeModels } from '../src/speakers/diarize.js';
import { loadSpeakerEncoder } from '../src/speakers/encoder.js';
import { speakersOfRecording } from '../src/speakers/recording.js';
import type { Utterance } from '../src/types.js';
import { loadSileroVad } from '../src/vad/silero.js';
import { buildChannelCall, channelsOf, requireVoices, type ChannelCall } from './fixtures/speaker-calls.js';

const rule = suite('crosstalk: the rule');

/** A level envelope (dB per 10 ms) that goes up and down like syllables, from a seed. */
function syllables(n: number, seed: number, base = -20): Float32Array {
  let a = seed;
  const rand = () => (a = (a * 16807) % 2147483647) / 2147483647;
  const out = new Float32Array(n);
  let level = base;
  for (let i = 0; i < n; i++) {
    if (i % 12 === 0) level = base - 15 * rand();
    out[i] = level + 2 * rand();
  }
  return out;
}

function longestRun(mask: Int8Array): number {
  let run = 0;
  let most = 0;
  for (const d of mask) most = Math.max(most, (run = d >= 0 ? run + 1 : 0));
  return most;
}

rule('a quieter copy that follows its source is bleed; two people talking at once are not', () => {
  const a = syllables(300, 7);
  const copy = a.map((x) => x - 20); // channel 1 hears channel 0 20 dB down
  const [m0, m1] = bleedFrames([a, copy]);
  assert.ok(m1!.every((d) => d === 0), 'the copy is bleed from channel 0 throughout');
  assert.ok(m0!.every((d) => d === -1), 'the louder channel is nobody\'s bleed');
  for (const seed of [99, 5, 11, 123]) {
    const [, talk] = bleedFrames([a, syllables(300, seed)]);
    // a chance frame or two where the envelopes happen to agree, never a word's worth (a word is bleed when half its frames are)
    assert.ok(longestRun(talk!) <= 5, `independent speech at the same level is not bleed (seed ${seed}: ${longestRun(talk!)} frames in a row)`);
  }
});

rule('an echo is found at its delay', () => {
  const a = syllables(400, 3);
  const echo = new Float32Array(400).fill(-60);
  for (let i = 12; i < 400; i++) echo[i] = a[i - 12]! - 18;
  assert.is(pairLag(echo, a, 25), 12);
  assert.ok(bleedFrames([a, echo])[1]!.slice(20).every((d) => d === 0));
});

rule('a word is bleed when half its frames are, or when the same word is said louder on another channel at that time', () => {
  const levels = [new Float32Array(200).fill(-20), new Float32Array(200).fill(-40)];
  const masks = [new Int8Array(200).fill(-1), new Int8Array(200).fill(-1)];
  masks[1]!.fill(0, 50, 80);
  const words = [{ word: 'hello', start: 0.5, end: 0.7 }, { word: 'there', start: 0.75, end: 0.95 }, { word: 'yes', start: 1.5, end: 1.7 }];
  const others = new Map([[0, [{ word: 'yes', start: 1.45, end: 1.75 }]]]);
  assert.equal(bleedWords(1, words, masks, levels, others), [true, false, true]);
  assert.equal(bleedWords(0, others.get(0)!, masks, levels, new Map([[1, words]])), [false]); // the louder one keeps it
});

rule('one channel: nothing to separate', () => {
  const u: Utterance = { start: 0, end: 1, confidence: 1, metadata: { channel: 0, uttid: 0 }, events: [{ word: 'hi', start: 0, end: 1, confidence: 1 }] };
  const r = separateCrosstalk([{ channel: 0, sampleRate: 8000, samples: new Float32Array(8000), utterances: [u] }]);
  assert.equal(r.utterances, [[u]]);
  assert.is(r.words, 0);
});

rule.run();

const real = suite('crosstalk: real voices one per channel');
let models: DiarizeModels;
real.before(async () => {
  models = { encoder: await loadSpeakerEncoder(), vad: await loadSileroVad() };
});
real.after(async () => {
  await models.encoder.release();
  await models.vad.release();
});

const channels = channelsOf;

/** A detected word is the channel's own when its own voice covers at least half of it. */
function own(c: ChannelCall, voice: string, w: { start: number; end: number }): boolean {
  const cover = c.words.filter((x) => x.speaker === voice).reduce((n, x) => n + Math.max(0, Math.min(x.end, w.end) - Math.max(x.start, w.start)), 0);
  return cover >= 0.5 * (w.end - w.start);
}

real('bleed at -20 dB (8 kHz mu-law): the other voice\'s words are dropped, the speaker\'s own stay (≤ 0.5 % lost)', async () => {
  requireVoices();
  const voices = ['allison', 'carlo'];
  const c = buildChannelCall({ voices, seconds: 30, seed: 41, telephone: true, bleedDb: -20 });
  const input = channels(c);
  const r = separateCrosstalk(input);
  let bleed = 0;
  let bleedDropped = 0;
  let mine = 0;
  let mineLost = 0;
  input.forEach((ch, i) => {
    const kept = new Set(r.utterances[i]!.flatMap((u) => u.events.map((e) => e.start)));
    for (const w of ch.utterances.flatMap((u) => u.events)) {
      if (own(c, voices[i]!, w)) [mine, mineLost] = [mine + 1, mineLost + (kept.has(w.start) ? 0 : 1)];
      else [bleed, bleedDropped] = [bleed + 1, bleedDropped + (kept.has(w.start) ? 0 : 1)];
    }
  });
  assert.ok(bleed > 30, `${bleed} bleed words heard`);
  assert.ok(bleedDropped / bleed >= 0.95, `${bleedDropped} of ${bleed} bleed words dropped`);
  assert.ok(mineLost / mine <= 0.005, `${mineLost} of ${mine} own words lost`);
  assert.is(r.bleed.length > 0 && r.bleed.every((u) => u.metadata.crosstalk === true), true);
});

real('without crosstalk nothing is dropped, also when one line is 12 dB quieter and the two talk over each other', async () => {
  requireVoices();
  const c = buildChannelCall({ voices: ['june', 'librivox'], seconds: 40, seed: 42, telephone: true, bleedDb: -Infinity, overlap: 0.5 });
  c.channels[1] = c.channels[1]!.map((x) => x * 10 ** (-12 / 20));
  const input = channels(c);
  const r = separateCrosstalk(input);
  assert.is(r.words, 0);
  assert.equal(r.utterances.map((u) => u.length), input.map((ch) => ch.utterances.length));
  // A live call numbers utterances as they are decoded, out of time order; the document keeps the uttids it sent.
  const live = channels(c);
  const sent = live.flatMap((ch) => ch.utterances);
  sent.forEach((u, i) => (u.metadata.uttid = sent.length - 1 - i));
  const before = new Map(sent.map((u) => [u.metadata.uttid, u.start]));
  const doc = await speakersOfRecording(async () => models, live, { diarize: false, gender: false });
  assert.equal(new Map(doc.utterances.map((u) => [u.metadata.uttid, u.start])), before);
  assert.equal(doc.utterances.map((u) => u.start), doc.utterances.map((u) => u.start).sort((x, y) => x - y));
});

real('diarized, a channel with bleed stays one speaker (C0, C1); crosstalk=keep shows the bleed marked, uttids in order', async () => {
  requireVoices();
  const c = buildChannelCall({ voices: ['allison', 'carlo'], seconds: 30, seed: 43, telephone: true, bleedDb: -20 });
  const r = await speakersOfRecording(async () => models, channels(c), { diarize: true, gender: false });
  assert.equal([...new Set(r.utterances.map((u) => `${u.metadata.channel}:${u.metadata.speaker}`))].sort(), ['0:C0', '1:C1']);
  assert.ok(r.crosstalkWords > 0);
  const kept = await speakersOfRecording(async () => models, channels(c), { diarize: false, gender: false, crosstalk: 'keep' });
  assert.is(kept.utterances.filter((u) => u.metadata.crosstalk).length > 0, true);
  assert.equal(kept.utterances.map((u) => u.metadata.uttid), kept.utterances.map((_, i) => i));
});

real.run();
