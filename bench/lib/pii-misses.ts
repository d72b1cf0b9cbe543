/**
 * Why bench/pii.ts's name and email words were missed (`--misses`): each entity word left unredacted
 * falls in one category, tested in this order:
 * - `cue missed`: the ASR did not hear what marks the entity — no window of its topic covers the word
 *   (the agent's question or "my name is" garbled) and, for a name in passing, no relation word or
 *   title right before it and no "this is" before the agent's own name;
 * - `garbled`: the word resembles no word of what was said (letters: normalized edit distance over
 *   half the length, e.g. "glove" for "icloud", "built" for "boateng");
 * - `rule gap`: the cue was heard and the word is readable, and still no rule took it.
 * Entities the ASR lost entirely (no word left in their span) are counted apart: they are in no recall.
 */
import { buildStreams, type StreamToken } from '../../src/redact/digit-runs.js';
import { findCues, findWindows } from '../../src/redact/pii/context.js';
import { RELATIONS, TITLES } from '../../src/redact/pii/lexicon.js';
import type { Utterance } from '../../src/types.js';
import type { EntityKind } from './pii-calls.js';

export interface MissEntity {
  kind: EntityKind;
  channel: number;
  start: number;
  end: number;
  /** What was said (the script's text). */
  text: string;
}

export type MissCategory = 'cue missed' | 'garbled' | 'rule gap';

export interface MissTally {
  /** Missed words by category, and the words of entities counted. */
  missed: Record<MissCategory, number>;
  words: number;
  /** Entities with no word left in their span, of all entities. */
  lost: number;
  entities: number;
  /** A few examples per category: "what was said → what the ASR wrote (missed words in brackets)". */
  examples: Record<MissCategory, string[]>;
}

export const emptyTally = (): MissTally => ({
  missed: { 'cue missed': 0, garbled: 0, 'rule gap': 0 },
  words: 0,
  lost: 0,
  entities: 0,
  examples: { 'cue missed': [], garbled: [], 'rule gap': [] },
});

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

/** The ASR word reads as a word of what was said (a letter said for a letter, "cole" for "cole", "weather" for "weber"). */
export function readable(word: string, said: readonly string[]): boolean {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w === '') return false;
  return said.some((s) => (s.length === 1 ? w === s || w.length <= 3 : editDistance(w, s) <= Math.max(s.length, w.length) / 2));
}

/** Adds the misses of `kind` among one call's `entities` (redacted utterances `red`, as the ASR gave them `asr`). */
export function tallyMisses(t: MissTally, kind: EntityKind, entities: readonly MissEntity[], asr: readonly Utterance[], red: readonly Utterance[]): void {
  const streams = buildStreams(asr);
  const windows = findWindows(streams, findCues(streams));
  for (const ent of entities.filter((e) => e.kind === kind)) {
    t.entities++;
    const stream = streams.find((s) => s.channel === ent.channel);
    const inside = (x: { start: number; end: number }) => (x.start + x.end) / 2 >= ent.start - 0.1 && (x.start + x.end) / 2 <= ent.end + 0.1;
    const tokens = (stream?.tokens ?? []).map((tok, i) => [tok, i] as const).filter(([tok]) => inside(tok));
    if (tokens.length === 0) {
      t.lost++;
      continue;
    }
    t.words += tokens.length;
    const said = ent.text.split(' ');
    const missedWords: string[] = [];
    for (const [tok, i] of tokens) {
      if (red[tok.u]!.events[tok.e]!.redacted) continue;
      const c = category(tok, i, stream!.tokens, kind, windows, said);
      t.missed[c]++;
      missedWords.push(`${c}:${tok.key}`);
    }
    if (missedWords.length) {
      const c = missedWords[0]!.split(':')[0] as MissCategory;
      const shown = tokens.map(([tok]) => (red[tok.u]!.events[tok.e]!.redacted ? tok.key : `[${tok.key}]`)).join(' ');
      if (t.examples[c].length < Number(process.env.MISS_EXAMPLES ?? 6)) t.examples[c].push(`"${ent.text}" → ${shown}`);
    }
  }
}

function category(tok: StreamToken, i: number, t: readonly StreamToken[], kind: EntityKind, windows: ReturnType<typeof findWindows>, said: readonly string[]): MissCategory {
  const windowed = windows.some((w) => w.topic === kind && w.stream.tokens === t && i >= w.first && i <= w.last);
  // A name in passing: a relation word or title before it ("my husband …"), "this is" before the agent's name.
  let k = i;
  while (k > 0 && t[k - 1]!.u === tok.u && !RELATIONS.has(t[k - 1]!.key) && !TITLES.has(t[k - 1]!.key) && i - k < 3) k--;
  const introduced = k > 0 && (RELATIONS.has(t[k - 1]!.key) || TITLES.has(t[k - 1]!.key) || (t[k - 1]!.key === 'is' && t[k - 2]?.key === 'this'));
  if (!windowed && !introduced) return 'cue missed';
  return readable(tok.key, said) ? 'rule gap' : 'garbled';
}
