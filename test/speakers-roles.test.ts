/**
 * Roles (src/speakers/roles.ts, src/analytics/roles.ts): agent and customer from the company's agent channel
 * or from the script, nothing guessed without evidence; per-role talk time, interruptions and sentiment.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callMetrics } from '../src/analytics/metrics.js';
import { roleSummary } from '../src/analytics/roles.js';
import { decideRoles, rolesPart, scriptScores, withRoles } from '../src/speakers/roles.js';
import { foldUtterances } from '../src/pipeline/fold-stages.js';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import type { FileWork, Utterance } from '../src/types.js';

const test = suite('roles');

/** An utterance saying `text` from `start`, 0.3 s per word. */
function say(party: { channel: number; speaker?: string }, start: number, text: string, extra: Partial<Utterance['metadata']> = {}): Utterance {
  const words = text.split(' ');
  return {
    start,
    end: start + words.length * 0.3,
    confidence: 0.9,
    metadata: { ...party, uttid: 0, ...extra },
    events: words.map((word, i) => ({ word, start: start + i * 0.3, end: start + i * 0.3 + 0.25, confidence: 0.9 })),
  };
}

const A = { channel: 0, speaker: 'S1' };
const B = { channel: 0, speaker: 'S2' };

test('the party that says the script is the agent (diarized mono), whoever speaks first', () => {
  const call = [
    say(B, 0, 'hello'),
    say(A, 1, 'thank you for calling acme how can i help you today'),
    say(B, 5, "hi i'm calling about my bill"),
    say(A, 8, 'let me check that for you'),
  ];
  const d = decideRoles(call, 1)!;
  assert.is(d.by, 'phrases');
  assert.equal([...d.roles].sort(), [['S1', 'agent'], ['S2', 'customer']]);
  assert.equal(withRoles(call, d).map((u) => u.metadata.role), ['customer', 'agent', 'customer', 'agent']);
  assert.equal(scriptScores(call).get('S2'), -2); // "i'm calling about", early: counts double
});

test('phrases are matched as whole words, case and punctuation aside; the company adds its own', () => {
  const call = [say(A, 0, 'Welcome to Acme, my name is Dana.'), say(B, 3, 'hello dana')];
  assert.is(decideRoles(call, 1), undefined); // no built-in phrase
  const d = decideRoles(call, 1, { agentPhrases: ['welcome to acme'] })!;
  assert.is(d.roles.get('S1'), 'agent');
  assert.is(decideRoles([say(A, 0, 'rethank you for callingx'), say(B, 2, 'ok')], 1), undefined);
  // `*` stands for one word, built in ("this is * speaking") and in the company's phrases
  assert.is(decideRoles([say(A, 0, 'hi this is dana speaking'), say(B, 2, 'hello')], 1)!.roles.get('S1'), 'agent');
  assert.is(decideRoles([say(A, 0, 'you reached acme south desk'), say(B, 2, 'hello')], 1, { agentPhrases: ['acme * desk'] })!.roles.get('S1'), 'agent');
});

test('no evidence, a tie or one party: no roles', () => {
  assert.is(decideRoles([say(A, 0, 'hello there'), say(B, 1, 'hi')], 1), undefined);
  assert.is(decideRoles([say(A, 0, 'how can i help'), say(B, 1, 'how can i help')], 1), undefined);
  assert.is(decideRoles([say({ channel: 0 }, 0, 'thank you for calling')], 1), undefined);
});

test("the company's agent channel decides on a call with several channels; crosstalk is nobody's", () => {
  const call = [say({ channel: 0 }, 0, "i'm calling about my order"), say({ channel: 1 }, 2, 'okay'), say({ channel: 0 }, 3, 'okay', { crosstalk: true })];
  const d = decideRoles(call, 2, { agentChannel: 1 })!;
  assert.is(d.by, 'setting');
  assert.equal(withRoles(call, d).map((u) => u.metadata.role), ['customer', 'agent', undefined]);
  // on a mono call the channel setting says nothing: the script decides
  assert.is(decideRoles([say(A, 0, 'thank you for calling'), say(B, 2, 'hi')], 1, { agentChannel: 1 })!.by, 'phrases');
});

test('with the company\'s agent channel, the first party to speak has its role before the other speaks (a live call\'s first words)', () => {
  const first = [say({ channel: 1 }, 0, 'hello')];
  assert.equal(decideRoles(first, 2, { agentChannel: 0 })?.roles, new Map([['1', 'customer']]));
  assert.is(decideRoles(first, 2), undefined); // by phrases: one party is no evidence
});

test('the roles part, folded over a file, reads the company setting from the options', async () => {
  const utterances = [say({ channel: 0 }, 0, 'hello'), say({ channel: 1 }, 1, 'hi')];
  const work = {
    requestid: 'r', source: 's.wav', options: { ...defaultRequestOptions(), agentChannel: 0 }, warnings: [], summary: {}, started: '',
    audio: { format: { encoding: 'pcm_s16' as const, sampleRate: 8000, channels: 2, bitsPerSample: 16 }, channels: [new Float32Array(8), new Float32Array(8)], durationSec: 2, warnings: [] },
    result: { model: 'm', utterances, chaninfo: [], confidence: 0.9, audiosecs: 2, nchannels: 2, notes: [] },
  } satisfies FileWork;
  const roles = { name: 'roles', utterance: rolesPart };
  assert.equal(foldUtterances(roles, { options: work.options, ...work.result }).map((u) => u.metadata.role), ['agent', 'customer']);
  const none = foldUtterances(roles, { options: defaultRequestOptions(), ...work.result });
  assert.equal(none, utterances); // no setting, no script: unchanged
  assert.equal(none.map((u) => u.metadata.role), [undefined, undefined]);
});

test('metrics: interruptions by whom (≥ 1 s over someone else); per role talk time, interruptions and sentiment', () => {
  const agent = { channel: 0 };
  const customer = { channel: 1 };
  const call = [
    say(agent, 0, 'thank you for calling how can i help you today with your account'), // 13 words: 0–3.85 s
    say(customer, 2, 'yes i want to cancel my plan right now please'), // 2–5 s: interrupts the agent
    say(agent, 4.5, 'mm'), // a back-channel under the customer: 0.3 s, not an interruption
    say(customer, 8, 'thanks'),
  ].map((u, i) => ({ ...u, metadata: { ...u.metadata, uttid: i, role: (u.metadata.channel === 0 ? 'agent' : 'customer') as 'agent' | 'customer', sentimentscore: u.metadata.channel === 0 ? 0.5 : -0.25 } }));
  assert.equal(callMetrics(call).interruptions, { '0': 0, '1': 1 });
  const roles = roleSummary(call)!;
  assert.equal(roles.agent!.parties, ['0']);
  assert.is(roles.customer!.interruptions, 1);
  assert.is(roles.agent!.interruptions, 0);
  assert.ok(Math.abs(roles.agent!.talksecs - (3.85 + 0.25)) < 0.01, String(roles.agent!.talksecs)); // and the 0.25 s "mm"
  assert.equal(roles.agent!.sentiment, { label: 'Positive', score: 0.5 });
  assert.equal(roles.customer!.sentiment, { label: 'Mostly Negative', score: -0.25 });
  assert.is(roleSummary(call.map((u) => ({ ...u, metadata: { channel: u.metadata.channel, uttid: u.metadata.uttid } }))), undefined);
});

test.run();
