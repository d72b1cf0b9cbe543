/**
 * The pieces of a live call that need no server: the redaction hold-back rule, the audio input
 * (declared shape, a WAV header, frames split across messages), the endpointer against the batch
 * segmenter on real speech, the ASR queue's live priority, and stable partials.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Piscina, queueOptionsSymbol } from 'piscina';
import { encodeG711 } from '../src/audio/g711.js';
import { toInt16 } from '../src/audio/resample.js';
import { segmentSamples } from '../src/audio/segment.js';
import { AudioInput, declaredFormat } from '../src/live/audio-input.js';
import { recordingHeader } from '../src/live/call-recording.js';
import { energyEndpointer } from '../src/asr/endpointer.js';
import { LocalAgreement, partialText } from '../src/live/partials.js';
import { settledUtterances as decidedUtterances } from '../src/redact/engine.js';
import { PriorityTaskQueue } from '../src/asr/priority-queue.js';
import { decodeWav } from '../src/stages/decode.js';
import type { Utterance } from '../src/types.js';
import { makeTempDir, removeDir } from './fixtures/make-audio.js';
import { makePaymentCall } from './fixtures/redaction-call.js';

const t = suite('live units');

/** An utterance of channel `channel` with one word per second from `start`. */
function utt(channel: number, start: number, words: string[]): Utterance {
  return { start, end: start + words.length, confidence: 0.9, metadata: { channel, uttid: 0 }, events: words.map((word, i) => ({ word, start: start + i, end: start + i + 0.8, confidence: 0.9 })) };
}

t('hold-back: an utterance with digits waits until 30 s passed without more digits from that channel; others go at once (word kinds: while a later word could redact them)', () => {
  const call = [utt(0, 0, ['can', 'i', 'have', 'the', 'card', 'number']), utt(1, 7, ['4539', '1488']), utt(1, 12, ['uh', 'hold', 'on']), utt(0, 14, ['take', 'your', 'time', 'please'])];
  // At 16 s: the agent's utterances go (the question's window is on the caller's channel); the
  // caller's digits and what follows them within 30 s wait.
  assert.equal([...decidedUtterances(call, 16)].sort(), [0, 3]);
  // More digits at 25 s (within 30 s of the last group: one number) extend the period to 56.8 s.
  const more = [...call, utt(1, 25, ['0343', '6467'])];
  assert.equal([...decidedUtterances(more, 40)].sort(), [0, 3]);
  assert.equal([...decidedUtterances(more, 57)].sort(), [0, 1, 2, 3, 4]);
  // Digits more than 30 s after the last group (and past the answer window) start a new number: the first one is decided.
  const later = [...call, utt(1, 40, ['0343', '6467'])];
  assert.equal([...decidedUtterances(later, 45)].sort(), [0, 1, 2, 3]);
  // A homophone ending an utterance may become a digit, only with a digit said within 2 s: held until then; inside words it is not.
  assert.equal([...decidedUtterances([utt(0, 0, ['it', 'is', 'for'])], 4)], []);
  assert.equal([...decidedUtterances([utt(0, 0, ['it', 'is', 'for'])], 5)], [0]);
  assert.equal([...decidedUtterances([utt(0, 0, ['for', 'the', 'holder'])], 5)], [0]);
  // With name, email… redaction an utterance waits while a word still to come could redact it
  // ("… zubair" + "at gmail dot com"): until its channel has paused 2 s (the email recognizer's reach, src/redact/pii/email.ts).
  assert.equal([...decidedUtterances([utt(0, 0, ['it', 'goes', 'to', 'zubair'])], 4.5, ['card', 'email'])], []);
  assert.equal([...decidedUtterances([utt(0, 0, ['it', 'goes', 'to', 'zubair'])], 6, ['card', 'email'])], [0]);
  // A month word may start an expiry date.
  assert.equal([...decidedUtterances([utt(0, 0, ['it', 'expires', 'in', 'march'])], 5)], []);
});

t('audio input: declared mu-law stereo, a frame split across messages', () => {
  const input = new AudioInput(declaredFormat('mulaw', 8000, 2));
  const pcm = Int16Array.from([1000, -1000, 2000, -2000, 3000, -3000]);
  const bytes = encodeG711(pcm, 'mulaw');
  const a = input.push(bytes.subarray(0, 3));
  assert.is(a.channels[0]!.length, 1);
  const b = input.push(bytes.subarray(3));
  assert.is(b.channels[0]!.length, 2);
  assert.equal([...a.bytes, ...b.bytes], [...bytes]);
  assert.ok(Math.abs(b.channels[1]![1]! * 32768 + 3000) < 120);
});

