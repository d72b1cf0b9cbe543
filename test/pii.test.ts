/**
 * Personal data beyond card numbers (issue 25, docs/pii.md): names, addresses, emails, phone numbers,
 * dates of birth, bank and ID numbers in ASR-shaped calls (lower case, no punctuation, numerals from
 * numtrans), replaced by `[KIND]` (`#` per digit), marked by scrubtext=tag, ordinary talk kept.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { fieldKind, findPersonalText, maskPersonalText } from '../src/redact/pii/client-text.js';
import { abaValid } from '../src/redact/pii/numbers.js';
import { redactUtterances } from '../src/redact/redact.js';
import { redactDocument } from '../src/redact/stage.js';
import { REDACT_KINDS, type RedactKind, type TranscriptDocument, type Utterance } from '../src/types.js';

const p = suite('pii');

/** A call as [channel, text] turns: words 0.5 s apart, 1 s between turns (numerals as numtrans writes them). */
function call(turns: Array<[number, string]>): Utterance[] {
  let t = 0;
  return turns.map(([channel, text], uttid) => {
    const events = text.split(' ').map((word, i) => ({ word, start: t + i * 0.5, end: t + i * 0.5 + 0.4, confidence: 0.9 }));
    t += events.length * 0.5 + 1;
    return { start: events[0]!.start, end: events[events.length - 1]!.end, confidence: 0.9, metadata: { channel, uttid }, events: normalizeNumbers(events) };
  });
}
const shown = (utts: Utterance[]) => utts.map((u) => `${u.metadata.channel}: ${u.events.map((e) => e.word + (e.redacted ? `<${e.redacted}>` : '') + (e.pii ? `{${e.pii}}` : '')).join(' ')}`);
const redact = (turns: Array<[number, string]>, kinds: readonly RedactKind[] = REDACT_KINDS) => shown(redactUtterances(call(turns), kinds).utterances);

const INTAKE: Array<[number, string]> = [
  [0, 'thank you for calling can i have your name please'],
  [1, 'yes it is john smith'],
  [0, 'can you spell the last name'],
  [1, 's m i t h'],
  [0, 'thank you mister smith and your date of birth'],
  [1, 'march third nineteen eighty five'],
  [0, 'and what is your email address'],
  [1, 'john dot smith at gmail dot com'],
  [0, 'and your address'],
  [1, 'forty two maple street springfield illinois six two seven oh four'],
  [0, 'the payment is due on march third and we will ship it to chicago'],
];

p('an intake call: name, spelled surname, date of birth, spoken email, address; the due date and the city talked about are kept', () => {
  assert.equal(redact(INTAKE), [
    '0: thank you for calling can i have your name please',
    '1: yes it is [NAME]<name> [NAME]<name>',
    '0: can you spell the last name',
    '1: [NAME]<name> [NAME]<name> [NAME]<name> [NAME]<name> [NAME]<name>',
    '0: thank you mister [NAME]<name> and your date of birth',
    '1: [DOB]<dob> #<dob> ####<dob>',
    '0: and what is your email address',
    '1: [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
    '0: and your address',
    '1: ##<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address> #####<address>',
    '0: the payment is due on march 3rd and we will ship it to chicago',
  ]);
});

p('said of oneself: "my name is", "I live at" with a unit, a relation\'s name, phone, routing and passport answers, a written email', () => {
  assert.equal(redact([
    [1, 'my name is chidi okonkwo and i live at 17 oak avenue apartment 4 b'],
    [1, 'my husband david handles the bills and i bought a samsung galaxy in paris'],
    [0, 'what is the best number to call you back on'],
    [1, 'five five five two three four nine eight seven six'],
    [0, 'and the routing number'],
    [1, 'zero two one zero zero zero zero two one'],
    [0, 'and your passport number'],
    [1, 'a b one two three four five six seven'],
    [1, 'you can email me at jsmith@example.org'],
  ]), [
    '1: my name is [NAME]<name> [NAME]<name> and i live at ##<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address> #<address> [ADDRESS]<address>',
    '1: my husband [NAME]<name> handles the bills and i bought a samsung galaxy in paris',
    '0: what is the best number to call you back on',
    '1: ##########<phone>',
    '0: and the routing number',
    '1: #########<bank>',
    '0: and your passport number',
    '1: [ID]<id> [ID]<id> #######<id>',
    '1: you can email me at [EMAIL]<email>',
  ]);
  assert.ok(abaValid('021000021'));
  assert.not.ok(abaValid('021000022'));
});

