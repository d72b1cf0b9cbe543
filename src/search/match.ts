/**
 * Exact, backend-independent matching of a terms AST against one transcript. Backends use their
 * engine to find candidates and count; this module defines (and computes) what a hit is, so that
 * SQLite and Elasticsearch return identical hits, snippets and scores.
 */
import { timeTokens } from '../readable/text-timing.js';
import { isSpoken } from '../text/event-kind.js';
import type { TranscriptDocument, Utterance } from '../types.js';
import type { Hit, SearchQuery } from './transcript-index.js';
import type { CpuBudget } from './budget.js';
import { compileGlob, type Glob } from './glob.js';
import { isWildcard, normalizeWord, redactedToken, type QueryNode } from './query.js';
import { wordStems, wordStem } from './word-forms.js';

/** One channel's word sequence: utterances in time order, fillers and punctuation-only words dropped. */
export interface ChannelWords {
  channel: number;
  /** normalizeWord() of each word: what is indexed and matched. */
  norm: string[];
  /**
   * What snippets show: the words of the utterance's readable `text` that each word begins ("$25.50,"
   * on "twenty", '' on "five", "dollars"… which it stands for too); the word itself in a transcript
   * without `text`.
   */
  words: string[];
  starts: number[];
  ends: number[];
  /** Each word's speaker (`metadata.speaker` of its utterance) when the transcript is diarized. */
  speakers?: (string | undefined)[];
  /** Each word's role (`metadata.role`: agent, customer) when the call's roles are known. */
  roles?: (string | undefined)[];
}

const SNIPPET_CONTEXT_WORDS = 3;
const MAX_HITS_PER_ROW = 100;

/** Splits a document into per-channel word sequences, ordered by channel number. */
export function channelWords(doc: TranscriptDocument): ChannelWords[] {
  const byChannel = new Map<number, ChannelWords>();
  const utts = [...(doc.utterances ?? [])].sort((a, b) => a.start - b.start || (a.metadata?.uttid ?? 0) - (b.metadata?.uttid ?? 0));
  for (const u of utts) {
    if (u.metadata?.crosstalk) continue; // another channel's speech heard on this one (crosstalk=keep) is not searched
    const channel = u.metadata?.channel ?? 0;
    let cw = byChannel.get(channel);
    if (!cw) byChannel.set(channel, (cw = { channel, norm: [], words: [], starts: [], ends: [] }));
    const speaker = typeof u.metadata?.speaker === 'string' ? u.metadata.speaker : undefined;
    const role = typeof u.metadata?.role === 'string' ? u.metadata.role : undefined;
    const shown = displayWords(u);
    let pending = '';
    for (const [i, e] of (u.events ?? []).entries()) {
      const display = shown ? [pending, shown[i]].filter(Boolean).join(' ') : e.word;
      pending = display;
      if (typeof e.word !== 'string' || !isSpoken(e)) continue;
      // A redacted word is indexed as its kind (`[NAME]` finds it), never as what was said.
      const n = e.redacted ? redactedToken(e.redacted) : normalizeWord(e.word);
      if (n === '') continue;
      pending = '';
      cw.norm.push(n);
      cw.words.push(display);
      cw.starts.push(e.start);
      cw.ends.push(e.end);
      if (speaker !== undefined) (cw.speakers ??= new Array<string | undefined>(cw.norm.length - 1).fill(undefined)).push(speaker);
      else cw.speakers?.push(undefined);
      if (role !== undefined) (cw.roles ??= new Array<string | undefined>(cw.norm.length - 1).fill(undefined)).push(role);
      else cw.roles?.push(undefined);
    }
  }
  return [...byChannel.values()].sort((a, b) => a.channel - b.channel);
}

/** For each event of an utterance with `text`, the text's words it begins (src/readable/text-timing.ts), '' for the others. */
function displayWords(u: Utterance): string[] | undefined {
  if (typeof u.text !== 'string' || u.text === '' || !Array.isArray(u.events)) return undefined;
  const shown = u.events.map(() => '');
  for (const t of timeTokens(u.text, u.events)) {
    const head = t.events![0];
    shown[head] = shown[head] ? `${shown[head]} ${t.text}` : t.text;
  }
  return shown;
}

/** The transcript's speakers in order of first appearance. */
export function speakersOf(all: ChannelWords[]): string[] {
  const first = new Map<string, number>();
  for (const cw of all) cw.speakers?.forEach((s, i) => s !== undefined && (first.get(s) ?? Infinity) > cw.starts[i]! && first.set(s, cw.starts[i]!));
  return [...first].sort((a, b) => a[1] - b[1]).map(([s]) => s);
}

