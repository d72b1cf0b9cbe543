/**
 * Roles: which party of a call is the agent and which the customer (`metadata.role` on every utterance
 * of a call with several channels or several speakers). Pure.
 *
 * A party is a speaker when the call is diarized (`metadata.speaker`), else a channel. The company's
 * setting decides when it has one (`voxdex company set CO --agent-channel N`: that channel's utterances
 * are the agent's, the other channels' the customer's). Otherwise what is said decides: each party scores
 * the agent's script phrases it says ("thank you for calling", "how can I help", "is there anything
 * else", the company's own phrases, `--agent-phrases`) minus the customer's phrases ("I'm calling about",
 * "I want to cancel"); a phrase in the party's first 30 s counts double (greetings open a call). The agent
 * is the party with the best score when it is above 0 and above every other party's; the others are
 * customers. No phrase, or a tie: no roles (nothing is guessed).
 *
 * Roles are a per-utterance part of the stage table (src/pipeline/stage-table.ts): over a file, the
 * decision is the whole call's; on a live call, each utterance gets its role as it ends, from the call
 * so far (with the agent channel set, at once; by phrases, once they have been heard).
 */
import type { RequestOptions, Utterance, UtterancePart } from '../types.js';

export type Role = 'agent' | 'customer';

export const AGENT_PHRASES: readonly string[] = [
  'thank you for calling', 'thanks for calling', 'thank you for contacting', 'how can i help', 'how may i help',
  'how can i assist', 'how may i assist', 'what can i do for you', 'is there anything else', 'anything else i can',
  'you are speaking with', "you're speaking with", 'this call may be recorded', 'this call is being recorded',
  'recorded for quality', 'quality and training', 'on a recorded line', 'thank you for holding', 'thanks for holding',
  'thank you for your patience', 'bear with me', 'let me check', 'let me look', 'let me pull up', 'can i have your',
  'can i get your', 'could i have your', 'may i have your', 'can you confirm', 'could you confirm', 'can you verify',
  'for security purposes', 'have a great day', 'have a nice day', 'have a wonderful day', 'sorry for the inconvenience',
  'apologize for the inconvenience', 'i can help you with that', 'happy to help', 'let me transfer you',
  'you have reached', 'one moment', 'this is * speaking', 'this is * from', 'you are through to',
];

export const CUSTOMER_PHRASES: readonly string[] = [
  "i'm calling about", 'i am calling about', "i'm calling because", 'i am calling because', "i'm calling to",
  'i want to cancel', "i'd like to cancel", 'i would like to cancel', 'i have a question', 'i have a problem',
  'i was charged', 'i need help with', 'can you help me', "i've been waiting", "i've been on hold", 'speak to a manager',
  'speak to a supervisor', 'my bill is',
];

const EARLY_SEC = 30;

export interface RoleOptions {
  /** The company's agent channel (calls with several channels). */
  agentChannel?: number;
  /** The company's own agent phrases, added to AGENT_PHRASES. */
  agentPhrases?: readonly string[];
}

export interface RoleDecision {
  /** Role of each party (speaker or channel number as a string). */
  roles: Map<string, Role>;
  /** How it was decided. */
  by: 'setting' | 'phrases';
}

/** Lower case, apostrophes kept (and `*`, in a phrase), other punctuation to spaces, single spaces. */
export function normalizeText(s: string, phrase = false): string {
  return s
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .replace(phrase ? /[^\p{L}\p{N}'* ]+/gu : /[^\p{L}\p{N}' ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The party an utterance belongs to: its speaker when diarized, else its channel. */
export const partyOf = (u: Pick<Utterance, 'metadata'>): string => u.metadata.speaker ?? String(u.metadata.channel);

const patterns = new Map<string, RegExp>();

/** Whole-word occurrences of a normalised phrase (`*`: any one word) in normalised text. */
export function countPhrase(text: string, phrase: string): number {
  if (!phrase) return 0;
  let re = patterns.get(phrase);
  if (!re) {
    const body = phrase.split(' ').map((w) => (w === '*' ? "[^ ]+" : w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join(' ');
    patterns.set(phrase, (re = new RegExp(`(?<![^ ])${body}(?![^ ])`, 'g')));
  }
  return text.match(re)?.length ?? 0;
}

/** Each party's script score: agent phrases minus customer phrases, those in its first 30 s twice. */
export function scriptScores(utterances: readonly Utterance[], agentPhrases: readonly string[] = []): Map<string, number> {
  const agent = [...AGENT_PHRASES, ...agentPhrases.map((p) => normalizeText(p, true))];
  const customer = CUSTOMER_PHRASES.map((p) => normalizeText(p));
  const byParty = new Map<string, { early: string[]; late: string[]; first: number }>();
  for (const u of [...utterances].sort((a, b) => a.start - b.start)) {
    const key = partyOf(u);
    const p = byParty.get(key) ?? { early: [], late: [], first: u.start };
    byParty.set(key, p);
    const text = u.events.map((e) => e.word).join(' ');
    (u.start - p.first < EARLY_SEC ? p.early : p.late).push(text);
  }
  const scores = new Map<string, number>();
  for (const [key, p] of byParty) {
    const score = (text: string) => agent.reduce((s, ph) => s + countPhrase(text, ph), 0) - customer.reduce((s, ph) => s + countPhrase(text, ph), 0);
    scores.set(key, 2 * score(normalizeText(p.early.join(' '))) + score(normalizeText(p.late.join(' '))));
  }
  return scores;
}

/** The roles of a call's parties, or undefined when there is one party or no evidence. */
export function decideRoles(utterances: readonly Utterance[], nchannels: number, o: RoleOptions = {}): RoleDecision | undefined {
  const spoken = utterances.filter((u) => !u.metadata.crosstalk);
  const parties = [...new Set(spoken.map(partyOf))];
  // The company's setting says each channel's role before both parties have spoken (a live call's first words).
  if (o.agentChannel !== undefined && nchannels > 1 && parties.length > 0) {
    const roles = new Map<string, Role>();
    for (const u of spoken) roles.set(partyOf(u), u.metadata.channel === o.agentChannel ? 'agent' : 'customer');
    return { roles, by: 'setting' };
  }
  if (parties.length < 2) return undefined;
  const scores = scriptScores(spoken, o.agentPhrases);
  const ranked = parties.map((p) => [p, scores.get(p) ?? 0] as const).sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best || best[1] <= 0 || (second && second[1] >= best[1])) return undefined;
  return { roles: new Map(parties.map((p) => [p, p === best[0] ? 'agent' : 'customer'])), by: 'phrases' };
}

/** `metadata.role` on every utterance (new objects; utterances without a decided party are left as they are). */
export function withRoles<T extends Utterance>(utterances: T[], d: RoleDecision | undefined): T[] {
  if (!d) return utterances;
  return utterances.map((u) => {
    const role = u.metadata.crosstalk ? undefined : d.roles.get(partyOf(u));
    return role ? { ...u, metadata: { ...u.metadata, role } } : u;
  });
}

/** The options the decision reads. */
export function roleOptions(o: Pick<RequestOptions, 'agentChannel' | 'agentPhrases'>): RoleOptions {
  return { ...(o.agentChannel !== undefined ? { agentChannel: o.agentChannel } : {}), ...(o.agentPhrases ? { agentPhrases: o.agentPhrases } : {}) };
}

/** The stage table's roles part (after speakers, before redaction): `metadata.role` as the call so far decides it. */
export const rolesPart: UtterancePart = (u, _i, call) => withRoles([u], call.once(() => decideRoles(call.utterances, call.nchannels, roleOptions(call.options))))[0]!;