t('audio input: a WAV header in the first message declares the shape (data length 0xFFFFFFFF)', () => {
  const input = new AudioInput(declaredFormat('pcm16', 8000, 1));
  const header = recordingHeader(declaredFormat('mulaw', 16000, 2), 0xffffffff);
  const first = Buffer.concat([header, Buffer.from([0xff, 0x7f, 0x80])]);
  const c = input.push(first);
  assert.equal(input.format, { encoding: 'mulaw', sampleRate: 16000, channels: 2, bitsPerSample: 8 });
  assert.is(c.channels.length, 2);
  assert.is(c.channels[0]!.length, 1);
  assert.throws(() => new AudioInput(declaredFormat('pcm16', 8000, 1)).push(recordingHeader(declaredFormat('pcm16', 96000, 1), 0)), /96000/);
});

t('audio input: a stream that starts with a RIFF header of another form (AVI) is refused, not taken as raw audio', () => {
  const avi = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0x10, 0, 0]), Buffer.from('AVI LIST'), Buffer.alloc(64, 7)]);
  let err: unknown;
  try {
    new AudioInput(declaredFormat('pcm16', 8000, 1)).push(avi);
  } catch (e) {
    err = e;
  }
  assert.is((err as { code?: string } | undefined)?.code, 'UNSUPPORTED_AUDIO');
  assert.match((err as Error).message, /^The stream starts with a RIFF header of a "AVI " file, not a WAV/);
  // Raw audio that merely looks odd is still raw audio; only the first message is looked at.
  const input = new AudioInput(declaredFormat('pcm16', 8000, 1));
  assert.is(input.push(Buffer.alloc(64, 7)).channels[0]!.length, 32);
  assert.is(input.push(avi).channels[0]!.length, avi.length / 2);
});

t('energy endpointer: real speech fed in 100 ms pieces is cut where the energy segmenter cuts it', async () => {
  // The caller's channel of the payment call: real digit recordings in four groups, pauses between.
  const dir = makeTempDir('voxdex-live-units-');
  const a = await decodeWav(makePaymentCall(dir).file);
  removeDir(dir);
  const ch = a.channels[1]!;
  const rate = a.format.sampleRate;
  const batch = segmentSamples(toInt16(ch), rate, { maxUtteranceSec: 25 });
  const ep = energyEndpointer({ sampleRate: rate, maxUtteranceSec: 25 });
  const live = [];
  for (let i = 0; i < ch.length; i += rate / 10) live.push(...(await ep.push(ch.subarray(i, i + rate / 10))).segments);
  live.push(...(await ep.flush()));
  assert.ok(batch.length >= 2, `${batch.length} segments`);
  assert.is(live.length, batch.length);
  live.forEach((s, i) => assert.ok(Math.abs(s.speechStart - batch[i]!.speechStart) < rate * 0.3 && Math.abs(s.speechEnd - batch[i]!.speechEnd) < rate * 0.3, JSON.stringify([s, batch[i]])));
});

t('the ASR queue gives a live task the next thread, before batch tasks queued earlier', () => {
  const q = new PriorityTaskQueue();
  const task = (name: string, live: boolean) => ({ name, ...(live ? { [queueOptionsSymbol]: { live: true } } : {}) }) as never;
  q.push(task('b1', false));
  q.push(task('b2', false));
  q.push(task('l1', true));
  q.push(task('b3', false));
  q.push(task('l2', true));
  assert.is(q.size, 5);
  assert.equal([q.shift(), q.shift(), q.shift(), q.shift(), q.shift(), q.shift()].map((x) => (x as { name?: string } | null)?.name ?? null), ['l1', 'l2', 'b1', 'b2', 'b3', null]);
  assert.ok(Piscina.queueOptionsSymbol === queueOptionsSymbol);
});

t('partials: only words two decodes agree on, never taken back; masked under scrubtext', () => {
  const p = new LocalAgreement();
  assert.is(p.add(['please', 'enter']), undefined);
  assert.equal(p.add(['please', 'enter', 'your']), ['please', 'enter']);
  assert.is(p.add(['please', 'entered', 'your']), undefined);
  assert.equal(p.add(['please', 'entered', 'your', 'card']), ['please', 'entered', 'your']);
  assert.is(partialText(['my', 'card', 'is', '4539', 'four', 'to'], { scrubtext: true }), 'my card is #### ### ###');
  assert.is(partialText(['my', 'card', 'is', '4539'], { scrubtext: false }), 'my card is 4539');
});

t.run();

