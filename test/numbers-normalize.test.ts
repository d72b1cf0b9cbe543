import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import type { WordEvent } from '../src/types.js';

const n = suite('numbers: spoken words to numerals');
/** Word events 0.5 s apart, confidence falling by 0.01 per word. */
const events = (text: string): WordEvent[] =>
  text.split(' ').map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4, confidence: Number((0.9 - i * 0.01).toFixed(2)) }));
const say = (text: string) => normalizeNumbers(events(text)).map((e) => e.word).join(' ');

n('digits said one at a time, with "oh", "double" and "triple", become one digit string', () => {
  assert.is(say('five five five oh one four two'), '5550142');
  assert.is(say('my card is four one one one double five triple oh'), 'my card is 411155000');
  assert.is(say('oh five two'), '052');
  assert.is(say('one two three four five six seven eight'), '12345678');
});

n('groups said as pairs and cardinals join into one digit string', () => {
  assert.is(say('forty five thirty nine'), '4539');
  assert.is(say('seventeen thirty four'), '1734');
  assert.is(say('one twenty three'), '123');
  assert.is(say('one hundred and five'), '105');
  assert.is(say('two thousand twenty five'), '2025');
  assert.is(say('eleven'), '11');
  assert.is(say('two point five'), '2.5');
});

n('a unit claims only the short number before it, never the digit string said before that (issue 24)', () => {
  assert.is(say('my social is five three seven two one eight eight four six two people live here'), 'my social is 537218846 two people live here');
  assert.is(say('four one one one one one one one forty two dollars'), '41111111 $42');
  assert.is(say('five four two five three percent'), '5425 3%');
  assert.is(say('one two three four five six twenty five minutes'), '123456 25 minutes');
  // Short runs stay one amount, as prices are said.
  assert.is(say('nineteen ninety five dollars'), '$1,995');
  assert.is(say('twelve fifty dollars'), '$1,250');
  assert.is(say('one oh five dollars'), '$105');
});

n('hyphenated numbers ("forty-two", as writers and Moonshine spell them) read as their words', () => {
  assert.is(say('forty-two'), '42');
  assert.is(say('Forty-two,'), '42');
  assert.is(say('forty-five thirty-nine'), '4539');
  assert.is(say('forty-two dollars'), '$42');
  assert.is(say('the twenty-first of may'), 'the 21st of may');
  assert.is(say('at eight forty-five pm'), 'at 8:45 pm');
  const [e] = normalizeNumbers(events('forty-two'));
  assert.equal([e!.start, e!.end], [0, 0.4]);
  assert.is(say('e-mail check-in'), 'e-mail check-in');
});

n('amounts and percentages', () => {
  assert.is(say('forty two dollars and fifty cents'), '$42.50');
  assert.is(say('it costs forty two dollars fifty'), 'it costs $42.50');
  assert.is(say('a hundred dollars'), '$100');
  assert.is(say('one thousand two hundred fifty dollars and seventy five cents'), '$1,250.75');
  assert.is(say('twenty five percent'), '25%');
});

n('times in their context', () => {
  assert.is(say('see you at eight forty five'), 'see you at 8:45');
  assert.is(say('eight forty five'), '845');
  assert.is(say('quarter past eight'), '8:15');
  assert.is(say('quarter to nine'), '8:45');
  assert.is(say('half past two'), '2:30');
  assert.is(say('ten past six'), '6:10');
  assert.is(say('at two pm'), 'at 2 pm');
  assert.is(say('at two p m tomorrow'), 'at 2 pm tomorrow');
  assert.is(say("eight o'clock"), '8:00');
});

n('dates, years and ordinals', () => {
  assert.is(say('march third twenty twenty five'), 'march 3rd 2025');
  assert.is(say('nineteen ninety nine'), '1999');
  assert.is(say('the first of march'), 'the 1st of march');
  assert.is(say('the twenty first'), 'the 21st');
});

n('ordinary words stay words', () => {
  for (const s of ['one of them', 'no one', 'for you', 'to go', 'three items', 'first of all', 'oh well', 'wait a second']) assert.is(say(s), s);
  assert.is(say('twenty to nine people'), '20 to nine people');
});

n('a numeral of several words is one event spanning them with the lowest confidence', () => {
  assert.equal(normalizeNumbers(events('it is forty two dollars')), [
    { word: 'it', start: 0, end: 0.4, confidence: 0.9 },
    { word: 'is', start: 0.5, end: 0.9, confidence: 0.89 },
    { word: '$42', start: 1, end: 2.4, confidence: 0.86 },
  ]);
});

n('keeps lone digit words only when asked to', () => {
  assert.is(normalizeNumbers(events('three items'), { keepLoneDigits: false }).map((e) => e.word).join(' '), '3 items');
});

n.run();