p('ordinary talk about people\'s roles, products, places, dates and order numbers is kept; weak cues need a name', () => {
  assert.equal(redact([
    [0, 'this is sarah from acme how can i help'],
    [1, 'hi this is great i spoke to mike last week about my order'],
    [0, 'okay the order number is in the email we sent'],
    [1, 'yes I got the email thanks the manager said it ships on the first of may'],
  ]), [
    '0: this is [NAME]<name> from acme how can i help',
    '1: hi this is great i spoke to [NAME]<name> last week about my order',
    '0: okay the order number is in the email we sent',
    '1: yes I got the email thanks the manager said it ships on the 1st of may',
  ]);
});

p('only the kinds asked for: the default kinds leave names and emails; a phone number is then a run of digits', () => {
  const text = redact(INTAKE.slice(0, 2).concat([[0, 'and a phone number'], [1, 'five five five two three four nine eight seven six']]), ['card', 'cvv', 'expiry', 'ssn', 'digits']);
  assert.equal(text, [
    '0: thank you for calling can i have your name please',
    '1: yes it is john smith',
    '0: and a phone number',
    '1: ##########<digits>',
  ]);
});

p('scrubtext=tag marks the spans with pii and keeps every word; scrubaudio gets the same spans', () => {
  const doc = { utterances: call(INTAKE.slice(0, 2)) } as TranscriptDocument;
  const tagged = redactDocument(doc, { scrubtext: false, scrubaudio: false, tag: true, redact: ['name'] });
  assert.equal(shown(tagged.document.utterances), ['0: thank you for calling can i have your name please', '1: yes it is john{name} smith{name}']);
  assert.equal(tagged.spans.map((s) => [s.kind, s.channel, s.start, s.end]), [['name', 1, 7.5, 8.4]]);
  // A tagged transcript redacted later (voxdex redact) loses the mark with the word.
  const later = redactUtterances(tagged.document.utterances, ['name']).utterances[1]!.events[3]!;
  assert.equal(later, { word: '[NAME]', start: 7.5, end: 7.9, confidence: 0.9, kind: 'redacted', redacted: 'name' });
});

p('as the ASR writes real answers: a misheard cue, a correction, an email without its dot, an answer with no readable email (its "dot com" heard as "not come"), an address before a new sentence', () => {
  assert.equal(redact([
    [1, 'i my name in'],
    [1, 'patriot cards'],
    [0, 'okay who am i speaking with'],
    [1, 'it is maria lopez'],
    [1, 'no sorry maria reed'],
    [0, 'can i get an email address for the receipt'],
    [1, 'good night brussel at icloud com'],
    [0, 'and your email address please'],
    [1, 'yes it is'],
    [1, "patric's not caught and i glove not come"],
    [0, 'and what is the address on the account'],
    [1, 'sure it is'],
    [1, 'four seventeen april wey austin texas'],
    [1, 'had he married a more amiable woman he might have been made still more respectable'],
  ]), [
    '1: i my name in',
    '1: [NAME]<name> [NAME]<name>',
    '0: okay who am i speaking with',
    '1: it is [NAME]<name> [NAME]<name>',
    '1: no sorry [NAME]<name> [NAME]<name>',
    '0: can i get an email address for the receipt',
    '1: [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
    '0: and your email address please',
    '1: yes it is',
    '1: [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
    '0: and what is the address on the account',
    '1: sure it is',
    '1: [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address>',
    '1: had he married a more amiable woman he might have been made still more respectable',
  ]);
});

p('as the ASR splits and mishears answers: "name please", a name said as an utterance of its own, "email address" heard as "amailed dress", "dot com" as "dot\'s come", an "i" starting the next sentence after spelled letters, a new sentence after a first name', () => {
  assert.equal(redact([
    [0, 'okay can i get a name please'],
    [1, 'yes it is'],
    [1, 'and a simpson ah'],
    [0, 'and what is your amailed dress'],
    [1, 'peter glove not come'],
    [1, "or send it to rachel at aol dot's come please"],
    [0, 'can you spell the last name'],
    [1, 's m i t h'],
    [1, 'i bought it at the store last week'],
    [0, 'and your first name please'],
    [1, 'maria'],
    [1, 'so we moved here last year'],
  ]), [
    '0: okay can i get a name please',
    '1: yes it is',
    '1: [NAME]<name> [NAME]<name> [NAME]<name> [NAME]<name>',
    '0: and what is your amailed dress',
    '1: [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
    '1: or send it to [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> please',
    '0: can you spell the last name',
    '1: [NAME]<name> [NAME]<name> [NAME]<name> [NAME]<name> [NAME]<name>',
    '1: i bought it at the store last week',
    '0: and your first name please',
    '1: [NAME]<name>',
    '1: so we moved here last year',
  ]);
});

