/**
 * What the client sends beside the audio (issue 24): file and member names, metadata values, sidecar
 * fields and error messages quoting them, redacted by src/redact/client-text.ts under the policy.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientTextOf, clientTextUnderPolicy, uniqueNames } from '../src/redact/client-policy.js';
import { redactJson, redactText } from '../src/redact/client-text.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS } from '../src/types.js';

const test = suite('redaction of client text');
const K = DEFAULT_REDACT_KINDS;

test('names: a card, a phone or an account number in a file name is masked digit for digit; the rest stays', () => {
  assert.is(redactText('cc-4111111111111111.wav', K), 'cc-################.wav');
  assert.is(redactText('call_20240501_143000_5551234567.wav', K), 'call_########_######_##########.wav');
  assert.is(redactText('acct 4539 1488 0343 6467.zip', K), 'acct #### #### #### ####.zip');
  assert.is(redactText('IMG_0042.wav', K), 'IMG_0042.wav');
  assert.is(redactText('agent-7 call 12.wav', K), 'agent-7 call 12.wav');
});

test('free text: numerals with words between them are separate numbers; dates, times and amounts stay', () => {
  assert.is(redactText('room 12, floor 3456', K), 'room 12, floor 3456');
  assert.is(redactText('called at 2026-11-22T14:05:00Z about $1,250,000.00', K), 'called at 2026-11-22T14:05:00Z about $1,250,000.00');
  assert.is(redactText('three items, one of them late', K), 'three items, one of them late');
});

test('context in the text: a card with its expiry and code, an SSN, spoken digits', () => {
  assert.is(redactText('card 4111-1111-1111-1111 exp 04/27 cvv 739', K), 'card ####-####-####-#### exp ##/## cvv ###');
  assert.is(redactText('ssn 123-45-6789', K), 'ssn ###-##-####');
  assert.is(redactText('caller said card number four five three nine one four eight eight zero three four three six four six seven', K), 'caller said card number # # # # # # # # # # # # # # # #');
  // A card number passing Luhn is a card even written as an amount.
  assert.is(redactText('$4111111111111111', K), '$################');
});

test('metadata: each value is read with its field name as context; field names are redacted too; numbers that lose digits become strings', () => {
  assert.equal(
    redactJson({ card: '4539 1488 0343 6467', cvv: '739', pin: 1234, account: 12345, agent: 'bob 7', calls: 3, n: 4539148803436467, nested: { 'note 4111111111111111': ['x 555123456'] } }, K),
    { card: '#### #### #### ####', cvv: '###', pin: '####', account: '#####', agent: 'bob 7', calls: 3, n: '################', nested: { 'note ################': ['x #########'] } },
  );
  assert.equal(redactJson({ ok: true, none: null }, K), { ok: true, none: null });
});

test('personal data beside the digits (pii/client-text.ts plugged in): names, emails, phones; a name field is a name whole', () => {
  assert.is(redactText('call-john-smith-2024.wav', [...REDACT_KINDS]), 'call-[NAME]-2024.wav');
  assert.is(redactText('call back jane.nowak@example.com or (555) 234-9876', [...REDACT_KINDS]), 'call back [EMAIL] or (###) ###-####');
  assert.equal(redactJson({ customer_name: 'Jane Nowak 2', queue: 'billing', card: '4539148803436467' }, [...REDACT_KINDS]), { customer_name: '[NAME]', queue: 'billing', card: '################' });
  // Under the default kinds names stay.
  assert.is(redactText('call-john-smith-2024.wav', K), 'call-john-smith-2024.wav');
});

test('only the kinds asked for: a card name kept when only cvv is redacted', () => {
  assert.is(redactText('cc-4111111111111111.wav', ['cvv']), 'cc-4111111111111111.wav');
  assert.is(redactText('cc-4111111111111111.wav', ['digits']), 'cc-################.wav');
});

test('a job redacts client text under scrubtext or scrubaudio; a request not yet validated under the policy or when it asks', () => {
  const on = clientTextOf({ scrubtext: false, scrubaudio: true, redact: [...K] });
  assert.is(on.text('cc-4111111111111111.wav'), 'cc-################.wav');
  assert.equal(on.error({ code: 'NOT_AUDIO', message: 'cc-4111111111111111.txt: not audio' }), { code: 'NOT_AUDIO', message: 'cc-################.txt: not audio' });
  const off = clientTextOf({ scrubtext: false, scrubaudio: false, redact: [...K] });
  assert.is(off.active, false);
  assert.is(off.text('cc-4111111111111111.wav'), 'cc-4111111111111111.wav');
  assert.is(clientTextUnderPolicy({ scrub: ['audio'] }).text('4111111111111111'), '################');
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'true', redact: 'cvv' }).text('4111111111111111'), '################', 'default kinds at least');
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'false' }).active, false);
});

test('names kept unique after redaction, the same way on every run', () => {
  assert.equal(uniqueNames(['cc-################.wav', 'cc-################.wav', 'a.wav', 'cc-################.wav']), [
    'cc-################.wav',
    'cc-################~2.wav',
    'a.wav',
    'cc-################~3.wav',
  ]);
});

test.run();
