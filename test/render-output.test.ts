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

render('text: one line per utterance in time order, [mm:ss] and the channel with several channels', () => {
  const stereo = doc(2, [utt(1, 0, 2.0, ['hi', 'there']), utt(0, 0, 0.5, ['hello']), utt(0, 1, 63.0, ['how', 'are', 'you'])]);
  assert.is(renderTranscript(stereo, 'text'), '[00:00] C0: Hello.\n[00:02] C1: Hi there.\n[01:03] C0: How are you.\n');
  const mono = doc(1, [utt(0, 1, 3723.0, ['bye']), utt(0, 0, 0.5, ['hello', 'world'])]);
  assert.is(renderTranscript(mono, 'text'), '[00:00] Hello world.\n[1:02:03] Bye.\n');
  assert.is(renderTranscript(doc(1, []), 'text'), '');
});

render('text: the utterance\'s readable text, with its role, else its speaker', () => {
  const a = { ...utt(0, 0, 1, ['hello', 'acme']), text: 'Hello, ACME!' };
  const b = { ...utt(0, 1, 4, ['hi']), text: 'Hi.' };
  const c = { ...utt(0, 2, 6, ['yes']), text: 'Yes.' };
  a.metadata = { ...a.metadata, speaker: 'S1', role: 'agent' } as typeof a.metadata;
  b.metadata = { ...b.metadata, speaker: 'S2' };
  c.metadata = { ...c.metadata, speaker: 'S1' };
  const d = doc(1, [a, b, c]);
  assert.is(renderTranscript(d, 'text'), '[00:01] Agent: Hello, ACME!\n[00:04] S2: Hi.\n[00:06] S1: Yes.\n');
  assert.is(JSON.parse(renderTranscript(d, 'jsontop')).text, '[00:01] Agent: Hello, ACME!\n[00:04] S2: Hi.\n[00:06] S1: Yes.');
});

render('json: the document with null and undefined fields omitted', () => {
  const d = doc(1, [utt(0, 0, 0.5, ['hello'])]);
  const out = JSON.parse(renderTranscript(d, 'json'));
  assert.not.ok('warning' in out);
  assert.equal(out.utterances[0].events, [{ word: 'hello', start: 0.5, end: 0.9, confidence: 0.9 }]);
  assert.is(out.requestid, 'r1');
});

render('jsontop: top-level fields plus one text field, no utterances', () => {
  const mono = JSON.parse(renderTranscript(doc(1, [{ ...utt(0, 1, 3.0, ['bye']), text: 'Bye!' }, utt(0, 0, 0.5, ['hello', 'world'])]), 'jsontop'));
  assert.is(mono.text, 'Hello world. Bye!');
  assert.is(mono.utterances, undefined);
  assert.equal(Object.keys(mono), ['asr', 'model', 'confidence', 'audiosecs', 'nchannels', 'requestid', 'source', 'chaninfo', 'text']);
  const stereo = JSON.parse(renderTranscript(doc(2, [utt(1, 0, 2.0, ['hi']), utt(0, 0, 0.5, ['hello'])]), 'jsontop'));
  assert.is(stereo.text, '[00:00] C0: Hello.\n[00:02] C1: Hi.');
});

render('srt: numbered cues in time order with HH:MM:SS,mmm times; the channel in the cue with several channels', () => {
  const stereo = doc(2, [utt(1, 0, 2.0, ['hi', 'there']), utt(0, 0, 0.5, ['hello']), utt(0, 1, 3723.25, ['how', 'are', 'you'])]);
  assert.is(
    renderTranscript(stereo, 'srt'),
    '1\n00:00:00,500 --> 00:00:00,900\nC0: Hello.\n\n' +
      '2\n00:00:02,000 --> 00:00:02,900\nC1: Hi there.\n\n' +
      '3\n01:02:03,250 --> 01:02:04,650\nC0: How are you.\n\n',
  );
  assert.is(renderTranscript(doc(1, [utt(0, 0, 0.5, ['hello', 'world'])]), 'srt'), '1\n00:00:00,500 --> 00:00:01,400\nHello world.\n\n');
  assert.is(renderTranscript(doc(1, []), 'srt'), '');
});

render('vtt: WEBVTT header, HH:MM:SS.mmm times, cue text with & < > escaped', () => {
  const mono = doc(1, [{ ...utt(0, 1, 3.0, ['b', 'rock', 'and', 'roll']), text: '<b> Rock&roll' }, utt(0, 0, 0.5, ['hello', 'world'])]);
  assert.is(
    renderTranscript(mono, 'vtt'),
    'WEBVTT\n\n00:00:00.500 --> 00:00:01.400\nHello world.\n\n00:00:03.000 --> 00:00:04.900\n&lt;b&gt; Rock&amp;roll\n\n',
  );
  assert.is(renderTranscript(doc(1, []), 'vtt'), 'WEBVTT\n\n');
});

