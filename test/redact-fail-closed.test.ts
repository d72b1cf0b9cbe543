/**
 * Redaction fails closed (issue 24): the ways a hostile probe got card and SSN digits past the
 * recognizers — a quantity word after the number, long pauses, chatter, a misheard first group, a
 * one-voice call split in two diarization labels — and the new kinds of question (a PIN, the code
 * asked in other words). Transcripts are shaped as the ASR writes them: one utterance per breath,
 * digit groups as their own utterances, with the times of real speech.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { luhn } from '../src/numbers/lexicon.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import type { RedactionKind } from '../src/redact/recognizers.js';
import type { Utterance } from '../src/types.js';

const test = suite('redaction fails closed');

interface Turn {
  ch: number;
  text: string;
  /** Seconds of silence before the turn (default 1). */
  pause?: number;
  /** metadata.speaker, as diarization sets it. */
  speaker?: string;
}

/** A call: words 0.4 s long, 0.1 s apart; `pause` seconds between turns. */
function call(turns: Turn[], numtrans: boolean): Utterance[] {
  let t = 0;
  return turns.map((turn, uttid) => {
    t += turn.pause ?? 1;
    const events = turn.text.split(' ').map((word, i) => ({ word, start: +(t + i * 0.5).toFixed(2), end: +(t + i * 0.5 + 0.4).toFixed(2), confidence: 0.9 }));
    t = events[events.length - 1]!.end;
    const metadata = { channel: turn.ch, uttid, ...(turn.speaker ? { speaker: turn.speaker } : {}) };
    return { start: events[0]!.start, end: t, confidence: 0.9, metadata, events: numtrans ? normalizeNumbers(events) : events };
  });
}

/** Each utterance's words, a redacted one as `word<kind>`. */
function redacted(turns: Turn[], numtrans: boolean, kinds?: RedactionKind[]): string[] {
  return redactUtterances(call(turns, numtrans), kinds).utterances.map((u) =>
    u.events.map((e) => e.word + (e.redacted ? `<${e.redacted}>` : '')).join(' '),
  );
}

/** The digits left in the redacted text, spoken or written (what a leak looks like). */
function digitsLeft(lines: string[]): string {
  const words: Record<string, string> = { zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9' };
  return lines.flatMap((l) => l.split(' ')).filter((w) => !w.includes('<')).map((w) => words[w.toLowerCase().replace(/\W/g, '')] ?? w.replace(/\D/g, '')).join('');
}

const CARD = '5425233430109903';
const spoken = (digits: string) => [...digits].map((d) => ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][Number(d)]).join(' ');
const groups = (digits: string) => digits.match(/.{1,4}/g)!.map(spoken);

test('the test card passes Luhn', () => {
  assert.ok(luhn(CARD));
});

