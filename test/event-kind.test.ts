/**
 * A word knows what it is (issue 32 item 5; src/text/event-kind.ts): the ASR marks its tokens, redaction
 * marks what it replaces, and the consumers read the kind. A redacted name (`[NAME]`) is speech: it
 * stays in the search zip's text files and counts in talk time; a filler does not. Documents stored
 * before events carried a kind load as before (the kind derived in one place).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callMetrics } from '../src/analytics/metrics.js';
import { sentimentWords } from '../src/analytics/sentiment.js';
import { redactUtterances } from '../src/redact/redact.js';
import { channelWords } from '../src/search/match.js';
import { documentText } from '../src/search/render.js';
import { eventKind, tokenKind } from '../src/text/event-kind.js';
import type { TranscriptDocument, Utterance, WordEvent } from '../src/types.js';

const test = suite('event kinds');

/** One utterance per [channel, start, words]: each word 0.4 s, as the ASR marks them. */
function utterances(parts: Array<[number, number, string]>): Utterance[] {
  return parts.map(([channel, start, text], uttid) => {
    const events: WordEvent[] = text.split(' ').map((word, i) => ({ word, start: start + i * 0.5, end: start + i * 0.5 + 0.4, confidence: 0.9, kind: tokenKind(word) }));
    return { start, end: events.at(-1)!.end, confidence: 0.9, metadata: { channel, uttid }, events };
  });
}

const doc = (us: Utterance[]): TranscriptDocument => ({ asr: 'voxdex', model: 'm', audiosecs: 20, nchannels: 2, requestid: 'r', source: 's.wav', chaninfo: [], utterances: us });

/** The caller answers with her name alone, in an utterance of its own; redacted with the name kind. */
function redactedCall(): Utterance[] {
  const us = utterances([
    [0, 0, 'can I have your full name please'],
    [1, 4, 'jane nowak'],
    [0, 7, 'thank you'],
  ]);
  return redactUtterances(us, ['name']).utterances;
}

test('the ASR marks its tokens and redaction marks what it replaces', () => {
  assert.equal(['hello', '<sil>', '[noise]', '++breath++', '4539'].map(tokenKind), ['word', 'filler', 'filler', 'filler', 'word']);
  const answer = redactedCall()[1]!.events;
  assert.equal(answer.map((e) => [e.word, e.kind, e.redacted]), [['[NAME]', 'redacted', 'name'], ['[NAME]', 'redacted', 'name']]);
});

test('the search zip text file keeps a redacted name; fillers are left out', () => {
  const us = redactedCall();
  us[2]!.events.unshift({ word: '<sil>', start: 6.5, end: 6.9, confidence: 1, kind: 'filler' });
  assert.is(documentText(doc(us)), '[0] can I have your full name please\n[1] [NAME] [NAME]\n[0] thank you\n');
});

test('a redacted name counts in talk time and words per minute', () => {
  const m = callMetrics(redactedCall());
  // Channel 1 said two words (4.0–4.4 and 4.5–4.9, one stretch): 0.9 s.
  assert.is(m.talksecs['1'], 0.9);
  assert.ok(m.wordsperminute['1']! > 0, JSON.stringify(m));
});

test('search indexes a redacted word as its kind and skips fillers', () => {
  const us = redactedCall();
  us[1]!.events.push({ word: '[noise]', start: 5.5, end: 5.6, confidence: 1, kind: 'filler' });
  assert.equal(channelWords(doc(us)).find((c) => c.channel === 1)!.words, ['[NAME]', '[NAME]']);
});

test('sentiment reads spoken words only: no filler, no redacted word', () => {
  const us = redactedCall();
  assert.equal(sentimentWords([...us[1]!.events, { word: '<sil>', start: 9, end: 9.2, confidence: 1, kind: 'filler' }, { word: 'great', start: 9.3, end: 9.6, confidence: 1, kind: 'word' }]), ['great']);
});

test('documents stored before events carried a kind: derived once (redacted, filler, word)', () => {
  const old = (e: Partial<WordEvent>) => eventKind({ word: 'x', ...e } as WordEvent);
  assert.is(old({ word: '[NAME]', redacted: 'name' }), 'redacted');
  assert.is(old({ word: '####', redacted: 'card' }), 'redacted');
  assert.is(old({ word: '<sil>' }), 'filler');
  assert.is(old({ word: '[noise]' }), 'filler');
  assert.is(old({ word: 'hello' }), 'word');
  // An old document's redacted name still shows in its text file.
  const legacy = redactedCall().map((u) => ({ ...u, events: u.events.map(({ kind: _k, ...e }) => e) }));
  assert.is(documentText(doc(legacy)), '[0] can I have your full name please\n[1] [NAME] [NAME]\n[0] thank you\n');
  assert.is(callMetrics(legacy).talksecs['1'], 0.9);
});

test.run();
