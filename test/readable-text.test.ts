/**
 * The readable text of an utterance (src/readable/): Moonshine's written form carried on the events
 * through numbers and redaction, then written as `text` and stripped from the events.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { placeWords } from '../src/asr/align.js';
import type { NativeWord } from '../src/asr/binding.js';
import { readingsOf, spelledDisplay, writtenWords, type WrittenWord } from '../src/asr/moonshine/words.js';
import type { Tokenizer } from '../src/asr/moonshine/tokenizer.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { readableUtterance, readableUtterances } from '../src/readable/stage.js';
import { timeTokens } from '../src/readable/text-timing.js';
import { utteranceText, writtenGroups } from '../src/readable/utterance-text.js';
import { redactUtterances } from '../src/redact/redact.js';
import type { Utterance, WordEvent } from '../src/types.js';

const t = suite('readable text');

/** Events from [spoken word, written share] pairs, 0.4 s apart. */
function events(pairs: Array<[string, string?]>): WordEvent[] {
  return pairs.map(([word, written], i) => ({ word, start: i * 0.4, end: i * 0.4 + 0.3, confidence: 0.9, ...(written !== undefined ? { written } : {}) }));
}
const utt = (evs: WordEvent[], channel = 0): Utterance => ({ start: evs[0]!.start, end: evs[evs.length - 1]!.end, confidence: 0.9, metadata: { channel, uttid: 0 }, events: evs });

t('Moonshine\'s words are written as the model wrote them: case, punctuation, numerals', () => {
  const e = events([['hello', 'Hello,'], ['this', 'this'], ['is', 'is'], ['mister', 'Mr.'], ['smith', 'Smith.'], ['how', 'How'], ['can', 'can'], ['i', 'I'], ['help', 'help?']]);
  assert.is(utteranceText(e, { numtrans: true }), 'Hello, this is Mr. Smith. How can I help?');
});

t('tidy text (issue 33 item 11): a sentence the model began in lower case gets its capital, not after e.g.', () => {
  const e = events([['diverd', 'Diverd.'], ['were', "we're"], ['done', 'done.'], ['say', '"say'], ['it', 'it"'], ['e', 'e.g.'], ['one', 'one.']]);
  assert.is(utteranceText(e, { numtrans: true }), 'Diverd. We\'re done. "Say it" e.g. one.');
});

t('tidy text: "i" as a word is "I", "to-day" is "today", a doubled comma is one, an unpaired quote goes', () => {
  // PocketSphinx's words (no written form) and a redacted neighbour: the events' "i" and "i'm".
  assert.is(utteranceText(events([['i'], ['think'], ["i'm"], ['right']]), { numtrans: true }), "I think I'm right.");
  assert.is(utteranceText(events([['so', 'So'], ['i', 'i'], ['will', 'will.']]), { numtrans: true }), 'So I will.');
  assert.is(utteranceText(events([['see', 'See'], ['you', 'you'], ['today', 'to-day,'], ['or', 'or'], ['tomorrow', 'To-morrow.']]), { numtrans: true }), 'See you today, or Tomorrow.');
  assert.is(utteranceText(events([['to', 'To-night'], ['then', 'then.']]), { numtrans: true }), 'Tonight then.');
  assert.is(utteranceText(events([['yes', 'Yes,'], ['', ','], ['well', 'well,,'], ['ok', 'OK.']]), { numtrans: true }), 'Yes, well, OK.');
  assert.is(utteranceText(events([['he', 'He'], ['said', 'said'], ['stop', '"Stop.']]), { numtrans: true }), 'He said Stop.');
  assert.is(utteranceText(events([['he', 'He'], ['said', 'said'], ['go', '“go”'], ['and', 'and'], ['left', 'left”.']]), { numtrans: true }), 'He said “go” and left.');
  // Words that only look alike stay: "i.e.", "iPhone", "to-do".
  assert.is(utteranceText(events([['that', 'That'], ['is', 'i.e.'], ['my', 'my'], ['iphone', 'iPhone'], ['to', 'to-do.']]), { numtrans: true }), 'That i.e. my iPhone to-do.');
});

t('a numeral the model wrote stays written with numtrans; without numtrans it is the events\' spoken words', () => {
  const raw = events([['that', 'That'], ['is', 'is'], ['twenty', '$25.'], ['five', ''], ['dollars', '']]);
  assert.is(utteranceText(normalizeNumbers(raw), { numtrans: true }), 'That is $25.');
  assert.is(utteranceText(raw, { numtrans: false }), 'That is twenty five dollars.');
  // The model wrote words, the numbers stage a numeral: the numeral, with the written punctuation.
  const words = events([['press', 'Press'], ['forty', 'forty-two,'], ['two', ''], ['then', 'then'], ['hash', 'hash.']]);
  assert.is(utteranceText(normalizeNumbers(words), { numtrans: true }), 'Press 42, then hash.');
  assert.is(utteranceText(words, { numtrans: false }), 'Press forty-two, then hash.');
});