for (const numtrans of [true, false]) {
  test(`a quantity word after a card number claims only its own short number (numtrans=${numtrans})`, () => {
    const lines = redacted([{ ch: 1, text: `my card number is ${spoken(CARD)}.` }, { ch: 1, text: 'Three months ago I lost it.', pause: 1.5 }], numtrans);
    assert.is(digitsLeft(lines), '3', lines.join(' | '));
    assert.is(lines[1], 'Three months ago I lost it.');
    assert.ok(lines[0]!.includes('<card>'), lines[0]);
  });

  test(`a quantity word said right after the last group: the group's digit goes with the card (numtrans=${numtrans})`, () => {
    const lines = redacted([{ ch: 1, text: `my card number is ${spoken(CARD)} months ago I lost it` }], numtrans);
    assert.is(digitsLeft(lines), '', lines[0]);
    assert.match(lines[0]!, /months ago I lost it$/);
  });

  test(`a social security number followed by "two people live here" is redacted whole (numtrans=${numtrans})`, () => {
    const lines = redacted([{ ch: 1, text: 'my social is five three seven two one eight eight four six two people live here' }], numtrans);
    assert.is(digitsLeft(lines), '', lines[0]);
    assert.match(lines[0]!, /<ssn> people live here$/);
    assert.match(lines[0]!, /^my social is /);
  });

  test(`four groups 25 s apart after "my card number is": all 16 digits redacted (numtrans=${numtrans})`, () => {
    const [g1, g2, g3, g4] = groups(CARD);
    const lines = redacted([
      { ch: 1, text: 'my card number is' },
      { ch: 1, text: g1!, pause: 2 },
      { ch: 1, text: g2!, pause: 25 },
      { ch: 1, text: g3!, pause: 25 },
      { ch: 1, text: g4!, pause: 25 },
    ], numtrans);
    assert.is(digitsLeft(lines), '', lines.join(' | '));
    assert.ok(lines.slice(1).every((l) => l.split(' ').every((w) => w.endsWith('<card>'))), lines.join(' | '));
  });

  test(`five or more words of chatter between groups do not split the number (numtrans=${numtrans})`, () => {
    const [g1, g2, g3, g4] = groups(CARD);
    const lines = redacted([
      { ch: 1, text: 'my card number is' },
      { ch: 1, text: g1! },
      { ch: 1, text: g2! },
      { ch: 1, text: 'wait let me find my glasses they are somewhere here', pause: 2 },
      { ch: 0, text: 'no problem take your time', pause: 1 },
      { ch: 1, text: g3!, pause: 6 },
      { ch: 1, text: g4! },
      { ch: 0, text: 'thank you', pause: 1 },
    ], numtrans);
    assert.is(digitsLeft(lines), '', lines.join(' | '));
    assert.is(lines[3], 'wait let me find my glasses they are somewhere here', 'a sentence of chatter keeps its words');
    assert.is(lines[4], 'no problem take your time');
    assert.is(lines[7], 'thank you');
  });

  test(`a first group the ASR misheard as words is redacted with the rest (numtrans=${numtrans})`, () => {
    const [, g2, g3, g4] = groups(CARD);
    const lines = redacted([
      { ch: 1, text: 'my card number is' },
      { ch: 1, text: 'fight tea fight' },
      { ch: 1, text: g2! },
      { ch: 1, text: g3! },
      { ch: 1, text: g4! },
    ], numtrans);
    assert.is(lines[0], 'my card number is');
    assert.is(lines[1], '###<card> ###<card> ###<card>');
    assert.is(digitsLeft(lines), '');
  });

  test(`a one-voice call split in two diarization labels: the digit given to the other label is redacted (numtrans=${numtrans})`, () => {
    const [g1, g2, g3, g4] = groups(CARD);
    const lines = redacted([
      { ch: 0, text: `sure it's ${g1}`, speaker: 'S1' },
      { ch: 0, text: g2!, speaker: 'S1' },
      { ch: 0, text: g3!, speaker: 'S1' },
      { ch: 0, text: g4!.split(' ').slice(0, 3).join(' '), speaker: 'S1' },
      { ch: 0, text: g4!.split(' ')[3]!, speaker: 'S2', pause: 0.3 },
    ], numtrans);
    assert.is(digitsLeft(lines), '', lines.join(' | '));
  });

  test(`no cue (the ASR heard "car numbers"): four groups split by chatter add up to a card and are one, the chatter kept (numtrans=${numtrans})`, () => {
    const [g1, g2, g3, g4] = groups(CARD);
    const turns: Turn[] = [
      { ch: 0, text: 'can I have the car numbers please' },
      { ch: 1, text: `sure it is ${g1}` },
      { ch: 1, text: 'hold on my dog is barking at the door sorry about that', pause: 2 },
      { ch: 0, text: 'no worries take your time' },
      { ch: 1, text: `okay ${g2}`, pause: 3 },
      { ch: 1, text: 'sorry the light is bad in here' },
      { ch: 1, text: `${g3} and ${g4}`, pause: 4 },
    ];
    const lines = redacted(turns, numtrans);
    assert.is(digitsLeft(lines), '', lines.join(' | '));
    assert.ok(lines.filter((l) => l.includes('#')).every((l) => !/<(?!card>)/.test(l)), lines.join(' | '));
    assert.is(lines[2], 'hold on my dog is barking at the door sorry about that');
    assert.is(lines[5], 'sorry the light is bad in here');
    assert.match(lines[1]!, /^sure it is /);
    // Under redact=card alone too: the kind is card, cue or not.
    assert.is(digitsLeft(redacted(turns, numtrans, ['card'])), '');
  });

  test(`no cue: nine digits in three pieces split by chatter are an SSN (numtrans=${numtrans})`, () => {
    const turns: Turn[] = [
      { ch: 0, text: 'go ahead' },
      { ch: 1, text: 'five three seven' },
      { ch: 1, text: 'hold on my dog is barking at the door sorry about that' },
      { ch: 1, text: 'two one', pause: 3 },
      { ch: 1, text: 'wait I need to find the paper here I am' },
      { ch: 1, text: 'eight eight four six', pause: 3 },
    ];
    const lines = redacted(turns, numtrans);
    assert.is(digitsLeft(lines), '', lines.join(' | '));
    assert.ok(['<ssn>'].every((k) => lines[1]!.includes(k) && lines[3]!.includes(k) && lines[5]!.includes(k)), lines.join(' | '));
    assert.is(digitsLeft(redacted(turns, numtrans, ['ssn'])), '');
  });

  test(`no cue: numbers that do not add up to a card or an SSN, or a topic word between them, stay apart (numtrans=${numtrans})`, () => {
    const lines = redacted([
      { ch: 1, text: 'my flight is two one four' },
      { ch: 1, text: 'and it leaves from gate twelve at the north end' },
      { ch: 1, text: 'the seat is forty one', pause: 3 },
    ], numtrans);
    assert.not.ok(lines.some((l) => l.includes('<')), lines.join(' | '));
    const apart = redacted([
      { ch: 1, text: 'five three seven' },
      { ch: 0, text: 'and what is your zip code' },
      { ch: 1, text: 'two one eight eight four six', pause: 3 },
    ], numtrans, ['ssn']);
    assert.not.ok(apart.some((l) => l.includes('<ssn>')), apart.join(' | '));
    // An IVR menu: numbers inside sentences are no pieces of one number (bench/redaction-real.ts, vm-options).
    const menu = redacted([
      { ch: 0, text: 'press one to record your unavailable message press two to record your busy message press three to record your name press four to record your temporary greeting press five to change your password press five to return to the main menu' },
    ], numtrans);
    assert.not.ok(menu.some((l) => l.includes('<')), menu.join(' | '));
  });

  test(`no cue and digits misheard as words ("my car um where is", "the vero", "sakes"): the stretch is a card, the misheard words with it (numtrans=${numtrans})`, () => {
    // bench/redaction.ts call 3 as the ASR wrote it: 14 digits heard, "zero" and "six" heard as words.
    const lines = redacted([
      { ch: 1, text: 'my car um where is' },
      { ch: 1, text: 'five' }, { ch: 1, text: 'four two five' }, { ch: 1, text: 'two three' }, { ch: 1, text: 'three four' }, { ch: 1, text: 'three zero' },
      { ch: 1, text: 'the vero' }, { ch: 1, text: 'nine' }, { ch: 1, text: 'sakes' }, { ch: 1, text: 'nine' }, { ch: 1, text: 'zero' }, { ch: 1, text: 'three' },
      { ch: 1, text: 'okay sounds good', pause: 2.5 },
    ], numtrans);
    assert.is(lines[0], 'my car um where is');
    assert.is(digitsLeft(lines), '', lines.join(' | '));
    assert.ok(lines.slice(1, 12).every((l) => l.split(' ').every((w) => w.endsWith('<card>'))), lines.join(' | '));
    assert.is(lines[12], 'okay sounds good');
  });
}

