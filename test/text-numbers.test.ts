import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cardinalWords, numberReadings, ordinalWords, pairWords, spokenForms } from '../src/text/numbers.js';

const n = suite('numbers as spoken words');
const say = (t: string) => numberReadings(t).map((r) => r.join(' '));

n('cardinals, pairs and ordinals', () => {
  assert.is(cardinalWords('0').join(' '), 'zero');
  assert.is(cardinalWords('115').join(' '), 'one hundred fifteen');
  assert.is(cardinalWords('1250').join(' '), 'one thousand two hundred fifty');
  assert.is(cardinalWords('3000042').join(' '), 'three million forty two');
  assert.is(pairWords('1999')!.join(' '), 'nineteen ninety nine');
  assert.is(pairWords('2005')!.join(' '), 'twenty oh five');
  assert.is(pairWords('2000'), undefined);
  assert.is(ordinalWords('21').join(' '), 'twenty first');
  assert.is(ordinalWords('40').join(' '), 'fortieth');
  assert.is(ordinalWords('12').join(' '), 'twelfth');
});

n('a written number gives the ways it may have been said, likeliest first', () => {
  assert.equal(say('5551234'), ['five five five one two three four']);
  assert.equal(say('555-1234'), ['five five five one two three four']);
  assert.equal(say('0451'), ['zero four five one']);
  assert.equal(say('25'), ['twenty five', 'two five']);
  assert.equal(say('1999'), ['nineteen ninety nine', 'one thousand nine hundred ninety nine', 'one nine nine nine']);
  assert.equal(say('$25'), ['twenty five dollars']);
  assert.equal(say('$4.50'), ['four dollars fifty cents', 'four fifty']);
  assert.equal(say('$1'), ['one dollar']);
  assert.equal(say('1,250'), ['one thousand two hundred fifty', 'twelve fifty']);
  assert.equal(say('1,000,000'), ['one million']);
  assert.equal(say('2.5'), ['two point five']);
  assert.equal(say('555.0142'), ['five five five zero one four two', 'five hundred fifty five point zero one four two']);
  assert.equal(say('15%'), ['fifteen percent', 'one five percent']);
  assert.equal(say('3rd'), ['third']);
  assert.equal(say('10am'), ['ten am']);
  assert.equal(say('hello'), []);
});

n('a typed phrase with numbers expands to every combination of spoken forms (at most 8)', () => {
  assert.equal(spokenForms(['call', '911']).map((f) => f.join(' ')), ['call nine hundred eleven', 'call nine one one']);
  assert.equal(spokenForms(['$25']).map((f) => f.join(' ')), ['twenty five dollars', 'twenty five']);
  assert.equal(spokenForms(['no', 'digits']), []);
  assert.is(spokenForms(['1999', '1999', '1999']).length, 8);
});

n.run();