t('numbers merge the written forms of the events they join; later events of one written word stay together', () => {
  const merged = normalizeNumbers(events([['call', 'Call'], ['five', '555'], ['five', ''], ['five', ''], ['zero', '0142.'], ['one', ''], ['four', ''], ['two', '']]));
  assert.equal(merged.map((e) => [e.word, e.written]), [['call', 'Call'], ['5550142', '555 0142.']]);
  assert.is(utteranceText(merged, { numtrans: true }), 'Call 555 0142.');
  const timed = normalizeNumbers(events([['at', 'At'], ['eight', '8:45pm.'], ['forty', ''], ['five', ''], ['p', ''], ['m', '']]));
  assert.equal(writtenGroups(timed).map((g) => g.map((e) => e.word)), [['at'], ['8:45', 'pm']]);
  assert.is(utteranceText(timed, { numtrans: true }), 'At 8:45pm.');
});

t('a redacted event is written as its replacement, never from the written form; only closing punctuation is kept', () => {
  const raw = events([['my', 'My'], ['card', 'card'], ['is', 'is'], ...'4539148803436467'.split('').map((d, i): [string, string] => [['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'][Number(d)]!, i % 4 === 0 ? `${'4539148803436467'.slice(i, i + 4)}${i === 12 ? '.' : ''}` : ''])]);
  for (const numtrans of [true, false]) {
    const input = numtrans ? normalizeNumbers(raw) : raw;
    const [red] = redactUtterances([utt(input)]).utterances;
    const text = utteranceText(red!.events, { numtrans });
    assert.not.match(text, /\d/);
    assert.not.match(text, /four|five|three|nine|eight|zero|six|seven/);
    assert.ok(red!.events.every((e) => !/\d/.test(e.written ?? '')), 'no written form keeps a digit');
    assert.is(text, numtrans ? 'My card is ################.' : `My card is ${'# '.repeat(15)}#.`);
  }
});

t('a group with one redacted event is written from its events (a partly redacted written word leaks nothing)', () => {
  const e = events([['code', 'Code'], ['seven', '739.'], ['three', ''], ['nine', '']]);
  e[2] = { ...e[2]!, word: '#', redacted: 'cvv' };
  e[3] = { ...e[3]!, word: '#', redacted: 'cvv' };
  assert.is(utteranceText(e, { numtrans: true }), 'Code seven # #.');
  const tagged = events([['hi', 'Hi'], ['john', 'John,'], ['welcome', 'welcome.']]);
  tagged[1]!.pii = 'name';
  assert.is(utteranceText(tagged, { numtrans: true }), 'Hi john, welcome.');
});

t('PocketSphinx words get sentence case and a full stop; an empty utterance has no text', () => {
  assert.is(utteranceText(events([['go'], ['forward'], ['ten'], ['meters']]), { numtrans: true }), 'Go forward ten meters.');
  // Moonshine's own end: a comma says the sentence goes on (kept); no mark at all gets a full stop.
  assert.is(utteranceText(events([['with', 'With'], ['extension', 'extension'], ['1234', '1234,']]), { numtrans: true }), 'With extension 1234,');
  assert.is(utteranceText(events([['please', 'Please'], ['hold', 'hold']]), { numtrans: true }), 'Please hold.');
  assert.is(utteranceText([], { numtrans: true }), '');
  // A stored transcript redacted later (voxdex redact) has no written forms: its text is written again from the events.
  const stored = { ...utt(events([['card'], ['4539148803436467']])), text: 'Card 4539148803436467.' };
  assert.is(redactUtterances([stored]).utterances[0]!.text, 'Card ################.');
});

t('the first letter is a capital (a speaker turn split off mid-sentence), but not of "iPhone"', () => {
  assert.is(utteranceText(events([['and', 'and'], ['then', 'then'], ['no', 'no.']]), { numtrans: true }), 'And then no.');
  assert.is(utteranceText(events([['iphone', 'iPhone'], ['works', 'works.']]), { numtrans: true }), 'iPhone works.');
});