p('a name as an utterance of its own after "my <relation>." or the agent\'s "this is.", misheard words included; a longer next sentence or a reply is kept', () => {
  assert.equal(redact([
    [0, 'thank you for calling acme this is'],
    [0, 'colorado'],
    [0, 'how can i help'],
    [1, 'my brother'],
    [1, 'wow that loop'],
    [1, 'usually pays the bill'],
    [1, 'i spoke to my manager'],
    [1, 'he said it ships on friday'],
    [1, 'and my sister'],
    [1, 'okay'],
  ]), [
    '0: thank you for calling acme this is',
    '0: [NAME]<name>',
    '0: how can i help',
    '1: my brother',
    '1: [NAME]<name> [NAME]<name> [NAME]<name>',
    '1: usually pays the bill',
    '1: i spoke to my manager',
    '1: he said it ships on friday',
    '1: and my sister',
    '1: okay',
  ]);
});

p('a request "can I have your … please" whose object the ASR garbled ("full name" → "fault aim") is the name question; one that names another kind\'s word ("order number") is not', () => {
  assert.equal(redact([
    [0, 'sure can i have your fault aim please'],
    [1, 'yes it is'],
    [1, 'robert ah lead'],
    [0, 'and can i get your order number please'],
    [1, 'sure it is seventy seven'],
  ]), [
    '0: sure can i have your fault aim please',
    '1: yes it is',
    '1: [NAME]<name> [NAME]<name> [NAME]<name>',
    '0: and can i get your order number please',
    '1: sure it is 77',
  ]);
});

p('a full date with a birth year is a date of birth even when its question was not heard; a due date is kept', () => {
  assert.equal(redact([
    [0, 'for security can you confirm your data toughpurf'],
    [1, 'the seventh of april nineteen fifty'],
    [1, 'and the bill is due on march third twenty twenty five'],
  ]), [
    '0: for security can you confirm your data toughpurf',
    '1: [DOB]<dob> #<dob> [DOB]<dob> [DOB]<dob> ####<dob>',
    '1: and the bill is due on march 3rd 2025',
  ]);
});

p('client text (file names, metadata): a field named for its kind is that kind whole; emails, phones and people by shape', () => {
  const all = new Set(REDACT_KINDS);
  const mask = (text: string, field = '') => maskPersonalText(text, findPersonalText(text, all, field));
  assert.equal(['customer_name', 'DOB', 'zip', 'Email', 'passport_no', 'agent', 'queue'].map(fieldKind), ['name', 'dob', 'address', 'email', 'id', undefined, undefined]);
  assert.is(mask('Jane Nowak', 'customer_name'), '[NAME]');
  assert.is(mask('1985-03-15', 'date_of_birth'), '####-##-##');
  assert.is(mask('62704', 'zip'), '#####');
  assert.is(mask('call back jane.nowak@example.com or (555) 234-9876 today', 'note'), 'call back [EMAIL] or (###) ###-#### today');
  assert.is(mask('spoke with Mrs Jane Nowak about the refund', 'note'), 'spoke with [NAME] about the refund');
  assert.is(mask('call-john-smith-2024.wav'), 'call-[NAME]-2024.wav');
  assert.is(mask('billing queue, priority 2', 'queue'), 'billing queue, priority 2');
  assert.equal(findPersonalText('jane@example.com', new Set(['card'])), [], 'only the kinds asked for');
});