/** Each channel's words reduced to those whose label (`labels(cw)[i]`) is `value`. */
function wordsLabelled(all: ChannelWords[], labels: (cw: ChannelWords) => (string | undefined)[] | undefined, value: string): ChannelWords[] {
  return all
    .filter((cw) => labels(cw)?.includes(value))
    .map((cw) => {
      const keep = labels(cw)!.map((s, i) => (s === value ? i : -1)).filter((i) => i >= 0);
      const pick = <T>(xs: T[]) => keep.map((i) => xs[i]!);
      const out: ChannelWords = { channel: cw.channel, norm: pick(cw.norm), words: pick(cw.words), starts: pick(cw.starts), ends: pick(cw.ends) };
      if (cw.speakers) out.speakers = pick(cw.speakers);
      if (cw.roles) out.roles = pick(cw.roles);
      return out;
    });
}

/**
 * One speaker's words only (search option `speaker`): each channel's sequence reduced to that speaker's
 * words, so that phrases and proximity match within what that speaker said.
 */
export function speakerWords(all: ChannelWords[], speaker: string): ChannelWords[] {
  return wordsLabelled(all, (cw) => cw.speakers, speaker);
}

/** One role's words only (search option `role`), as speakerWords. */
export function roleWords(all: ChannelWords[], role: string): ChannelWords[] {
  return wordsLabelled(all, (cw) => cw.roles, role);
}

/** Whether the query restricts matches to a part of each transcript (a speaker or a role): matched in the app. */
export const byPart = (q: Pick<SearchQuery, 'speaker' | 'role'>): boolean => q.speaker !== undefined || q.role !== undefined;

/** The words the query's terms are matched against: the speaker's and/or the role's when it names them. */
export function queryWords(all: ChannelWords[], q: Pick<SearchQuery, 'speaker' | 'role'>): ChannelWords[] {
  const mine = q.speaker === undefined ? all : speakerWords(all, q.speaker);
  return q.role === undefined ? mine : roleWords(mine, q.role);
}

const patterns = new Map<string, Glob | string>();

/** A query word as a matcher: the word itself, or a Glob for `*` / `?` wildcards (glob.ts: no backtracking). */
function pattern(word: string): Glob | string {
  let p = patterns.get(word);
  if (p === undefined) {
    p = isWildcard(word) ? compileGlob(word) : word;
    if (patterns.size > 10_000) patterns.clear();
    patterns.set(word, p);
  }
  return p;
}

/** What the matching loops report their work to (a search's CpuBudget); absent: unbounded. */
type Spend = Pick<CpuBudget, 'spend'> | undefined;

const stemCache = new WeakMap<ChannelWords, string[]>();

/** The stems of a channel's words (word-forms.ts), computed once per channel object. */
function channelStems(cw: ChannelWords): string[] {
  let stems = stemCache.get(cw);
  if (!stems) stemCache.set(cw, (stems = wordStems(cw.norm)));
  return stems;
}

/** Does a word leaf match by its word forms (typed without quotes, no wildcard)? */
export function matchesForms(node: { word: string; exact?: true }): boolean {
  return !node.exact && !isWildcard(node.word);
}

/** One comparison, its cost reported in characters examined (a wildcard test reads the word). */
function matches(p: Glob | string, token: string, budget: Spend): boolean {
  if (typeof p === 'string') {
    budget?.spend(1);
    return p === token;
  }
  budget?.spend(1 + token.length);
  return p.test(token);
}

/** Word-index spans [first, last] of a leaf's occurrences in one channel: non-overlapping, left to right. */
function leafSpans(node: QueryNode, cw: ChannelWords, budget?: Spend): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const n = cw.norm.length;
  if (node.type === 'word' && matchesForms(node)) {
    const stem = wordStem(node.word);
    const stems = channelStems(cw);
    budget?.spend(n);
    for (let i = 0; i < n; i++) if (stems[i] === stem) spans.push([i, i]);
  } else if (node.type === 'word') {
    const p = pattern(node.word);
    for (let i = 0; i < n; i++) if (matches(p, cw.norm[i]!, budget)) spans.push([i, i]);
  } else if (node.type === 'phrase') {
    const ps = node.words.map(pattern);
    const k = ps.length;
    const first = ps[0]!;
    for (let i = 0; i + k <= n; i++) {
      if (!matches(first, cw.norm[i]!, budget)) continue;
      let j = 1;
      while (j < k && matches(ps[j]!, cw.norm[i + j]!, budget)) j++;
      if (j === k) {
        spans.push([i, i + k - 1]);
        i += k - 1;
      }
    }
  } else if (node.type === 'near') {
    // The window ending at e: for every word its latest occurrence at or before e. It matches when at
    // most `distance` words lie between its first and last word (FTS5 NEAR semantics).
    const ps = node.words.map(pattern);
    const latest = ps.map(() => -1);
    let lastEnd = -1;
    for (let e = 0; e < n; e++) {
      let hit = false;
      ps.forEach((p, k) => {
        if (matches(p, cw.norm[e]!, budget)) {
          latest[k] = e;
          hit = true;
        }
      });
      if (!hit) continue;
      const s = Math.min(...latest);
      if (s < 0 || s <= lastEnd || e - s - 1 > node.distance) continue;
      spans.push([s, e]);
      lastEnd = e;
    }
  }
  return spans;
}

