import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatQuery, normalizeWord, parseTerms } from '../src/search/query.js';

const test = suite('query');
const fmt = (terms: string) => {
  const node = parseTerms(terms);
  return node ? formatQuery(node) : undefined;
};

function rejects(terms: string, message: string) {
  try {
    parseTerms(terms);
  } catch (err) {
    assert.is((err as { code?: string }).code, 'BAD_QUERY');
    assert.is((err as Error).message, `Invalid terms: ${message}. See docs/search.md for the syntax.`);
    return;
  }
  assert.unreachable(`${terms} should be rejected`);
}

test('blank terms match everything', () => {
  assert.is(parseTerms(''), undefined);
  assert.is(parseTerms('   '), undefined);
});

test('a single word, lowercased and stripped of punctuation and diacritics', () => {
  assert.equal(parseTerms('Café'), { type: 'word', word: 'cafe' });
  assert.equal(parseTerms("don't"), { type: 'word', word: 'dont' });
  assert.is(normalizeWord('Hello!'), 'hello');
});

test('words side by side are ANDed; & is the same', () => {
  assert.is(fmt('refund cancel'), '(refund & cancel)');
  assert.is(fmt('refund & cancel'), '(refund & cancel)');
  assert.is(fmt('refund&cancel'), '(refund & cancel)');
});

test('| is OR and binds looser than AND', () => {
  assert.is(fmt('a b | c'), '((a & b) | c)');
  assert.is(fmt('a | b c'), '(a | (b & c))');
});

test('parentheses group', () => {
  assert.is(fmt('(a | b) c'), '((a | b) & c)');
  assert.is(fmt('-(a | b)'), '-(a | b)');
});

test('- before a word, phrase or group is NOT; inside a word it is part of the word', () => {
  assert.is(fmt('refund -cancel'), '(refund & -cancel)');
  assert.is(fmt('-"thank you" hello'), '(-"thank you" & hello)');
  assert.equal(parseTerms('e-mail'), { type: 'word', word: 'email' });
});

test('quoted phrases, and a one-word phrase is a word matched exactly (no word forms)', () => {
  assert.equal(parseTerms('"Cancel my  Subscription"'), { type: 'phrase', words: ['cancel', 'my', 'subscription'] });
  assert.equal(parseTerms('"hello"'), { type: 'word', word: 'hello', exact: true });
  assert.equal(parseTerms('hello'), { type: 'word', word: 'hello' });
  assert.equal(parseTerms('"hel*"'), { type: 'word', word: 'hel*' });
  assert.is(fmt('"Weasels" weasels'), '("weasels" & weasels)');
});

test('"words"~N is proximity', () => {
  assert.equal(parseTerms('"refund order"~5'), { type: 'near', words: ['refund', 'order'], distance: 5 });
  assert.is(fmt('"a b"~0 | c'), '("a b"~0 | c)');
});

test('wildcards are kept inside words, runs of * collapse', () => {
  assert.equal(parseTerms('Col?r'), { type: 'word', word: 'col?r' });
  assert.equal(parseTerms('can**l*'), { type: 'word', word: 'can*l*' });
  assert.is(fmt('"c*l my sub*"'), '"c*l my sub*"');
});

test('rejects an unclosed quote', () => rejects('"cancel my', 'the quote at position 0 is not closed'));
test('rejects an unclosed parenthesis', () => rejects('(a | b', 'the "(" at position 0 is not closed'));
test('rejects a stray closing parenthesis', () => rejects('a )', 'unexpected ")" at position 2'));
test('rejects empty parentheses', () => rejects('a ()', 'empty parentheses at position 2'));
test('rejects a dangling OR', () => rejects('a |', 'expected a word, phrase or "(" at the end'));
test('rejects a leading OR', () => rejects('| a', 'unexpected "|" at position 0; expected a word, phrase or "("'));
test('rejects a dangling NOT', () => rejects('a -', 'expected a word, phrase or "(" at the end'));
test('rejects an empty phrase', () => rejects('a ""', 'the quoted phrase at position 2 is empty'));
test('rejects a word with no letters or digits', () => rejects('a !!!', 'the word "!!!" at position 2 has no letters or digits'));
test('rejects a wildcard with no letters', () => rejects('*', 'the word "*" at position 0 has no letters or digits'));
test('rejects ~ on a bare word', () => rejects('refund~3', '"~N" proximity applies to a quoted phrase ("word1 word2"~5), found "refund~3" at position 0'));
test('rejects a proximity above 100', () => rejects('"a b"~101', 'expected a whole number of words from 0 to 100 after "~" at position 5'));
test('rejects a proximity without a number', () => rejects('"a b"~x', 'expected a whole number of words from 0 to 100 after "~" at position 5'));
test('rejects terms longer than 2000 characters', () => rejects('a'.repeat(2001), 'longer than 2000 characters'));
test('rejects more than 64 words', () => rejects(Array.from({ length: 65 }, (_, i) => `w${i}`).join(' '), 'more than 64 words and phrases'));

test.run();
