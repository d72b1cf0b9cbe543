/**
 * The live hold-back for the personal-data kinds (src/redact/engine.ts, from the reaches of pii/): an utterance whose
 * redaction a word still to come could change (an email's local part before its "at … dot com",
 * letters spelled on in the next utterance) is held until it cannot; replayed live
 * (bench/lib/live-hold-replay.ts), nothing is sent unredacted that the whole call's redaction removes.
 * Partials show neither a word redacted so far nor one a later word could redact.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { partialText } from '../src/live/partials.js';
import { LiveRedaction, settledUtterances as decidedUtterances } from '../src/redact/engine.js';
import { redactUtterances } from '../src/redact/redact.js';
import { REDACT_KINDS, type RedactKind, type Utterance, type WordEvent } from '../src/types.js';
import { BLANKET_RULE, HOLD_RULE, replayLive } from '../bench/lib/live-hold-replay.js';
import { spokenWords } from './fixtures/spoken.js';

const test = suite('live word-kinds hold-back');

/** Words of `text` from `start`, 0.5 s apart. */
const words = (start: number, text: string): WordEvent[] => spokenWords(start, text);
function utt(channel: number, start: number, text: string): Utterance {
  const events = words(start, text);
  return { start, end: events.at(-1)!.end, confidence: 0.9, metadata: { channel, uttid: 0 }, events };
}
const all = [...REDACT_KINDS];

// The caller gives an email in three pieces with no question before it; the agent's "okay" comes in
// the pause before "dot com".
const LOCAL = utt(1, 0, 'it goes to zubair dot okafor'); // ends 2.9
const MID = utt(1, 3.9, 'at g m a i l'); // ends 6.8
const OKAY = utt(0, 7.6, 'okay'); // ends 8.0
const DOMAIN = utt(1, 8.2, 'dot com'); // ends 9.1

test('an email in pieces: its local part is held until "dot com" can no longer follow, and never sent unredacted', () => {
  assert.equal([...decidedUtterances([LOCAL, MID, OKAY], 8.0, all)].sort(), [2], 'an email\'s end may still follow "at g m a i l"');
  const replay = replayLive([LOCAL, MID, OKAY, DOMAIN], all, HOLD_RULE);
  assert.equal(replay.leaks, []);
  assert.equal(replay.waits.map((w) => +w.toFixed(1)), [6.2, 2.3, 0, 0], 'the local part waited for the domain');
  // The rule before (every utterance 5 s past its end): at the agent's "okay" the local part went as it then read.
  const before = replayLive([LOCAL, MID, OKAY, DOMAIN], all, BLANKET_RULE);
  const call = [LOCAL, MID, OKAY, DOMAIN];
  assert.equal(before.leaks.map((l) => `${call[l.utterance]!.events[l.event]!.word}<${l.kind}>`), ['goes<email>', 'to<email>', 'zubair<email>', 'dot<email>', 'okafor<email>']);
});

test('an email split by the agent\'s "okay" with a 2.6 s pause before "at": the local part is redacted and never sent before it is (issue 33)', () => {
  const call = [utt(1, 0, 'it is chidi dot okonkwo'), utt(0, 3.0, 'okay'), utt(1, 5.0, 'at yahoo dot com')];
  const whole = redactUtterances(call, all).utterances;
  assert.equal(whole[0]!.events.map((e) => e.word), ['it', 'is', '[EMAIL]', '[EMAIL]', '[EMAIL]']);
  assert.ok([...decidedUtterances(call.slice(0, 2), 4.9, all)].every((i) => i !== 0), 'the local part waits for an "at" that may still come');
  assert.equal(replayLive(call, all, HOLD_RULE).leaks, []);
});

test('slow spelling and a phone number with "near a" for "zero", replayed live: nothing is sent otherwise than stored (issue 33)', () => {
  // Letters 2 s apart after "spell your surname", each an utterance of its own.
  const spelled = [utt(0, 0, 'and can you spell your surname for me'), ...['o', 'k', 'oh', 'n', 'k', 'w', 'oh'].map((l, i) => utt(1, 5 + i * 2.4, l))];
  assert.ok(redactUtterances(spelled, ['name']).utterances.slice(1).every((u) => u.events[0]!.word === '[NAME]'));
  assert.equal(replayLive(spelled, ['name'], HOLD_RULE).leaks, []);
  assert.equal(replayLive(spelled, all, HOLD_RULE).leaks, []);
  const phone = [utt(1, 0, 'five five five eight six seven five three near a'), utt(1, 5.6, 'nine'), utt(0, 8, 'thank you')];
  assert.equal(redactUtterances(phone, ['phone']).utterances[1]!.events[0]!.word, '#');
  assert.equal(replayLive(phone, ['name', 'address', 'email', 'phone', 'dob'], HOLD_RULE).leaks, []);
});

test('letters spelled on in the next utterance: the first letters are held with them', () => {
  const call = [utt(1, 0, 'okay s m'), utt(1, 1.9, 'i t h'), utt(0, 4, 'thank you')];
  assert.equal([...decidedUtterances(call.slice(0, 1), 1.4, all)], [], 'two letters, and more may follow');
  assert.equal(replayLive(call, all, HOLD_RULE).leaks, []);
  assert.equal(replayLive(call, ['name'], HOLD_RULE).leaks, []);
});

test('an utterance goes once its channel has paused long enough and no window is open; without word kinds nothing waits for them', () => {
  const call = [utt(1, 0, 'the weather is nice today'), utt(0, 3, 'yes'), utt(0, 6, 'it is')];
  // 0.5 s after it an email's end could still walk back over it ("… today at gmail dot com"); 3 s after, not.
  assert.equal([...decidedUtterances(call.slice(0, 2), 3.4, all)].sort(), [1]);
  assert.equal([...decidedUtterances(call, 7.4, all)].sort(), [0, 1, 2]);
  assert.equal([...decidedUtterances(call.slice(0, 2), 3.4, ['card', 'cvv'])].sort(), [0, 1]);
  assert.equal([...decidedUtterances(call, 3.4, ['card', 'digits'])].sort(), [0, 1, 2]);
});

test('a name answering a name question goes at once, redacted: later words only add to a name', () => {
  const call = [utt(0, 0, 'can i have your name please'), utt(1, 3.5, 'it is maria lopez')];
  assert.equal([...decidedUtterances(call, 5.4, all)].sort(), [0, 1]);
  assert.equal(replayLive([...call, utt(1, 6, 'and i am calling about my bill')], all, HOLD_RULE).leaks, []);
});

test('partials under word kinds: a word redacted so far shows its kind, a word a later one could redact shows ###', () => {
  const call = [utt(0, 0, 'can i get an email address please')];
  const maskedPartialWords = (c: Utterance[], partial: WordEvent[], channel: number, kinds: RedactKind[]) => new LiveRedaction(kinds).maskPartial(c, partial, channel);
  const shown = (partial: WordEvent[]) => partialText(partial.map((w) => w.word), { scrubtext: true }, maskedPartialWords(call, partial, 1, all));
  assert.is(shown(words(4, 'yes it is john dot')), 'yes it is [EMAIL] [EMAIL]');
  assert.is(shown(words(30, 'my name is')), 'my name is');
  // An email's end may follow: "spoke about s m at gmail dot com" would be one (the walk back crosses a short function word).
  assert.is(shown(words(30, 'we spoke about s m')), 'we ### ### ### ###');
  assert.is(shown(words(30, 'thank you')), 'thank you');
  // The digit kinds alone: a partial masks numbers only.
  assert.equal(maskedPartialWords(call, words(4, 'john dot smith'), 1, ['card']).size, 0);
});

test.run();
