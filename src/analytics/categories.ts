/**
 * Categories (docs/analytics.md, "Categories"): named rules in the `terms` language, per company, optionally limited to
 * an organization, a channel or a speaker. A call is in a category exactly when the search with the
 * same terms (and `channel=`, in that org) finds it: the rule is parsed by the search parser
 * (src/search/query.ts) and evaluated by the search matcher (src/search/match.ts `evaluate`), the
 * code that defines what both indexes return. A speaker limit keeps only that speaker's utterances; a role
 * limit only the agent's or the customer's words, and a call whose roles are not known is in no
 * role-limited category ("the agent did not say X", `-"X"` with role agent, needs an agent).
 */
import { voxdexError, type VoxdexError } from '../errors.js';
import type { Logger } from '../log.js';
import { categoryBudget, pacer, type CpuBudget } from '../search/budget.js';
import { invalidParameter, isShortName } from '../is.js';
import { CATEGORY_NAME } from '../search/analytics-fields.js';
import { type ChannelWords, channelWords, evaluate, roleWords } from '../search/match.js';
import { MAX_TERMS_LENGTH, parseTerms, type QueryNode } from '../search/query.js';
import type { CategoryRule, CategoryStore } from '../store/category-store.js';
import type { TranscriptDocument } from '../types.js';

export const MAX_CATEGORIES_PER_COMPANY = 500;
const SPEAKER = /^[A-Za-z0-9_.-]{1,32}$/;

export interface CompiledCategory {
  name: string;
  node: QueryNode;
  org?: string;
  channel?: number;
  speaker?: string;
  role?: 'agent' | 'customer';
}

/** A call as the matcher sees it: its org, its words per channel, and (for speaker limits) its document. */
export interface CategoryCall {
  org: string;
  words: ChannelWords[];
  document?: TranscriptDocument;
}

/** Throws BAD_NAME unless `name` is a category name (a short name). */
export function checkCategoryName(name: unknown): string {
  if (typeof name !== 'string' || !CATEGORY_NAME.test(name)) {
    throw invalidParameter('category name', 'a name of 1-64 characters A-Z a-z 0-9 _ . - that starts with a letter, a digit or _ and holds a letter or digit', name, 'BAD_NAME');
  }
  return name;
}

/**
 * Validates a rule as sent (`{"terms", "org"?, "channel"?, "speaker"?}`; `form`: the values are text,
 * from form fields or the command line); a syntax error in `terms`
 * is the search's BAD_QUERY naming the position of the bad character.
 */
export function parseCategoryRule(body: unknown, o: { form?: boolean } = {}): CategoryRule {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw voxdexError('BAD_ARGUMENT', 'Expected a JSON object {"terms": "...", "org"?: "ORG", "channel"?: 0, "speaker"?: "S1", "role"?: "agent"} as the body.');
  }
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!['terms', 'org', 'channel', 'speaker', 'role'].includes(key)) {
      throw voxdexError('UNKNOWN_PARAMETER', `Unknown field ${JSON.stringify(key)} in the category; accepted: terms, org, channel, speaker, role.`);
    }
  }
  if (typeof b.terms !== 'string' || b.terms.trim() === '' || b.terms.length > MAX_TERMS_LENGTH) {
    throw invalidParameter('terms', `a rule in the terms language of 1 to ${MAX_TERMS_LENGTH} characters`, b.terms);
  }
  parseTerms(b.terms);
  const rule: CategoryRule = { terms: b.terms };
  if (b.org !== undefined) {
    if (!isShortName(b.org)) throw invalidParameter('org', 'a short name of 1-64 characters A-Z a-z 0-9 _ . -', b.org, 'BAD_NAME');
    rule.org = b.org;
  }
  if (b.channel !== undefined) {
    // A form field is text; JSON must give a number.
    const n = o.form && typeof b.channel === 'string' && /^\d{1,3}$/.test(b.channel) ? Number(b.channel) : b.channel;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 255) throw invalidParameter('channel', 'an integer between 0 and 255', b.channel);
    rule.channel = n;
  }
  if (b.speaker !== undefined) {
    if (typeof b.speaker !== 'string' || !SPEAKER.test(b.speaker)) throw invalidParameter('speaker', 'a speaker label such as S1 or C0', b.speaker);
    rule.speaker = b.speaker;
  }
  if (b.role !== undefined) {
    if (b.role !== 'agent' && b.role !== 'customer') throw invalidParameter('role', 'agent or customer', b.role);
    rule.role = b.role;
  }
  return rule;
}

export function compileCategory(name: string, rule: CategoryRule): CompiledCategory {
  const node = parseTerms(rule.terms);
  if (!node) throw invalidParameter('terms', 'a non-blank rule', rule.terms);
  const out: CompiledCategory = { name, node };
  if (rule.org !== undefined) out.org = rule.org;
  if (rule.channel !== undefined) out.channel = rule.channel;
  if (rule.speaker !== undefined) out.speaker = rule.speaker;
  if (rule.role !== undefined) out.role = rule.role;
  return out;
}