function inChannels(all: ChannelWords[], channel: number | undefined): ChannelWords[] {
  return channel === undefined ? all : all.filter((c) => c.channel === channel);
}

/** Does the transcript match the query (restricted to `channel` when given)? */
export function evaluate(node: QueryNode, all: ChannelWords[], channel?: number, budget?: Spend): boolean {
  const chans = inChannels(all, channel);
  const test = (q: QueryNode): boolean => {
    switch (q.type) {
      case 'and':
        return q.children.every(test);
      case 'or':
        return q.children.some(test);
      case 'not':
        return !test(q.child);
      default:
        return chans.some((cw) => leafSpans(q, cw, budget).length > 0);
    }
  };
  return test(node);
}

/** The leaves that are not under a NOT: those whose occurrences are hits. */
function positiveLeaves(node: QueryNode, negated = false, out: QueryNode[] = []): QueryNode[] {
  if (node.type === 'not') positiveLeaves(node.child, !negated, out);
  else if (node.type === 'and' || node.type === 'or') for (const c of node.children) positiveLeaves(c, negated, out);
  else if (!negated) out.push(node);
  return out;
}

const ms = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Hits of a matching transcript: every occurrence of every non-excluded word, phrase and proximity
 * group (restricted to `channel` when given), deduplicated, ordered by start time, channel, end.
 * score = the number of hits; `hits` holds the first MAX_HITS_PER_ROW of them.
 */
export function findHits(node: QueryNode | undefined, all: ChannelWords[], channel?: number, budget?: Spend): { score: number; hits: Hit[] } {
  if (!node) return { score: 0, hits: [] };
  const leaves = positiveLeaves(node);
  const found: Array<{ cw: ChannelWords; s: number; e: number }> = [];
  for (const cw of inChannels(all, channel)) {
    const seen = new Set<string>();
    for (const leaf of leaves) {
      for (const [s, e] of leafSpans(leaf, cw, budget)) {
        const key = `${s}:${e}`;
        if (!seen.has(key)) {
          seen.add(key);
          found.push({ cw, s, e });
        }
      }
    }
  }
  found.sort((a, b) => a.cw.starts[a.s]! - b.cw.starts[b.s]! || a.cw.channel - b.cw.channel || a.s - b.s || a.e - b.e);
  const hits = found.slice(0, MAX_HITS_PER_ROW).map(({ cw, s, e }) => {
    const hit: Hit = {
      channel: cw.channel,
      start: ms(cw.starts[s]!),
      end: ms(cw.ends[e]!),
      text: snippet(cw.words, Math.max(0, s - SNIPPET_CONTEXT_WORDS), e + SNIPPET_CONTEXT_WORDS),
    };
    const speaker = cw.speakers?.[s];
    if (speaker !== undefined) hit.speaker = speaker;
    const role = cw.roles?.[s];
    if (role !== undefined) hit.role = role;
    return hit;
  });
  return { score: found.length, hits };
}

/** The shown words [from, to]: from the start of the text word that covers `from` (a number's later words show nothing). */
export function snippet(words: readonly string[], from: number, to: number): string {
  while (from > 0 && words[from] === '') from--;
  return words.slice(from, to + 1).filter((w) => w !== '').join(' ');
}

/** A metadata value as the text `meta.<field>=value` compares against; undefined: not searchable. */
export function metaText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Each word's speaker as runs, for storage: [[first word index, speaker or null], …]. */
export type SpeakerRuns = Array<[number, string | null]>;

export function speakerRuns(speakers: (string | undefined)[]): SpeakerRuns {
  const runs: SpeakerRuns = [];
  speakers.forEach((s, i) => {
    if (i === 0 || s !== speakers[i - 1]) runs.push([i, s ?? null]);
  });
  return runs;
}

export function fromSpeakerRuns(runs: SpeakerRuns, n: number): (string | undefined)[] {
  const out = new Array<string | undefined>(n).fill(undefined);
  runs.forEach(([from, s], k) => {
    const to = k + 1 < runs.length ? runs[k + 1]![0] : n;
    for (let i = from; i < to; i++) out[i] = s ?? undefined;
  });
  return out;
}

/** Does one speaker's part of a transcript (speakerWords) match the query's terms, or hold its channel? */
export function speakerMatches(query: SearchQuery, mine: ChannelWords[]): boolean {
  if (mine.length === 0) return false;
  if (query.terms) return evaluate(query.terms, mine, query.channel, query.budget);
  return query.channel === undefined || mine.some((c) => c.channel === query.channel);
}
