import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { luhn } from '../src/numbers/lexicon.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import type { RedactionKind } from '../src/redact/recognizers.js';
import { redactedWav, silenceAudio, silenceRanges } from '../src/redact/silence-audio.js';
import { redactDocument } from '../src/redact/stage.js';
import { numbersDocument } from '../src/numbers/stage.js';
import { decodeWavBuffer } from '../src/stages/decode.js';
import type { Utterance } from '../src/types.js';

const r = suite('redact');

/** A call as [channel, text] turns: words 0.5 s apart, 1 s between turns. */
function call(turns: Array<[number, string]>, numtrans = false): Utterance[] {
  let t = 0;
  return turns.map(([channel, text], uttid) => {
    const events = text.split(' ').map((word, i) => ({ word, start: t + i * 0.5, end: t + i * 0.5 + 0.4, confidence: 0.9 }));
    t += events.length * 0.5 + 1;
    return { start: events[0]!.start, end: events[events.length - 1]!.end, confidence: 0.9, metadata: { channel, uttid }, events: numtrans ? normalizeNumbers(events) : events };
  });
}
const shown = (utts: Utterance[]) => utts.map((u) => u.events.map((e) => e.word + ('redacted' in e ? `<${(e as { redacted: string }).redacted}>` : '')).join(' '));
const redact = (turns: Array<[number, string]>, numtrans = false, kinds?: RedactionKind[]) => {
  const res = redactUtterances(call(turns, numtrans), kinds);
  return { text: shown(res.utterances), spans: res.spans.map((s) => `${s.kind} C${s.channel} ${s.start}-${s.end} ${s.digits}`) };
};

const PAYMENT: Array<[number, string]> = [
  [0, 'can I have the card number please'],
  [1, 'sure it is four one one one'],
  [0, 'okay'],
  [1, 'one one one one'],
  [1, 'one one one one'],
  [1, 'one one one one'],
  [0, 'and the expiry date'],
  [1, 'oh four twenty seven'],
  [0, 'and the security code on the back'],
  [1, 'seven three nine'],
  [0, 'that is forty two dollars and fifty cents for you at two pm on march third twenty twenty five'],
  [1, 'one of them is three items'],
];

r('a card said in groups over four turns, its expiry and code, spoken words (numtrans=false)', () => {
  assert.ok(luhn('4111111111111111'));
  assert.equal(redact(PAYMENT), {
    text: [
      'can I have the card number please',
      'sure it is #<card> #<card> #<card> #<card>',
      'okay',
      '#<card> #<card> #<card> #<card>',
      '#<card> #<card> #<card> #<card>',
      '#<card> #<card> #<card> #<card>',
      'and the expiry date',
      '#<expiry> #<expiry> #<expiry> #<expiry>',
      'and the security code on the back',
      '#<cvv> #<cvv> #<cvv>',
      'that is forty two dollars and fifty cents for you at two pm on march third twenty twenty five',
      'one of them is three items',
    ],
    spans: ['card C1 6-18.4 16', 'expiry C1 22.5-24.4 4', 'cvv C1 30-31.4 3'],
  });
});

r('the same call with numerals (numtrans=true)', () => {
  assert.equal(redact(PAYMENT, true).text, [
    'can I have the card number please',
    'sure it is ####<card>',
    'okay',
    '####<card>',
    '####<card>',
    '####<card>',
    'and the expiry date',
    '####<expiry>',
    'and the security code on the back',
    '###<cvv>',
    'that is $42.50 for you at 2 pm on march 3rd 2025',
    'one of them is three items',
  ]);
});

r('digits misheard as homophones and "double" are redacted with the digits around them', () => {
  const turns: Array<[number, string]> = [
    [1, 'it is one seven three four'],
    [1, 'seven to double knives'],
    [1, 'one one double seven eight'],
  ];
  assert.equal(redact(turns), {
    text: ['it is #<digits> #<digits> #<digits> #<digits>', '#<digits> #<digits> #<digits> #<digits>', '#<digits> #<digits> #<digits> #<digits> #<digits>'],
    spans: ['digits C1 1-9.4 13'],
  });
  assert.equal(redact([[1, 'four for one one won one one one'], [1, 'one one one one ate one one one']]).text, [
    '#<card> #<card> #<card> #<card> #<card> #<card> #<card> #<card>',
    '#<card> #<card> #<card> #<card> #<card> #<card> #<card> #<card>',
  ]);
});

r('hyphenated numbers ("forty-two", numtrans=false) are read as digits and redacted', () => {
  const res = redact([[0, 'what is the account number'], [1, 'it is forty-two fifty-five sixty-one ninety']]);
  assert.equal(res.text[1], 'it is ##<digits> ##<digits> ##<digits> ##<digits>');
  assert.equal(res.spans, ['digits C1 4.5-6.4 8']);
  // "twenty-first" is a date, not digits.
  assert.equal(redact([[1, 'on the twenty-first of march']]).text, ['on the twenty-first of march']);
});