t('an utterance that goes on with a sentence its speaker left open with a comma starts in lower case, a name or "I" kept', () => {
  const at = (start: number, pairs: Array<[string, string?]>, speaker?: string): Utterance => {
    const u = utt(events(pairs).map((e) => ({ ...e, start: e.start + start, end: e.end + start })));
    return speaker ? { ...u, metadata: { ...u.metadata, speaker } } : u;
  };
  const texts = (us: Utterance[]) => readableUtterances(us, { numtrans: true }).map((u) => u.text);
  const open = at(0, [['he', 'He'], ['was', 'was'], ['not', 'not'], ['ill', 'ill-disposed,']]);
  assert.equal(texts([open, at(1.5, [['unless', 'Unless'], ['cold', 'cold.']])]), ['He was not ill-disposed,', 'unless cold.']);
  assert.equal(texts([open, at(1.5, [['john', 'John'], ['came', 'came.']])]), ['He was not ill-disposed,', 'John came.']);
  assert.equal(texts([open, at(1.5, [['i', 'I'], ['came', 'came.']])]), ['He was not ill-disposed,', 'I came.']);
  // A full stop, a long pause, or another speaker: a new sentence.
  assert.equal(texts([at(0, [['no', 'No.']]), at(1.5, [['and', 'And'], ['then', 'then.']])])[1], 'And then.');
  assert.equal(texts([open, at(5, [['unless', 'Unless'], ['cold', 'cold.']])])[1], 'Unless cold.');
  assert.equal(texts([at(0, [['well', 'Well,']], 'S1'), at(1, [['and', 'And'], ['so', 'so.']], 'S2')])[1], 'And so.');
});

t('the readable stage sets text and removes every written form', () => {
  const u = readableUtterance(utt(events([['hello', 'Hello.'], ['yes', 'Yes!']])), { numtrans: true });
  assert.is(u.text, 'Hello. Yes!');
  assert.not.ok(JSON.stringify(u).includes('written'));
});

t('the aligner\'s words carry the written form on the first spoken word of each written word', () => {
  const w = (display: string, text = display.toLowerCase().replace(/[.,?]$/, '')): WrittenWord => ({ text, readings: readingsOf(text), confidence: 0.9, display });
  const p = (word: string, start: number, end: number): NativeWord => ({ word, start, end, confidence: 1 });
  const placed = placeWords([w('Pay'), w('$25.')], [p('pay', 0, 200), p('twenty', 250, 400), p('five', 400, 550), p('dollars', 560, 900)], [0, 1000]);
  assert.equal(placed.words.map((x) => [x.word, x.written]), [['pay', 'Pay'], ['twenty', '$25.'], ['five', ''], ['dollars', '']]);
  // Interpolated words (the search did not reach them) carry it too.
  const rest = placeWords([w('Go'), w('now.')], [p('go', 0, 200)], [0, 1000]);
  assert.equal(rest.words.map((x) => [x.word, x.written]), [['go', 'Go'], ['now', 'now.']]);
  assert.is(spelledDisplay('zentrix,', 'Zentrix'), 'Zentrix,');
  assert.is(spelledDisplay('"omnivox?"', 'OmniVox'), '"OmniVox?"');
});

t('written words keep the model\'s text for display; a stray symbol stays beside its word', () => {
  const pieces = ['▁Hello,', '▁rock&roll', '▁—', '▁$25.'];
  const tokenizer = {
    piece: (id: number) => Buffer.from(pieces[id]!),
    decode: (ids: number[]) => ids.map((id) => pieces[id]!).join('').replace(/▁/g, ' ').trim(),
  } as unknown as Tokenizer;
  const ws = writtenWords([0, 1, 2, 3].map((id) => ({ id, logprob: 0 })), tokenizer);
  assert.equal(ws.map((w) => [w.text, w.display]), [['hello,', 'Hello,'], ['rock', 'rock&roll —'], ['&', ''], ['roll', ''], ['$25', '$25.']]);
});

t('the text\'s words get the times of the events they stand for (numerals, merged numbers, redaction)', () => {
  const e = events([['i'], ['paid'], ['twenty'], ['five'], ['dollars'], ['on'], ['5550142'], ['####']]);
  const timed = timeTokens('I paid $25 on 555 0142 ####.', e);
  assert.equal(timed.map((x) => [x.text, x.events]), [
    ['I', [0, 0]], ['paid', [1, 1]], ['$25', [2, 4]], ['on', [5, 5]], ['555', [6, 6]], ['0142', [6, 6]], ['####.', [7, 7]],
  ]);
  assert.equal([timed[2]!.start, timed[2]!.end].map((x) => Math.round(x * 1000) / 1000), [0.8, 1.9]);
  assert.equal(timeTokens('', e), []);
});

t.run();
