/**
 * The redaction engine (src/redact/engine.ts): a live call's words are released as soon as no
 * recognizer of the registry can still claim them, from the reaches they declare; a word that only
 * sounds like a digit holds nothing; replayed live (bench/lib/live-hold-replay.ts), scripted calls are
 * sent exactly as the stored document reads them, recognizer by recognizer; and a release redacts the
 * open tail, not the call so far.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LiveRedaction, settledUtterances } from '../src/redact/engine.js';
import { RECOGNIZER_REGISTRY } from '../src/redact/registry.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS, type Utterance } from '../src/types.js';
import { HOLD_RULE, replayLive } from '../bench/lib/live-hold-replay.js';
import { longCall, textCall } from '../bench/lib/text-calls.js';
import { spoken } from './fixtures/spoken.js';

const test = suite('redaction engine');

const utt = (channel: number, start: number, text: string) => spoken(channel, start, text, { step: 0.35 });
const settled = (call: Utterance[], now: number, kinds = DEFAULT_REDACT_KINDS) => [...settledUtterances(call, now, kinds)].sort((a, b) => a - b);

test('words that only sound like digits hold nothing: "thank you for calling how may i help you" goes at once', () => {
  const greeting = utt(0, 0, 'thank you for calling how may i help you'); // ends 3.1
  assert.equal(settled([greeting], 3.2), [0]);
  assert.equal(settled([greeting], 3.2, REDACT_KINDS), [0]);
  // "May" ends it: a month right before an expiry's digits goes with them — until 3 s have passed.
  assert.equal(settled([utt(0, 0, 'it expires in may')], 1.5), []);
  assert.equal(settled([utt(0, 0, 'it expires in may')], 4.5), [0]);
  // "to" ends it: a digit said within 2 s makes it one ("… to" + "four one one one").
  assert.equal(settled([utt(1, 0, 'i would like to')], 1.5), []);
  assert.equal(settled([utt(1, 0, 'i would like to')], 3.5), [0]);
});

test('a number goes as soon as it can no longer grow, not 30 s after every digit', () => {
  // A lone digit among words ("press one for billing") can join no later group.
  assert.equal(settled([utt(0, 0, 'press one for billing')], 1.5), [0]);
  // A count the caller gives cannot join a later group once an ordinary word follows it.
  assert.equal(settled([utt(1, 0, 'i have three dogs and a cat')], 2.5), [0]);
});

test('words after a number that may still grow are held even when redacted: a group said next makes them its own', () => {
  const call = [utt(0, 0, 'can i have the card number please'), utt(1, 3, 'four five three nine one four eight eight'), utt(1, 6.5, 'john smith')];
  assert.equal(settled(call, 7.5, REDACT_KINDS), [0]);
  // The next group joins: "john smith" lies inside the card's span, redacted as the card, not as a name.
  const whole = [...call, utt(1, 9, 'zero three four three six four six seven')];
  assert.equal(settled(whole, 50, REDACT_KINDS), [0, 1, 2, 3]);
  assert.equal(replayLive(whole, REDACT_KINDS, HOLD_RULE).differences, 0);
});

test('replayed live, scripted calls are sent as the stored document reads them, each recognizer of the registry alone and all together', () => {
  const calls = Array.from({ length: 12 }, (_, n) => textCall(n));
  for (const kinds of [DEFAULT_REDACT_KINDS, REDACT_KINDS, ...RECOGNIZER_REGISTRY.map((r) => r.kinds)]) {
    for (const [n, call] of calls.entries()) {
      const r = replayLive(call, kinds, HOLD_RULE);
      assert.equal(r.leaks, [], `call ${n}, kinds ${kinds.join(',')}: leaks`);
      assert.is(r.differences, 0, `call ${n}, kinds ${kinds.join(',')}: words sent otherwise than stored`);
    }
  }
});

test('a release redacts the open tail and its context, not the call so far: as many utterances at the 1,000th as at the 100th', () => {
  const call = longCall(1000);
  const engine = new LiveRedaction(REDACT_KINDS);
  const sizes: number[] = [];
  const pending: number[] = [];
  call.forEach((u, i) => {
    pending.push(i);
    const sent = engine.settle(call.slice(0, i + 1), pending, u.end);
    for (const k of sent.keys()) pending.splice(pending.indexOf(k), 1);
    sizes.push(engine.contextSize);
  });
  const most = (from: number, to: number) => Math.max(...sizes.slice(from, to));
  assert.ok(most(900, 1000) <= most(100, 200) + 10, `context at 900–1000: ${most(900, 1000)} utterances, at 100–200: ${most(100, 200)}`);
  assert.ok(most(900, 1000) < 100, `context at 900–1000: ${most(900, 1000)} utterances`);
  assert.equal(pending.length < 10, true);
});

test.run();
