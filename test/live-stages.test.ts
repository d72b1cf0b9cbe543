/**
 * The stage table's two drivers on the same words, without audio: the live driver (LiveStages, each
 * utterance as it ends, the rest as it is released) gives each utterance exactly what the batch fold
 * gives it — numbers, roles from the agent channel, pii marks under scrubtext=tag, redaction under
 * scrubtext, text continuing the same voice's open sentence, sentiment.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import { foldUtterances } from '../src/pipeline/fold-stages.js';
import { LiveStages } from '../src/pipeline/live-stages.js';
import { stageTable } from '../src/pipeline/stage-table.js';
import type { RequestOptions, Utterance } from '../src/types.js';
import { spoken } from './fixtures/spoken.js';

const test = suite('live stages');

const utt = (channel: number, start: number, text: string) => spoken(channel, start, text);

const CALL = [
  utt(0, 0, 'thank you for calling can i have your card number please'),
  utt(1, 6, 'sure it is four five three nine'),
  utt(1, 9.5, 'one four eight eight and'),
  utt(1, 13, 'zero three four three six four six seven'),
  utt(0, 19, 'thank you mister nowak that is great'),
];

const PERSONAL: RequestOptions['redact'] = ['card', 'cvv', 'expiry', 'ssn', 'name', 'email', 'address'];

/** The batch driver's per-utterance parts over the whole call. */
function batch(options: RequestOptions): Utterance[] {
  let us = CALL;
  for (const line of stageTable().filter((s) => s.utterance)) us = foldUtterances(line, { options, nchannels: 2, utterances: us });
  return us;
}

/** The live driver: every utterance as it ends, then released in time order (the hold's order per voice). */
function live(options: RequestOptions): Utterance[] {
  const stages = new LiveStages(stageTable(), options, 2);
  const ids = CALL.map((u) => stages.ended(u));
  return ids.map((i) => stages.released(i));
}

for (const [name, patch] of [
  ['plain, sentiment', { sentiment: true }],
  ['scrubtext=tag, personal kinds', { tag: true, redact: PERSONAL }],
  ['scrubtext=true', { scrubtext: true }],
  ['scrubtext=true, personal kinds', { scrubtext: true, redact: PERSONAL }],
] as const) {
  test(`${name}, agent channel 0: live = batch, utterance by utterance`, () => {
    const options: RequestOptions = { ...defaultRequestOptions(), agentChannel: 0, ...patch };
    const b = batch(options);
    assert.equal(live(options), b);
    assert.equal(b.map((u) => u.metadata.role), ['agent', 'customer', 'customer', 'customer', 'agent']);
    const marks = b.flatMap((u) => u.events.map((e) => e.pii ?? e.redacted)).filter(Boolean);
    if ('tag' in patch) assert.ok(marks.includes('card') && b.every((u) => u.events.every((e) => !e.redacted)), JSON.stringify(marks));
    if ('scrubtext' in patch) assert.ok(marks.includes('card') && !b.some((u) => /\d{3}/.test(u.text ?? '')), JSON.stringify(b.map((u) => u.text)));
  });
}

test('the redaction line is the one live holds; readable text follows the same voice\'s open sentence', () => {
  assert.equal(stageTable().filter((s) => s.held).map((s) => s.name), ['redaction']);
  const b = batch(defaultRequestOptions());
  assert.equal(b.map((u) => u.text), live(defaultRequestOptions()).map((u) => u.text));
});

test.run();
