/** The readability bench's scorer (bench/lib/readability-score.ts): sentence starts and marks as F1 over aligned words. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { f1, score, scoredWords, type Counts } from '../bench/lib/readability-score.js';

const s = suite('readability score');
const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0 });

s('sentence starts are capitals at a line start or after a full stop; an ellipsis ends nothing', () => {
  assert.equal(scoredWords(['Press 1 now. Then I hang up...', 'Mailbox?', 'yes, PBX']).map((w) => `${w.start ? '^' : w.capital ? 'C' : ''}${w.word}${w.mark}`), [
    '^press', 'one', 'now.', '^then', 'Ci', 'hang', 'up', '^mailbox?', 'yes,', 'Cpbx',
  ]);
});

s('counts each mark where it is, a wrong mark as both a false one and a missed one; words are aligned first', () => {
  const into = { start: zero(), capital: zero(), stop: zero(), question: zero(), comma: zero(), marks: zero() };
  score(scoredWords(['Login incorrect. Mailbox?']), scoredWords(['Login incorrect mailbox.']), into);
  assert.equal(into.capital, { tp: 1, fp: 0, fn: 1 });
  assert.equal(into.comma, { tp: 0, fp: 0, fn: 0 });
  assert.equal(into.start, { tp: 1, fp: 0, fn: 1 });
  assert.equal(into.stop, { tp: 0, fp: 1, fn: 1 });
  assert.equal(into.question, { tp: 0, fp: 0, fn: 1 });
  assert.equal(into.marks, { tp: 0, fp: 1, fn: 2 });
  assert.is(f1(into.start), 2 / 3);
});

s.run();
