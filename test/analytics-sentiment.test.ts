import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applySentiment, labelFor, scoreWords, sentimentText, sentimentWords } from '../src/analytics/sentiment.js';

const test = suite('analytics-sentiment');
const words = (s: string) => s.split(' ');

test('the five labels by compound score', () => {
  assert.is(labelFor(0.8), 'Positive');
  assert.is(labelFor(0.3), 'Mostly Positive');
  assert.is(labelFor(0), 'Neutral');
  assert.is(labelFor(-0.3), 'Mostly Negative');
  assert.is(labelFor(-0.9), 'Negative');
});

test('ASR words: fillers, redacted events and numerals are dropped before VADER', () => {
  // Each event as the ASR and redaction mark it (src/text/event-kind.ts); an old document's events carry no kind.
  const events = [['<sil>', 'filler'], ['My', 'word'], ['card', 'word'], ['is', 'word'], ['####', 'redacted'], ['4', 'word'], ['5', 'word'], ['[noise]', undefined], ['[NAME]', 'redacted'], ['thanks', 'word']] as const;
  const spoken = sentimentWords(events.map(([word, kind], i) => ({ word, start: i, end: i + 0.5, ...(kind ? { kind } : {}) })));
  assert.is(sentimentText(spoken), 'my card is thanks');
  assert.is(scoreWords(words('my account number is 4 5 6')).label, 'Neutral');
});

test('customer-service phrases VADER misreads', () => {
  // "like" as a request, "please": neutral
  assert.is(scoreWords(words('i would like to check my balance please')).label, 'Neutral');
  // courtesy "no problem" is not a problem
  assert.ok(scoreWords(words('no problem at all')).score > 0.2);
  // "never had such bad service" is not praise
  assert.ok(scoreWords(words('i have never had such bad customer service')).score < -0.2);
  // complaints without lexicon words
  assert.ok(scoreWords(words('this is the third time i have called')).score < -0.2);
  assert.ok(scoreWords(words('you charged me twice')).score < -0.2);
  // liking is still liking
  assert.ok(scoreWords(words('i really like the new features')).score > 0.2);
});

test('no words: Neutral 0', () => {
  assert.equal(scoreWords([]), { label: 'Neutral', score: 0 });
  assert.equal(scoreWords(['<sil>']), { label: 'Neutral', score: 0 });
});

test('applySentiment labels every utterance and summarises each party, weighted by words', () => {
  const utt = (channel: number, text: string, speaker?: string) => ({
    start: 0,
    end: 1,
    metadata: { channel, ...(speaker ? { speaker } : {}) } as { channel: number; speaker?: string; sentiment?: string; sentimentscore?: number },
    events: words(text).map((w, i) => ({ word: w, start: i * 0.3, end: i * 0.3 + 0.25 })),
  });
  const us = [utt(0, 'thank you so much that was great'), utt(0, 'okay'), utt(1, 'this is terrible and useless')];
  const summary = applySentiment(us as never);
  assert.is(us[0]!.metadata.sentiment, 'Positive');
  assert.is(us[2]!.metadata.sentiment, 'Negative');
  assert.equal(Object.keys(summary), ['0', '1']);
  assert.is(summary['1']!.label, 'Negative');
  const s0 = us[0]!.metadata.sentimentscore!;
  const s1 = us[1]!.metadata.sentimentscore!;
  assert.is(summary['0']!.score, Math.round(((s0 * 7 + s1 * 1) / 8) * 1000) / 1000);
  const diarized = [utt(0, 'great', 'S2'), utt(0, 'awful', 'S1')];
  assert.equal(Object.keys(applySentiment(diarized as never)), ['S1', 'S2']);
});

test.run();
