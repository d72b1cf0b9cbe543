/**
 * Generated two-party calls whose agent follows a script, for the roles bench: each party's utterances as
 * a recogniser would give them (word times, lower case), with recognition errors (words dropped or
 * replaced at `wer`), the agent on a random channel (stereo) or as a random speaker label (diarized mono),
 * and who speaks first random (the customer first in a third of them: "hello?" on an outbound call or
 * after a transfer). The agent's lines are drawn from script templates — some with no built-in phrase at
 * all — and the customer's from reasons and answers.
 */
import type { Utterance } from '../../src/types.js';
import { prng } from './corpus.js';

const GREETINGS = [
  'thank you for calling acme this is dana how can i help you today',
  'thanks for calling acme support my name is lee how may i help you',
  'good morning acme billing this is sam speaking what can i do for you',
  'hi you have reached acme this call may be recorded for quality and training how can i assist you',
  'acme customer care this is jo speaking',
  'hello this is pat from acme',
];
const AGENT_MIDDLE = [
  'can i have your account number please', 'let me check that for you', 'okay bear with me one second',
  'could you confirm your date of birth', 'i can help you with that', 'thank you for holding',
  'let me pull up your account', 'i see the charge here', 'for security purposes can you verify your address',
  'i apologize for the inconvenience', 'that has been updated now', 'sure one moment',
];
const AGENT_CLOSING = ['is there anything else i can help you with today', 'have a great day', 'thanks for your patience bye now', 'alright you are all set take care'];
const CUSTOMER = [
  "hi i'm calling about my bill", 'yes i want to cancel my subscription', 'i was charged twice this month',
  "it's four five one two", 'sure it is the twelfth of may', 'okay', 'yeah', 'no that was all thanks',
  'my internet keeps dropping', 'i have a question about my order', 'can you help me change my plan', 'right',
  'thank you', 'sounds good', 'hello', 'hi there',
];

export interface ScriptedCall {
  utterances: Utterance[];
  nchannels: number;
  /** The agent's party: a channel number as a string (stereo) or a speaker label (mono). */
  agent: string;
}

function garble(words: string[], wer: number, rand: () => number): string[] {
  const out: string[] = [];
  for (const w of words) {
    const r = rand();
    if (r < wer / 2) continue; // dropped
    out.push(r < wer ? ['the', 'a', 'uh', 'and', 'to', 'in'][Math.floor(rand() * 6)]! : w); // replaced
  }
  return out.length ? out : words.slice(0, 1);
}

export function scriptedCall(seed: number, o: { stereo: boolean; wer?: number } = { stereo: true }): ScriptedCall {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const agentIsA = rand() < 0.5;
  const lines: { agent: boolean; text: string }[] = [];
  if (rand() < 1 / 3) lines.push({ agent: false, text: pick(['hello', 'hi', 'hello is anyone there']) });
  lines.push({ agent: true, text: pick(GREETINGS) });
  const turns = 3 + Math.floor(rand() * 6);
  for (let i = 0; i < turns; i++) {
    lines.push({ agent: false, text: pick(CUSTOMER) });
    lines.push({ agent: true, text: rand() < 0.7 ? pick(AGENT_MIDDLE) : pick(['okay', 'right', 'i see', 'sure']) });
  }
  lines.push({ agent: false, text: pick(CUSTOMER) });
  if (rand() < 0.8) lines.push({ agent: true, text: pick(AGENT_CLOSING) });
  let t = 0.5;
  const utterances = lines.map((l, uttid): Utterance => {
    const words = garble(l.text.split(' '), o.wer ?? 0.15, rand);
    const party = l.agent === agentIsA ? 0 : 1;
    const start = t;
    const events = words.map((word, i) => ({ word, start: start + i * 0.32, end: start + i * 0.32 + 0.28, confidence: 0.9 }));
    t = events.at(-1)!.end + 0.3 + rand();
    const metadata = o.stereo ? { channel: party, uttid } : { channel: 0, uttid, speaker: '' };
    return { start, end: events.at(-1)!.end, confidence: 0.9, metadata, events };
  });
  // diarized mono: speakers named in order of first appearance
  const agentParty = agentIsA ? 0 : 1;
  if (!o.stereo) {
    const names = new Map<number, string>();
    lines.forEach((l) => {
      const party = l.agent === agentIsA ? 0 : 1;
      if (!names.has(party)) names.set(party, `S${names.size + 1}`);
    });
    utterances.forEach((u, i) => (u.metadata.speaker = names.get(lines[i]!.agent === agentIsA ? 0 : 1)));
    return { utterances, nchannels: 1, agent: names.get(agentParty)! };
  }
  return { utterances, nchannels: 2, agent: String(agentParty) };
}