r('social security and phone numbers; ordinary "for" and "to" stay', () => {
  assert.equal(redact([
    [1, 'my social security number is one two three four five six seven eight nine'],
    [1, 'my phone is five five five oh one four two'],
    [1, 'that is for you to go'],
  ], true), {
    text: ['my social security number is #########<ssn>', 'my phone is #######<digits>', 'that is for you to go'],
    spans: ['ssn C1 2.5-6.9 9', 'digits C1 9.5-12.9 7'],
  });
});

r('only the requested kinds are redacted; a card still counts as a run of digits', () => {
  assert.equal(redact(PAYMENT, true, ['cvv']).spans, ['cvv C1 30-31.4 3']);
  // Asked for digits only, the expiry and code still go: 3+ digits answering a question count.
  assert.equal(redact(PAYMENT, true, ['digits']).spans, ['digits C1 6-18.4 16', 'digits C1 22.5-24.4 4', 'digits C1 30-31.4 3']);
});

r('misheard digits answering a question are redacted with the answer', () => {
  assert.equal(redact([
    [0, 'and the expiry date'],
    [1, 'oh nine'],
    [1, 'two'],
    [1, 'sakes'],
    [0, 'and the security code on the back'],
    [1, 'six'],
    [1, 'the vero'],
    [1, 'nine'],
    [1, 'okay thanks for your help'],
  ], true).text, [
    'and the expiry date', '#<expiry> #<expiry>', '#<expiry>', '###<expiry>', 'and the security code on the back', '#<cvv>', '###<cvv> ###<cvv>', '#<cvv>', 'okay thanks for your help',
  ]);
});

r('an expiry said with its month redacts the month too', () => {
  assert.equal(redact([[0, 'when does it expire'], [1, 'april twenty seven']]).text, ['when does it expire', '###<expiry> #<expiry> #<expiry>']);
});

r('silences every channel over the spans plus the margin', () => {
  assert.equal(silenceRanges([{ start: 1, end: 2 }, { start: 2.2, end: 3 }, { start: 9.9, end: 11 }], 10, 100), [[7, 33], [96, 100]]);
  const ones = () => new Float32Array(40).fill(0.5);
  const audio = { format: { encoding: 'pcm_s16' as const, sampleRate: 10, channels: 2, bitsPerSample: 16 }, channels: [ones(), ones()], durationSec: 4, warnings: [] };
  const quiet = silenceAudio(audio, [{ start: 1, end: 1.5 }], 0.2);
  assert.equal([...quiet.channels[1]!].map((x) => (x === 0 ? 0 : 1)).join(''), '1111111100000000011111111111111111111111');
  assert.is(audio.channels[0]![10], 0.5, 'the input is not changed');
});

r('the kept recording is a 16-bit WAV silent over the spans, the rest as it was', () => {
  const ch = Float32Array.from({ length: 16000 }, (_, i) => ((i % 7) - 3) / 8);
  const audio = { format: { encoding: 'mulaw' as const, sampleRate: 8000, channels: 2, bitsPerSample: 8 }, channels: [ch, ch.map((x) => -x)], durationSec: 2, warnings: [] };
  const back = decodeWavBuffer(redactedWav(audio, [{ start: 0.5, end: 0.75 }]));
  assert.equal(back.format, { encoding: 'pcm_s16', sampleRate: 8000, channels: 2, bitsPerSample: 16 });
  for (const c of [0, 1]) {
    const same = (i: number) => back.channels[c]![i] === audio.channels[c]![i];
    assert.ok(back.channels[c]!.subarray(2000, 8000).every((x) => x === 0), 'silent from 0.25 s to 1.0 s');
    assert.ok([...Array(2000).keys(), ...Array.from({ length: 8000 }, (_, i) => 8000 + i)].every(same), 'the rest unchanged');
    assert.is(same(2002), false);
  }
});

r('the stages: numbers then redaction; scrubaudio alone keeps the text and returns the spans', () => {
  const doc = { asr: 'voxdex', model: 'm', audiosecs: 20, nchannels: 2, requestid: 'r', source: 's', chaninfo: [], utterances: call(PAYMENT) };
  const numbered = numbersDocument(doc, { numtrans: true });
  assert.is(numbered.utterances[1]!.events.map((e) => e.word).join(' '), 'sure it is 4111');
  assert.is(numbersDocument(doc, { numtrans: false }), doc);
  const text = redactDocument(numbered, { scrubtext: true, scrubaudio: false });
  assert.is(text.document.utterances[1]!.events.map((e) => e.word).join(' '), 'sure it is ####');
  const audioOnly = redactDocument(numbered, { scrubtext: false, scrubaudio: true, redact: ['card'] });
  assert.is(audioOnly.document, numbered);
  assert.equal(audioOnly.spans.map((s) => s.kind), ['card']);
});

r.run();