/** One speaker's words per channel (the document's utterances of that speaker only). */
export function speakerWords(doc: TranscriptDocument, speaker: string): ChannelWords[] {
  return channelWords({ ...doc, utterances: (doc.utterances ?? []).filter((u) => (u.metadata as { speaker?: string } | undefined)?.speaker === speaker) });
}

/** Does any category need the document (a speaker limit)? */
export function needsDocument(categories: readonly CompiledCategory[]): boolean {
  return categories.some((c) => c.speaker !== undefined);
}

/** Does the call match this category? (Its matching work reported to `budget`, which may refuse it.) */
export function matchesCategory(c: CompiledCategory, call: CategoryCall, bySpeaker?: Map<string, ChannelWords[]>, budget?: CpuBudget): boolean {
  if (c.org !== undefined && c.org !== call.org) return false;
  let words = call.words;
  if (c.speaker !== undefined) {
    if (!call.document) throw new Error(`category ${c.name} is limited to a speaker: the call's document is needed`);
    words = bySpeaker?.get(c.speaker) ?? speakerWords(call.document, c.speaker);
    bySpeaker?.set(c.speaker, words);
  }
  if (c.role !== undefined) {
    words = roleWords(words, c.role);
    if (words.length === 0) return false;
  }
  return evaluate(c.node, words, c.channel, budget);
}

/** The names of the categories the call is in, sorted. */
export function scoreCall(categories: readonly CompiledCategory[], call: CategoryCall): string[] {
  const bySpeaker = new Map<string, ChannelWords[]>();
  return categories.filter((c) => matchesCategory(c, call, bySpeaker)).map((c) => c.name).sort();
}

/** How categories are scored where the server must stay responsive (at indexing, in the backfill). */
export interface ScoreBudget {
  /** CPU milliseconds one category's rule may take on one call (VOXDEX_CATEGORY_BUDGET_MS). */
  budgetMs: number;
  /** A rule over its budget on this call: it is counted as not matching; say so (no words of the call). */
  onOverBudget(category: CompiledCategory, err: VoxdexError): void;
}

/**
 * scoreCall where the server must stay responsive: each category's rule gets its own CPU budget on
 * this call (one over it counts as not matching: a costly rule cannot hold the others or the server),
 * and the event loop answers what waits between rules.
 */
export async function scoreCallPaced(categories: readonly CompiledCategory[], call: CategoryCall, b: ScoreBudget, pace: Pick<CpuBudget, 'pace'> = pacer()): Promise<string[]> {
  const bySpeaker = new Map<string, ChannelWords[]>();
  const names: string[] = [];
  for (const c of categories) {
    await pace.pace();
    const budget = categoryBudget(c.name, b.budgetMs);
    try {
      if (matchesCategory(c, call, bySpeaker, budget)) names.push(c.name);
    } catch (err) {
      if ((err as VoxdexError).code !== 'QUERY_TOO_EXPENSIVE') throw err;
      b.onOverBudget(c, err as VoxdexError);
    }
  }
  return names.sort();
}

/** Categories of a finished document at indexing (src/stages: the index stage). */
export function scoreDocument(categories: readonly CompiledCategory[], org: string, doc: TranscriptDocument): string[] {
  return scoreCall(categories, { org, words: channelWords(doc), document: doc });
}

/**
 * Scores a finished document against its company's categories at indexing (the rules read from the
 * store each time, so a change applies to the next call at once; compiled rules cached by version),
 * each rule within its CPU budget (scoreCallPaced; default VOXDEX_CATEGORY_BUDGET_MS's 100 ms).
 */
export function categorizer(
  store: Pick<CategoryStore, 'list'>,
  o: { budgetMs?: number; log?: Logger } = {},
): (destination: { company: string; org: string }, doc: TranscriptDocument) => Promise<string[]> {
  const compiled = new Map<string, CompiledCategory>();
  return async (destination, doc) => {
    const rules = (await store.list(destination.company)).map((c) => {
      const key = `${c.company}\u0000${c.name}\u0000${c.version}`;
      let cc = compiled.get(key);
      if (!cc) {
        if (compiled.size > 10_000) compiled.clear();
        compiled.set(key, (cc = compileCategory(c.name, c)));
      }
      return cc;
    });
    if (rules.length === 0) return [];
    const onOverBudget = (c: CompiledCategory, err: VoxdexError) =>
      o.log?.warn({ company: destination.company, category: c.name, requestid: doc.requestid, err: err.message }, 'category rule over its CPU budget on a call: counted as not matching');
    return scoreCallPaced(rules, { org: destination.org, words: channelWords(doc), document: doc }, { budgetMs: o.budgetMs ?? 100, onOverBudget });
  };
}
