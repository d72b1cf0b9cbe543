/**
 * The one kinds parser (src/redact/kinds.ts, issue 32): `all` anywhere in a list, kinds added to the
 * default kinds, `-KIND` to turn one off, and client text of a request not yet accepted redacted with
 * the kinds it will have once accepted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientTextUnderPolicy } from '../src/redact/client-policy.js';
import { appliedRedaction, describeKinds, effectiveKinds, parseKinds } from '../src/redact/kinds.js';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import { redactAtWrite } from '../src/redact/at-write.js';
import { REDACT_KINDS, type TranscriptDocument } from '../src/types.js';
import { rejects } from './fixtures/assert-error.js';

const test = suite('redaction kinds');

/** Refused with BAD_ARGUMENT and exactly this message. */
const refused = (fn: () => unknown, message: string) => rejects(fn, 'BAD_ARGUMENT', new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));

test('parses a list or an array, any case, each kind once; all anywhere; -KIND off', () => {
  assert.equal(parseKinds('redact', 'card, CVV,card'), { on: ['card', 'cvv'], off: [] });
  assert.equal(parseKinds('redact', 'card,all'), { on: [...REDACT_KINDS], off: [] });
  assert.equal(parseKinds('redact', ['name', ' -CVV ', '']), { on: ['name'], off: ['cvv'] });
  assert.equal(parseKinds('redact', 'all,-name'), { on: REDACT_KINDS.filter((k) => k !== 'name'), off: ['name'] });
  assert.equal(parseKinds('redact', ''), { on: [], off: [] });
  assert.equal(parseKinds('redact', undefined), { on: [], off: [] });
});

test('refuses an unknown kind, -all, a non-list and a kind both named and off, naming what is accepted', async () => {
  const accepted = 'a comma-separated list of card, cvv, expiry, ssn, digits, pin, bank, phone, email, name, address, dob, id or all (each adds to the default kinds; -KIND turns one off, e.g. name,-cvv)';
  await refused(() => parseKinds('--redact', 'card,iban'), `Expected ${accepted} for --redact but received "iban"`);
  await refused(() => parseKinds('redact', '-all'), `Expected ${accepted} for redact but received "-all"`);
  await refused(() => parseKinds('redact', 7), `Expected ${accepted} for redact but received 7 of type number`);
  await refused(() => parseKinds('redact', 'cvv,-cvv'), 'redact names cvv and -cvv; name a kind to add it or -cvv to turn it off, not both');
});

test('named kinds add to the default kinds; what is off is shown in the parser\'s own syntax', () => {
  assert.equal(effectiveKinds(parseKinds('redact', 'name')), ['card', 'cvv', 'expiry', 'ssn', 'digits', 'name']);
  assert.is(describeKinds(effectiveKinds(parseKinds('redact', 'name,-cvv'))), 'card,expiry,ssn,digits,name,-cvv');
  const o = { scrubtext: false, scrubaudio: true, redact: effectiveKinds(parseKinds('redact', '-digits')) };
  assert.equal(appliedRedaction(o), { text: 'kept', audio: 'silenced', kinds: ['card', 'cvv', 'expiry', 'ssn'], off: ['digits'] });
  assert.equal(appliedRedaction({ ...o, scrubaudio: false, tag: true }), { text: 'tagged', audio: 'kept', kinds: ['card', 'cvv', 'expiry', 'ssn'], off: ['digits'] });
  assert.is(appliedRedaction({ ...o, scrubaudio: false }), undefined);
});

test('a transcript redacted again at write time (a policy set while it ran) says the kinds it now has', () => {
  const doc = { utterances: [], source: 'call.wav', chaninfo: [] } as unknown as TranscriptDocument;
  const ran = { ...defaultRequestOptions() };
  const now = { ...ran, scrubtext: true, redact: effectiveKinds(parseKinds('redact', 'name')) };
  assert.equal(redactAtWrite(doc, ran, now).document.redaction, { text: 'redacted', audio: 'kept', kinds: ['card', 'cvv', 'expiry', 'ssn', 'digits', 'name'] });
});

test('a request not yet accepted: its client text under the kinds it will have (redact=all read as all; a bad list as every kind)', () => {
  const name = 'call with Mrs Jane Nowak jane.nowak@example.com 4539148803436467.wav';
  const all = 'call with [NAME] [EMAIL] ################.wav';
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'true', redact: 'all' }).text(name), all);
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'true', redact: 'card,all' }).text(name), all);
  assert.is(clientTextUnderPolicy({ scrub: ['text'] }, { redact: ['all'] }).text(name), all);
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'true', redact: 'name,iban' }).text(name), all, 'unreadable: every kind');
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'maybe' }).text(name), 'call with Mrs Jane Nowak jane.nowak@example.com ################.wav', 'a bad scrubtext fails closed');
  assert.is(clientTextUnderPolicy({}, { scrubtext: 'tag' }).active, false, 'tag keeps client text, as after acceptance');
  // A policy's kind is not turned off before validation either (the request is refused after).
  assert.is(clientTextUnderPolicy({ scrub: ['text'] }, { redact: '-card' }).text(name), 'call with Mrs Jane Nowak jane.nowak@example.com ################.wav');
});

test.run();
