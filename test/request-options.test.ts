/** Request options at the edge: values, limits, company defaults and the company's redaction policy. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { VoxdexError } from '../src/errors.js';
import { defaultRequestOptions, pickRequestOptions, policyFloor, resolveRequestOptions } from '../src/jobs/request-options.js';

const opts = suite('request options');

function refused(fn: () => unknown): { code: string; status: number; message: string } {
  try {
    fn();
  } catch (err) {
    assert.instance(err, VoxdexError);
    const e = err as VoxdexError;
    return { code: e.code, status: e.status, message: e.message };
  }
  throw new Error('expected an error');
}

opts('a request that sends nothing gets the product defaults: numbers as numerals, everything else off, every redaction kind', () => {
  assert.equal(defaultRequestOptions(), {
    numtrans: true,
    scrubtext: false,
    scrubaudio: false,
    redact: ['card', 'cvv', 'expiry', 'ssn', 'digits'],
    diarize: false,
    gender: false,
    sentiment: false,
    vocab: [],
  });
});

opts('booleans take true, false, 1 and 0 (strings or JSON values); an empty field is not sent', () => {
  const o = resolveRequestOptions({ numtrans: '0', scrubtext: 'true', scrubaudio: 1, diarize: true, gender: '1', sentiment: '' }, {});
  assert.equal([o.numtrans, o.scrubtext, o.scrubaudio, o.diarize, o.gender, o.sentiment], [false, true, true, true, true, false]);
});

opts('any other boolean value is 400 BAD_ARGUMENT naming the accepted values', () => {
  assert.equal(refused(() => resolveRequestOptions({ diarize: 'yes' }, {})), {
    code: 'BAD_ARGUMENT',
    status: 400,
    message: 'Expected one of true, false, 1, 0 for diarize but received "yes"',
  });
  assert.equal(refused(() => resolveRequestOptions({ numtrans: 'True' }, {})).message, 'Expected one of true, false, 1, 0 for numtrans but received "True"');
  assert.equal(refused(() => resolveRequestOptions({ gender: 2 }, {})).message, 'Expected one of true, false, 1, 0 for gender but received 2 of type number');
});

opts('emotion is another name for sentiment; the two may not disagree', () => {
  assert.is(resolveRequestOptions({ emotion: 'true' }, {}).sentiment, true);
  assert.is(resolveRequestOptions({ emotion: '1', sentiment: 'true' }, {}).sentiment, true);
  assert.equal(refused(() => resolveRequestOptions({ emotion: '1', sentiment: '0' }, {})).message, 'sentiment=false and emotion=true disagree; emotion is another name for sentiment: send one of them');
});

opts('speakers is an integer from 1 to 10', () => {
  assert.is(resolveRequestOptions({ speakers: '2' }, {}).speakers, 2);
  assert.is(resolveRequestOptions({ speakers: 10 }, {}).speakers, 10);
  assert.equal(refused(() => resolveRequestOptions({ speakers: '11' }, {})).message, 'Expected an integer between 1 and 10 for speakers but received "11"');
  assert.equal(refused(() => resolveRequestOptions({ speakers: '1.5' }, {})).message, 'Expected an integer between 1 and 10 for speakers but received "1.5"');
  assert.equal(refused(() => resolveRequestOptions({ speakers: 0 }, {})).message, 'Expected an integer between 1 and 10 for speakers but received 0 of type number');
});

opts('minspeakers/maxspeakers bound the estimate; speakers must lie inside them; crosstalk is drop or keep', () => {
  const o = resolveRequestOptions({ minspeakers: '2', maxspeakers: 4 }, {});
  assert.equal([o.minspeakers, o.maxspeakers], [2, 4]);
  assert.equal(refused(() => resolveRequestOptions({ minspeakers: '3', maxspeakers: '2' }, {})).message, 'minspeakers=3 is more than maxspeakers=2; send minspeakers ≤ maxspeakers');
  assert.equal(refused(() => resolveRequestOptions({ speakers: '5', maxspeakers: '4' }, {})).message, 'speakers=5 is outside minspeakers/maxspeakers; send either the exact number (speakers) or bounds (minspeakers, maxspeakers)');
  assert.equal(refused(() => resolveRequestOptions({ maxspeakers: '11' }, {})).message, 'Expected an integer between 1 and 10 for maxspeakers but received "11"');
  assert.is(resolveRequestOptions({ crosstalk: 'keep' }, {}).crosstalk, 'keep');
  assert.is(resolveRequestOptions({}, {}).crosstalk, undefined);
  assert.equal(refused(() => resolveRequestOptions({ crosstalk: 'show' }, {})).message, 'Expected drop or keep for crosstalk but received "show"');
});

opts("the company's agent channel and phrases reach the options", () => {
  const o = resolveRequestOptions({}, { agentChannel: 1, agentPhrases: ['welcome to acme'] });
  assert.equal([o.agentChannel, o.agentPhrases], [1, ['welcome to acme']]);
  assert.is(resolveRequestOptions({}, {}).agentChannel, undefined);
});

opts('vocab: comma-separated, trimmed, at most 100 phrases of at most 50 characters, added to the company list', () => {
  assert.equal(resolveRequestOptions({ vocab: ' Voxdex , call centre,,voxdex' }, { vocab: ['Acme Gold'] }).vocab, ['Acme Gold', 'Voxdex', 'call centre', 'voxdex']);
  const many = Array.from({ length: 101 }, (_, i) => `w${i}`).join(',');
  assert.equal(refused(() => resolveRequestOptions({ vocab: many }, {})), {
    code: 'BAD_ARGUMENT',
    status: 400,
    message: "vocab has 101 phrases; send at most 100 (comma-separated), or add the company's list with voxdex vocab add",
  });
  assert.equal(refused(() => resolveRequestOptions({ vocab: `ok,${'x'.repeat(51)}` }, {})).message, `Expected phrases of at most 50 characters for vocab but received "${'x'.repeat(51)}"`);
});

opts('vocab never writes digits: a phrase with digits is 400 naming the rule, the digits masked; length counts characters, not UTF-16 units (issue 24)', () => {
  assert.equal(refused(() => resolveRequestOptions({ vocab: 'Acme Gold,4539148803436467' }, {})), {
    code: 'BAD_ARGUMENT',
    status: 400,
    message: 'The vocab phrase "################" holds digits; the vocabulary never writes numbers (it could put a number nobody said into a transcript): spell names without digits, numbers are recognised without it',
  });
  assert.match(refused(() => resolveRequestOptions({ vocab: 'double four double five' }, {})).message, 'spells a number of 4 digits');
  assert.equal(resolveRequestOptions({ vocab: `Office three sixty five,${'é'.repeat(50)},${'👍🏽'.repeat(50)}` }, {}).vocab, ['Office three sixty five', 'é'.repeat(50), '👍🏽'.repeat(50)]);
  // A company phrase stored before the rule is never used.
  assert.equal(resolveRequestOptions({}, { vocab: ['card 4111', 'Acme Gold'] }).vocab, ['Acme Gold']);
  assert.equal(policyFloor({ ...defaultRequestOptions(), vocab: ['card 4111', 'Acme Gold'] }, {}).vocab, ['Acme Gold']);
});

opts('speakers, minspeakers and maxspeakers imply diarize; beside diarize=false they are refused (issue 32)', () => {
  assert.is(resolveRequestOptions({ speakers: '2' }, {}).diarize, true);
  assert.is(resolveRequestOptions({ maxspeakers: 3 }, { diarize: false }).diarize, true);
  assert.is(resolveRequestOptions({}, {}).diarize, false);
  assert.equal(refused(() => resolveRequestOptions({ speakers: '2', diarize: 'false' }, {})), {
    code: 'BAD_ARGUMENT',
    status: 400,
    message: 'speakers=2 counts the speakers diarize finds, and diarize=false was sent; send diarize=true or leave diarize out (speakers implies it)',
  });
});

opts('redact: known kinds only; named kinds add to the default kinds and the company\'s (issue 32)', () => {
  assert.equal(resolveRequestOptions({ redact: 'ssn,card' }, {}).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits']);
  assert.equal(resolveRequestOptions({ redact: 'pin' }, { redact: ['name'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin', 'name']);
  assert.equal(resolveRequestOptions({}, { redact: ['name'], redactOff: ['cvv'] }).redact, ['card', 'expiry', 'ssn', 'digits', 'name']);
  assert.equal(refused(() => resolveRequestOptions({ redact: 'card,iban' }, {})).message, 'Expected a comma-separated list of card, cvv, expiry, ssn, digits, pin, bank, phone, email, name, address, dob, id or all (each adds to the default kinds; -KIND turns one off, e.g. name,-cvv) for redact but received "iban"');
});

opts('scrubtext=true&redact=name keeps the card kinds (it left 15 of 16 card digits in clear); -KIND turns one off, explicitly (issue 32)', () => {
  assert.equal(resolveRequestOptions({ scrubtext: 'true', redact: 'name' }, {}).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'name']);
  assert.equal(resolveRequestOptions({ scrubtext: 'true', redact: 'name,-cvv, -Digits' }, {}).redact, ['card', 'expiry', 'ssn', 'name']);
  assert.equal(resolveRequestOptions({ redact: ['all', '-name'] }, {}).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin', 'bank', 'phone', 'email', 'address', 'dob', 'id']);
  assert.equal(refused(() => resolveRequestOptions({ redact: 'name,-name' }, {})).message, 'redact names name and -name; name a kind to add it or -name to turn it off, not both');
  assert.equal(refused(() => resolveRequestOptions({ redact: '-card,-cvv,-expiry,-ssn,-digits' }, {})).message, 'redact turns every kind off; to redact nothing send scrubtext=false (and scrubaudio=false) instead');
  // A company without a policy sets defaults a request may turn off; a policy's kinds it may not.
  assert.equal(resolveRequestOptions({ redact: '-name' }, { redact: ['name'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits']);
  assert.equal(refused(() => resolveRequestOptions({ redact: 'name,-cvv' }, { scrub: ['text'] }, 'acme')), {
    code: 'FORBIDDEN',
    status: 403,
    message: "company acme's policy redacts cvv (voxdex company set acme --scrub text); redact=-cvv is not allowed",
  });
  assert.equal(resolveRequestOptions({ redact: '-cvv' }, { scrub: ['text'], redactOff: ['cvv'] }).redact, ['card', 'expiry', 'ssn', 'digits']);
});

opts('under a scrub policy a request\'s redact= adds to the default kinds, never narrows them (issue 24)', () => {
  assert.equal(resolveRequestOptions({ redact: 'cvv' }, { scrub: ['text'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits']);
  assert.equal(resolveRequestOptions({ redact: 'pin' }, { scrub: ['text', 'audio'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin']);
  assert.equal(resolveRequestOptions({ redact: 'cvv' }, { scrub: ['text'], redact: ['card'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits']);
});

opts('policyFloor: a job runs under the policy as it is when it runs — it only ever adds (issue 24)', () => {
  const accepted = resolveRequestOptions({ redact: 'cvv', diarize: 'true' }, {});
  assert.equal(policyFloor(accepted, {}), accepted);
  const floored = policyFloor(accepted, { scrub: ['text'] });
  assert.equal([floored.scrubtext, floored.scrubaudio, floored.redact, floored.diarize], [true, false, ['card', 'cvv', 'expiry', 'ssn', 'digits'], true]);
  assert.equal(policyFloor(floored, { scrub: ['audio'], redact: ['pin'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin']);
  assert.is(policyFloor(floored, { scrub: ['audio'] }).scrubaudio, true);
  assert.is(policyFloor(resolveRequestOptions({ scrubtext: '1' }, {}), { diarize: false }).scrubtext, true);
});

opts('redact: the personal-data kinds by name, all for every kind; nothing asked: the default kinds', () => {
  assert.equal(resolveRequestOptions({ scrubtext: 'true' }, {}).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits']);
  assert.equal(resolveRequestOptions({ redact: 'Name,email,address' }, {}).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'email', 'name', 'address']);
  assert.equal(resolveRequestOptions({ redact: ['dob', 'id'] }, { redact: ['bank'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'bank', 'dob', 'id']);
  assert.equal(resolveRequestOptions({ redact: 'card,all' }, {}).redact, resolveRequestOptions({ redact: 'all' }, {}).redact);
  assert.equal(resolveRequestOptions({ redact: 'all' }, { redact: ['card'] }).redact, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin', 'bank', 'phone', 'email', 'name', 'address', 'dob', 'id']);
});

opts('scrubtext=tag marks without replacing; refused (403) when the company policy redacts text', () => {
  const tagged = resolveRequestOptions({ scrubtext: 'tag', redact: 'name' }, {});
  assert.equal([tagged.scrubtext, tagged.tag, tagged.redact], [false, true, ['card', 'cvv', 'expiry', 'ssn', 'digits', 'name']]);
  assert.is(resolveRequestOptions({ scrubtext: 'tag', scrubaudio: 'true' }, { scrub: ['audio'] }).tag, true);
  assert.equal(refused(() => resolveRequestOptions({ scrubtext: 'tag' }, { scrub: ['text'] }, 'acme')), {
    code: 'FORBIDDEN',
    status: 403,
    message: "company acme's policy redacts text (voxdex company set acme --scrub text); scrubtext=tag keeps the words and is not allowed",
  });
  assert.is(resolveRequestOptions({ scrubtext: 'true' }, {}).tag, undefined);
  assert.equal(refused(() => resolveRequestOptions({ scrubtext: 'maybe' }, {})).code, 'BAD_ARGUMENT');
});

opts('company defaults fill what the request did not send; the request wins where it sent a value', () => {
  const settings = { diarize: true, sentiment: true, numtrans: false, gender: true };
  assert.equal(
    (({ numtrans, diarize, gender, sentiment }) => ({ numtrans, diarize, gender, sentiment }))(resolveRequestOptions({}, settings)),
    { numtrans: false, diarize: true, gender: true, sentiment: true },
  );
  assert.is(resolveRequestOptions({ diarize: 'false', numtrans: 'true' }, settings).diarize, false);
  assert.is(resolveRequestOptions({ diarize: 'false', numtrans: 'true' }, settings).numtrans, true);
});

opts('a company policy turns scrubtext/scrubaudio on; a request that turns it off is 403 naming the policy', () => {
  const policy = { scrub: ['text', 'audio'] as Array<'text' | 'audio'> };
  const o = resolveRequestOptions({}, policy, 'acme');
  assert.equal([o.scrubtext, o.scrubaudio], [true, true]);
  assert.equal(resolveRequestOptions({ scrubtext: '1' }, policy, 'acme').scrubtext, true);
  assert.equal(refused(() => resolveRequestOptions({ scrubtext: 'false' }, policy, 'acme')), {
    code: 'FORBIDDEN',
    status: 403,
    message: "company acme's policy redacts text (voxdex company set acme --scrub text,audio); scrubtext=false is not allowed",
  });
  assert.equal(
    refused(() => resolveRequestOptions({ scrubaudio: '0' }, { scrub: ['audio'] }, 'acme')).message,
    "company acme's policy redacts audio (voxdex company set acme --scrub audio); scrubaudio=false is not allowed",
  );
  // A request may add what the policy does not force.
  assert.is(resolveRequestOptions({ scrubaudio: 'true' }, { scrub: ['text'] }, 'acme').scrubaudio, true);
});

opts('pickRequestOptions takes only the option fields of a form', () => {
  assert.equal(pickRequestOptions({ token: 't', model: 'auto', diarize: 'true', vocab: 'a,b' }), { diarize: 'true', vocab: 'a,b' });
});

opts.run();