/** Every cue of an srt: at most 2 lines of 42 characters and 7 seconds. */
function assertCueLimits(srt: string): void {
  for (const block of srt.trim().split('\n\n')) {
    const [, time, ...lines] = block.split('\n');
    assert.ok(lines.length <= 2 && lines.every((l) => l.length <= 42), block);
    const [a, b] = time!.split(' --> ').map((t) => { const [h, m, rest] = t.split(':'); return Number(h) * 3600 + Number(m) * 60 + Number(rest!.replace(',', '.')); });
    assert.ok(b! - a! <= 7, block);
  }
}

render('subtitles: a long utterance is cut after a sentence or a comma, into cues of at most 2 lines of 42 characters and 7 seconds', () => {
  const words = 'thank you for calling acme support my name is alice and i will be helping you with your account today how can i help'.split(' ');
  const text = 'Thank you for calling ACME support. My name is Alice, and I will be helping you with your account today. How can I help?';
  const srt = renderTranscript(doc(1, [{ ...utt(0, 0, 10, words), text }]), 'srt');
  assert.is(
    srt,
    '1\n00:00:10,000 --> 00:00:12,900\nThank you for calling ACME support.\n\n' +
      '2\n00:00:13,000 --> 00:00:19,900\nMy name is Alice, and I will be\nhelping you with your account today.\n\n' +
      '3\n00:00:20,000 --> 00:00:21,900\nHow can I help?\n\n',
  );
  assertCueLimits(srt);
  // Without punctuation, the 7-second limit and the lines decide (utt() spaces words 0.5 s apart).
  const plain = renderTranscript(doc(1, [{ ...utt(0, 0, 10, words), text: words.join(' ') }]), 'srt');
  assertCueLimits(plain);
  assert.is(plain.split('\n\n').filter(Boolean).length, 2);
  const chars = renderTranscript(doc(1, [{ ...utt(0, 0, 0, ['a', 'b', 'c', 'd']), text: `${'a'.repeat(30)} ${'b'.repeat(30)} ${'c'.repeat(30)} d` }]), 'vtt');
  assert.is(chars, `WEBVTT\n\n00:00:00.000 --> 00:00:00.900\n${'a'.repeat(30)}\n${'b'.repeat(30)}\n\n00:00:01.000 --> 00:00:01.900\n${'c'.repeat(30)} d\n\n`);
});

render('subtitles: a pause of a second or more inside an utterance ends a cue; times come from the events the text stands for', () => {
  const u = utt(0, 0, 0, ['i', 'paid', 'twenty', 'five', 'dollars', 'yesterday']);
  u.events[5] = { ...u.events[5]!, start: 5, end: 5.6 };
  const srt = renderTranscript(doc(1, [{ ...u, text: 'I paid $25 yesterday.' }]), 'srt');
  assert.is(srt, '1\n00:00:00,000 --> 00:00:02,400\nI paid $25\n\n2\n00:00:05,000 --> 00:00:05,600\nyesterday.\n\n');
});

render('subtitles: a numeral read over more than 7 s is one token and its cue still ends within 7 s (issue 33.10)', () => {
  const digits = 'five four two five two three three four three zero one zero nine nine zero three'.split(' ');
  const u = utt(0, 0, 1, ['my', 'card', 'is', ...digits]); // 0.5 s a word: the numeral spans 2.5–10.4 s
  const srt = renderTranscript(doc(1, [{ ...u, text: 'My card is 5425233430109903.' }]), 'srt');
  assertCueLimits(srt);
  assert.is(srt, '1\n00:00:01,000 --> 00:00:02,400\nMy card is\n\n2\n00:00:02,500 --> 00:00:09,500\n5425233430109903.\n\n');
});

render('srt and vtt: cues in time order across channels when a long utterance is split (issue 21.11)', () => {
  const long = 'thank you for calling acme support my name is alice and i will be helping you today'.split(' ');
  // Channel 0 speaks from 0.1 s for 8 s (two cues: 0.1 and 7.1); channel 1 answers at 0.18 s and at 5 s.
  const stereo = doc(2, [utt(0, 0, 0.1, long), utt(1, 0, 0.18, ['hello']), utt(1, 1, 5, ['yes'])]);
  const starts = (text: string) => [...text.matchAll(/^(\d\d:\d\d:\d\d[,.]\d{3}) -->/gm)].map((m) => m[1]!.replace('.', ','));
  const srt = starts(renderTranscript(stereo, 'srt'));
  assert.equal(srt.slice(0, 3), ['00:00:00,100', '00:00:00,180', '00:00:05,000']);
  assert.equal(starts(renderTranscript(stereo, 'vtt')), srt);
  assert.match(renderTranscript(stereo, 'srt'), /^2\n00:00:00,180 --> 00:00:00,580\nC1: Hello\.\n/m);
});

render('json: request metadata named __proto__ is kept like any other field (issue 21.2)', () => {
  const d = { ...doc(1, [utt(0, 0, 0.5, ['hello'])]), streamtags: { metadata: JSON.parse('{"__proto__":{"agent":"x"},"b":1}') } };
  const out = JSON.parse(renderTranscript(d, 'json'));
  assert.equal(Object.keys(out.streamtags.metadata), ['__proto__', 'b']);
  assert.equal(Object.entries(out.streamtags.metadata), [['__proto__', { agent: 'x' }], ['b', 1]]);
});

render.run();
