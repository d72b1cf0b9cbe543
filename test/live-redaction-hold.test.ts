/**
 * The live hold-back (src/redact/engine.ts, from the recognizers' reaches) keeps up with redaction's fail-closed rules (issue
 * 24): streams are per channel whatever the diarization labels, a group 25 s after the last in an
 * answer window still joins it, and words in an answer window may turn out to be a misheard first
 * group while digits can still follow.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { settledUtterances as decidedUtterances } from '../src/redact/engine.js';
import type { Utterance } from '../src/types.js';
import { spoken } from './fixtures/spoken.js';

const test = suite('live redaction hold-back');

const utt = (channel: number, start: number, text: string, speaker?: string) => spoken(channel, start, text, { speaker });
const decided = (call: Utterance[], now: number) => [...decidedUtterances(call, now)].sort((a, b) => a - b);

test('a one-voice channel split in two diarization labels is one stream: the second label\'s utterance near digits is held', () => {
  const call = [utt(0, 0, 'four five three nine one four eight eight', 'S1'), utt(0, 5, 'zero three four', 'S2')];
  assert.equal(decided(call, 10), []);
  assert.equal(decided(call, 40), [0, 1]);
});

test('a group 25 s after the last inside an answer window is still waited for', () => {
  const call = [utt(1, 0, 'my card number is'), utt(1, 3, 'five four two five')];
  assert.equal(decided(call, 3 + 1.9 + 25), [0], '25 s after the group: a next group could still join');
  assert.equal(decided(call, 3 + 1.9 + 31), [0, 1]);
});

test('words in an answer window are held until digits can no longer follow them', () => {
  const call = [utt(0, 0, 'can I have the card number please'), utt(1, 5, 'fight tea fight')];
  assert.equal(decided(call, 6.5), [0]);
  assert.equal(decided(call, 10), [0, 1]);
  // Outside any window, words go at once.
  assert.equal(decided([utt(0, 0, 'hello how are you')], 2), [0]);
});

test('digits said with no cue are held while later groups could still make a card by length (joinByLength)', () => {
  // "car number" misheard: no cue, chatter between the groups; the four groups add up to 16 digits.
  const call = [
    utt(1, 0, 'it is four five three nine'),
    utt(0, 4, 'okay go on'),
    utt(1, 8, 'one four eight eight'),
    utt(1, 16, 'zero three four three'),
    utt(1, 26, 'six four six seven'),
  ];
  const groups = [0, 2, 3, 4];
  for (const now of [12, 20, 28]) {
    const sent = decided(call, now);
    for (const g of groups) assert.not.ok(sent.includes(g), `group ${g} sent at ${now} s while the number could still grow`);
  }
  // The stored document redacts every group as a card; once 20 s pass with no digit, they go (redacted).
  assert.equal(decided(call, 48), [0, 1, 2, 3, 4]);
});

test.run();