p('a call so far gives the spans found so far (live calls run it again as words arrive)', () => {
  const partial = redact(INTAKE.slice(0, 7));
  assert.equal(partial, redact(INTAKE).slice(0, 7));
});
/** Turns as [channel, text, pause before (s), seconds from word to word]: a call's own timing (issue 33). */
function timed(turns: Array<[number, string, number?, number?]>): Utterance[] {
  let t = 0;
  return turns.map(([channel, text, pause = 1, step = 0.5], uttid) => {
    t += pause;
    const events = text.split(' ').map((word, i) => ({ word, start: +(t + i * step).toFixed(2), end: +(t + i * step + 0.4).toFixed(2), confidence: 0.9 }));
    t = events[events.length - 1]!.end;
    return { start: events[0]!.start, end: t, confidence: 0.9, metadata: { channel, uttid }, events: normalizeNumbers(events) };
  });
}
const redactTimed = (turns: Array<[number, string, number?, number?]>, kinds: readonly RedactKind[] = REDACT_KINDS) => shown(redactUtterances(timed(turns), kinds).utterances);

p('slow spelling after "spell your surname": letters 1.5-2.2 s apart, each an utterance, "oh" for o, are all redacted', () => {
  const lines = redactTimed([[0, 'and can you spell your surname for me'], [1, 'o'], [1, 'k', 1.8], [1, 'oh', 2.0], [1, 'n', 1.6], [1, 'k', 2.2], [1, 'w', 1.9], [1, 'oh', 2.1]], ['name']);
  assert.equal(lines, ['0: and can you spell your surname for me', ...Array(7).fill('1: [NAME]<name>')]);
  // In one utterance too, 2.4 s from letter to letter.
  assert.equal(redactTimed([[0, 'and can you spell your surname for me'], [1, 'o k oh n k w oh', 1, 2.4]], ['name']), [
    '0: and can you spell your surname for me',
    `1: ${Array(7).fill('[NAME]<name>').join(' ')}`,
  ]);
});

p('an email split by the agent\'s "okay" and a pause before "at": the local part goes with it, no question asked', () => {
  assert.equal(redactTimed([[1, 'it is chidi dot okonkwo'], [0, 'okay', 0.5], [1, 'at yahoo dot com', 2.5]], ['email']), [
    '1: it is [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
    '0: okay',
    '1: [EMAIL]<email> [EMAIL]<email> [EMAIL]<email> [EMAIL]<email>',
  ]);
  // A pause before "at" after ordinary words is no local part: "we met at yahoo dot com's office" keeps "we met".
  assert.equal(redactTimed([[1, 'that is where we met'], [1, 'at yahoo dot com', 3]], ['email'])[0], '1: that is where we met');
});

p('"i was born on" stays around a date of birth (the answer preamble is no misheard date)', () => {
  assert.equal(redactTimed([[0, 'what is your date of birth'], [1, 'i was born on march third nineteen eighty five']], ['name', 'address', 'email', 'phone', 'dob']), [
    '0: what is your date of birth',
    '1: i was born on [DOB]<dob> #<dob> ####<dob>',
  ]);
});

p('a one-channel call: the question a cue is asked in is no answer ("which address should we use", "what phone number should we use")', () => {
  const kinds: RedactKind[] = ['name', 'address', 'email', 'phone', 'dob'];
  assert.equal(redactTimed([[0, 'which address should we use for the delivery'], [0, 'forty two maple street springfield']], kinds), [
    '0: which address should we use for the delivery',
    '0: ##<address> [ADDRESS]<address> [ADDRESS]<address> [ADDRESS]<address>',
  ]);
  assert.equal(redactTimed([[0, 'what phone number should we use'], [0, 'five five five eight six seven five three oh nine']], kinds), [
    '0: what phone number should we use',
    '0: ##########<phone>',
  ]);
  // The answer in the next utterance still is one.
  assert.equal(redactTimed([[0, 'can i have your name please'], [0, 'maria lopez']], kinds), ['0: can i have your name please', '0: [NAME]<name> [NAME]<name>']);
});

p('a phone number whose "zero" was heard as "near a": every digit and the misheard words are redacted, cue or not', () => {
  const kinds: RedactKind[] = ['name', 'address', 'email', 'phone', 'dob'];
  const said = 'five five five eight six seven five three near a nine';
  const whole = '1: ########<phone> [PHONE]<phone> [PHONE]<phone> #<phone>';
  assert.equal(redactTimed([[1, said]], kinds), [whole]);
  assert.equal(redactTimed([[0, 'can i get a callback number'], [1, said]], kinds), ['0: can i get a callback number', whole]);
  // Amounts and counts around ordinary words are no phone number.
  assert.equal(redactTimed([[1, 'i paid twelve thirty four for the car and fifty six']], kinds), ['1: i paid 1234 for the car and 56']);
});

p.run();