test('a PIN: redacted as pin when asked for, as digits under the default kinds', () => {
  const turns: Turn[] = [{ ch: 0, text: 'and what is your pin' }, { ch: 1, text: 'one two three four' }, { ch: 0, text: 'thank you' }];
  assert.equal(redacted(turns, true, ['pin']), ['and what is your pin', '####<pin>', 'thank you']);
  assert.equal(redacted(turns, false), ['and what is your pin', '#<digits> #<digits> #<digits> #<digits>', 'thank you']);
  assert.equal(redacted([{ ch: 0, text: 'please key in your passcode' }, { ch: 1, text: 'four four two one' }], true, ['pin']), ['please key in your passcode', '####<pin>']);
});

test('codes asked in other words: the three digits on the back, the last four of the social, the long number on the front', () => {
  assert.equal(redacted([{ ch: 0, text: 'and the three digits on the back' }, { ch: 1, text: 'seven three nine' }], true), ['and the three digits on the back', '###<cvv>']);
  assert.equal(redacted([{ ch: 0, text: 'what are the last four digits of your social' }, { ch: 1, text: 'six six one two' }], true), [
    'what are the last four digits of your social',
    '####<ssn>',
  ]);
  assert.equal(redacted([{ ch: 0, text: "what's the long number on the front" }, { ch: 1, text: 'five four two five' }, { ch: 1, text: 'two three three four' }], true), [
    "what's the long number on the front",
    '####<card>',
    '####<card>',
  ]);
});

test('a code read in pieces is redacted even when the question was misheard ("and what has yorubin")', () => {
  assert.equal(redacted([{ ch: 0, text: 'and what has yorubin' }, { ch: 1, text: 'one' }, { ch: 1, text: 'four seven', pause: 0.3 }, { ch: 1, text: 'three', pause: 0.3 }], true), [
    'and what has yorubin',
    '#<digits>',
    '##<digits>',
    '#<digits>',
  ]);
  // Said in one breath, a year or a price stays.
  assert.equal(redacted([{ ch: 1, text: 'it was nineteen ninety nine' }], true), ['it was 1999']);
});

test('a question is answered on the other channel: the asker\'s own harmless number stays; a code read back is redacted', () => {
  assert.equal(redacted([
    { ch: 0, text: 'can I have the card number please' },
    { ch: 1, text: 'four five three nine one four eight eight zero three four three six four six seven' },
    { ch: 0, text: 'thanks and the offer ends in nineteen ninety nine', pause: 3 },
  ], true), ['can I have the card number please', '################<card>', 'thanks and the offer ends in 1999']);
  assert.equal(redacted([
    { ch: 0, text: 'and the security code on the back' },
    { ch: 1, text: 'seven three nine' },
    { ch: 0, text: 'so that is seven three nine' },
  ], true), ['and the security code on the back', '###<cvv>', 'so that is ###<cvv>']);
});

test('harmless numbers stay: counts, amounts, times, dates, "one of them"', () => {
  const lines = redacted([
    { ch: 0, text: 'your order of three items ships in two days' },
    { ch: 1, text: 'great I ordered twelve fifty dollars worth at two pm on march third twenty twenty five' },
    { ch: 1, text: 'one of them is for my two kids' },
  ], true);
  assert.equal(lines, [
    'your order of three items ships in two days',
    'great I ordered $1,250 worth at 2 pm on march 3rd 2025',
    'one of them is for my two kids',
  ]);
});

test.run();
