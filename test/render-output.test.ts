import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { renderTranscript } from '../src/render/output.js';
import type { TranscriptDocument, Utterance } from '../src/types.js';

const render = suite('render output');

const utt = (channel: number, uttid: number, start: number, words: string[]): Utterance => ({
  start,
  end: start + words.length * 0.5,
  confidence: 0.8,
  metadata: { channel, uttid, source: 'call.wav', model: 'en-us' },
  events: words.map((word, i) => ({ word, start: start + i * 0.5, end: start + i * 0.5 + 0.4, confidence: 0.9 })),
});

const doc = (nchannels: number, utterances: Utterance[]): TranscriptDocument => ({
  asr: 'voxdex 0.1.0',
  model: 'en-us',
  confidence: 0.8,
  audiosecs: 10,
  nchannels,
  requestid: 'r1',
  source: 'call.wav',
  chaninfo: Array.from({ length: nchannels }, (_, channel) => ({ channel, audiosecs: 10, speechsecs: 4 })),
  utterances,
  warning: undefined,
});

render('text: one line per utterance in time order, [channel] prefix only with several channels', () => {
  const stereo = doc(2, [utt(1, 0, 2.0, ['hi', 'there']), utt(0, 0, 0.5, ['hello']), utt(0, 1, 3.0, ['how', 'are', 'you'])]);
  assert.is(renderTranscript(stereo, 'text'), '[0] hello\n[1] hi there\n[0] how are you\n');
  const mono = doc(1, [utt(0, 1, 3.0, ['bye']), utt(0, 0, 0.5, ['hello', 'world'])]);
  assert.is(renderTranscript(mono, 'text'), 'hello world\nbye\n');
  assert.is(renderTranscript(doc(1, []), 'text'), '');
});

render('json: the document with null and undefined fields omitted', () => {
  const d = doc(1, [utt(0, 0, 0.5, ['hello'])]);
  const out = JSON.parse(renderTranscript(d, 'json'));
  assert.not.ok('warning' in out);
  assert.equal(out.utterances[0].events, [{ word: 'hello', start: 0.5, end: 0.9, confidence: 0.9 }]);
  assert.is(out.requestid, 'r1');
});

render('jsontop: top-level fields plus one text field, no utterances', () => {
  const mono = JSON.parse(renderTranscript(doc(1, [utt(0, 1, 3.0, ['bye']), utt(0, 0, 0.5, ['hello', 'world'])]), 'jsontop'));
  assert.is(mono.text, 'hello world bye');
  assert.is(mono.utterances, undefined);
  assert.equal(Object.keys(mono), ['asr', 'model', 'confidence', 'audiosecs', 'nchannels', 'requestid', 'source', 'chaninfo', 'text']);
  const stereo = JSON.parse(renderTranscript(doc(2, [utt(1, 0, 2.0, ['hi']), utt(0, 0, 0.5, ['hello'])]), 'jsontop'));
  assert.is(stereo.text, '[0] hello\n[1] hi');
});

render.run();
