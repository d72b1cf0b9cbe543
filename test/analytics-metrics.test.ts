import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callEvents, callMetrics, mergeIntervals } from '../src/analytics/metrics.js';

const test = suite('analytics-metrics');

/** An utterance of `n` words evenly spread over [start, end] on a channel. */
function utt(channel: number, start: number, end: number, n = Math.max(1, Math.round((end - start) / 0.4))) {
  const step = (end - start) / n;
  return {
    start,
    end,
    metadata: { channel },
    events: Array.from({ length: n }, (_, i) => ({ word: `w${i}`, start: start + i * step, end: start + (i + 1) * step - 0.05 })),
  };
}

test('mergeIntervals closes pauses under the gap', () => {
  assert.equal(mergeIntervals([[3, 4], [0, 1], [1.2, 2]], 0.5), [[0, 2], [3, 4]]);
  assert.equal(mergeIntervals([[0, 1], [1.6, 2]], 0.5), [[0, 1], [1.6, 2]]);
});

test('two channels with one known overlap and one known silence', () => {
  // agent 0–5 s, customer 4–9 s (1 s overtalk), silence 9–12 s, agent 12–15 s
  const us = [utt(0, 0, 5), utt(1, 4, 9), utt(0, 12, 15)];
  const ev = callEvents(us);
  assert.is(ev.overtalk.length, 1);
  assert.ok(Math.abs(ev.overtalk[0]![0] - 4) < 0.06 && Math.abs(ev.overtalk[0]![1] - 5) < 0.06, JSON.stringify(ev.overtalk));
  assert.is(ev.silence.length, 1);
  assert.ok(Math.abs(ev.silence[0]![0] - 9) < 0.06 && Math.abs(ev.silence[0]![1] - 12) < 0.06, JSON.stringify(ev.silence));
  const m = callMetrics(us);
  assert.ok(Math.abs(m.overtalksecs - 1) < 0.06);
  assert.ok(Math.abs(m.silencesecs - 3) < 0.06);
  assert.is(m.longestsilencesecs, m.silencesecs);
  assert.equal(Object.keys(m.talksecs), ['0', '1']);
  assert.ok(Math.abs(m.talksecs['0']! - 8) < 0.1);
  assert.ok(m.wordsperminute['1']! > 100 && m.wordsperminute['1']! < 200);
});

test('short turn-taking gaps, leading and trailing quiet are not silence; fillers are not speech', () => {
  const us = [utt(0, 3, 5), utt(1, 5.4, 7), { start: 7, end: 12, metadata: { channel: 0 }, events: [{ word: '<sil>', start: 7, end: 12 }] }];
  const m = callMetrics(us);
  assert.is(m.silencesecs, 0);
  assert.is(m.overtalksecs, 0);
  assert.is(m.longestsilencesecs, 0);
});

test('three parties: overtalk counts time with two or more speaking once', () => {
  const us = [utt(0, 0, 4), utt(1, 1, 3), utt(2, 2, 5)];
  const m = callMetrics(us);
  // 1–4 s has at least two speakers
  assert.ok(Math.abs(m.overtalksecs - 3) < 0.06, String(m.overtalksecs));
});

test('diarized mono: parties are speakers', () => {
  const a = { ...utt(0, 0, 2), metadata: { channel: 0, speaker: 'S1' } };
  const b = { ...utt(0, 4, 6), metadata: { channel: 0, speaker: 'S2' } };
  const m = callMetrics([a, b]);
  assert.equal(Object.keys(m.talksecs), ['S1', 'S2']);
  assert.ok(Math.abs(m.silencesecs - 2) < 0.06);
});

test('no words: all zero', () => {
  assert.equal(callMetrics([]), { overtalksecs: 0, silencesecs: 0, longestsilencesecs: 0, talksecs: {}, wordsperminute: {}, interruptions: {} });
});

test.run();
