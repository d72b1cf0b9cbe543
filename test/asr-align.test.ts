import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { placeWords } from '../src/asr/align.js';
import type { NativeWord } from '../src/asr/binding.js';
import { trailingRepeat } from '../src/asr/moonshine/model.js';
import { readingsOf, spokenWord, type WrittenWord } from '../src/asr/moonshine/words.js';

const a = suite('asr alignment and text normalization');
const w = (text: string, confidence = 0.9): WrittenWord => ({ text, readings: readingsOf(text), confidence });
const p = (word: string, start: number, end: number): NativeWord => ({ word, start, end, confidence: 1 });

a('Moonshine\'s written words become spoken, US-spelled, lower-case words', () => {
  assert.equal(readingsOf('metres.'), [['meters']]);
  assert.equal(readingsOf('mr.'), [['mister']]);
  assert.equal(readingsOf('&'), [['and']]);
  assert.equal(readingsOf("don't"), [["don't"]]);
  assert.equal(readingsOf('twenty-five'), [['twenty-five'], ['twenty', 'five']]);
  assert.equal(readingsOf('"'), []);
  assert.equal(readingsOf('205'), [['two', 'hundred', 'five'], ['two', 'zero|oh', 'five']]);
  assert.is(spokenWord('zero|oh', 'oh'), 'zero');
  assert.is(spokenWord('zero|oh'), 'zero');
});

a('the aligner\'s path picks the reading that was said and gives each spoken word its times', () => {
  const written = [w('call'), w('205')];
  const path = [p('call', 100, 400), p('two', 450, 600), p('oh', 600, 750), p('five', 760, 1000)];
  assert.equal(placeWords(written, path, [0, 1200]), {
    aligned: 2,
    words: [
      { word: 'call', start: 100, end: 400, confidence: 0.9 },
      { word: 'two', start: 450, end: 600, confidence: 0.9 },
      { word: 'zero', start: 600, end: 750, confidence: 0.9 },
      { word: 'five', start: 760, end: 1000, confidence: 0.9 },
    ],
  });
});

a('a word the dictionary lacks takes the span of the phones that absorbed it', () => {
  const written = [w('hello'), w('voxdex'), w('today')];
  const path = [p('hello', 0, 300), p('@v', 320, 400), p('@aa', 400, 500), p('@k', 500, 560), p('today', 600, 900)];
  assert.equal(placeWords(written, path, [0, 1000]).words.map((x) => [x.word, x.start, x.end]), [
    ['hello', 0, 300],
    ['voxdex', 320, 560],
    ['today', 600, 900],
  ]);
});

a('words the search did not reach get times spread over the rest of the speech, by length', () => {
  const written = [w('go'), w('forward'), w('now')];
  const placed = placeWords(written, [p('go', 100, 300)], [100, 1100]);
  assert.is(placed.aligned, 1);
  assert.equal(placed.words.map((x) => [x.word, x.start, x.end]), [
    ['go', 100, 300],
    ['forward', 300, 860],
    ['now', 860, 1100],
  ]);
});

a('a repetition loop is recognized at the end of the token sequence', () => {
  assert.is(trailingRepeat([5, 6, 7, 7, 7, 7]), 1);
  assert.is(trailingRepeat([1, 2, 3, 2, 3, 2, 3, 2, 3]), 2);
  assert.is(trailingRepeat([1, 2, 3, 4, 5, 6, 7, 8]), 0);
  assert.is(trailingRepeat([9, 9, 9]), 0);
});

a.run();
