/**
 * `compromise` (npm, MIT; lexicon + rule tagger, docs/pii.md) as a hint for names: per utterance of a
 * stream, which words it tags as a person (#Person, #FirstName, #LastName) and which it does not know
 * at all (rare words, most of them names on a call). Loaded on first use (about 1 s), synchronously,
 * so that detection stays a pure, synchronous function a live call can run on its words so far.
 */
import { createRequire } from 'node:module';
import type { Stream } from '../digit-runs.js';

interface Term {
  normal: string;
  tags: string[];
  offset?: { start: number; length: number };
}
interface Doc {
  json(o?: { offset: boolean }): Array<{ terms: Term[] }>;
}
type Nlp = ((text: string) => Doc) & { model(): { one: { lexicon: Record<string, string> } } };

let nlp: Nlp | undefined;
function tagger(): Nlp {
  nlp ??= createRequire(import.meta.url)('compromise/two') as Nlp;
  return nlp;
}

export interface PersonTags {
  persons: Set<number>;
  unknown: Set<number>;
}

const PERSON = new Set(['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName']);
const NOUN = new Set(['Noun', 'Singular', 'ProperNoun']);
/** Endings of ordinary words the lexicon leaves to its rules ("payment", "shipping", "darkness"). */
const COMMON_SUFFIX = /(ing|ment|tion|sion|ness|ity|ly|ed|able|ible|ful|less|ous|ive|ance|ence|s)$/;

/** One utterance's tags, as indexes into its words; kept per text (a live call tags its call so far again at every release). */
interface Tagged {
  persons: number[];
  unknown: number[];
}
const CACHE_SIZE = 4000;
const cache = new Map<string, Tagged>();

/** Tags the words of one utterance (joined by spaces; each term's offset maps back to its word). */
function tagWords(keys: readonly string[]): Tagged {
  const text = keys.join(' ');
  const hit = cache.get(text);
  if (hit) return hit;
  const n = tagger();
  const lexicon = n.model().one.lexicon;
  const starts: number[] = [];
  let at = 0;
  for (const k of keys) {
    starts.push(at);
    at += k.length + 1;
  }
  const out: Tagged = { persons: [], unknown: [] };
  for (const s of n(text).json({ offset: true })) {
    for (const term of s.terms) {
      if (!term.offset || term.normal === '') continue;
      let k = starts.length - 1;
      while (k > 0 && starts[k]! > term.offset.start) k--;
      if (term.tags.some((x) => PERSON.has(x))) out.persons.push(k);
      const key = keys[k]!;
      if (!(key in lexicon) && !/\d/.test(key) && key.length > 2 && !COMMON_SUFFIX.test(key) && term.tags.every((x) => NOUN.has(x))) out.unknown.push(k);
    }
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(text, out);
  return out;
}

/** Person and unknown-word token indexes of one stream, tagged one utterance at a time. */
export function personTags(stream: Stream): PersonTags {
  const out: PersonTags = { persons: new Set(), unknown: new Set() };
  const t = stream.tokens;
  for (let i = 0; i < t.length; ) {
    let j = i;
    while (j + 1 < t.length && t[j + 1]!.u === t[i]!.u) j++;
    const tagged = tagWords(t.slice(i, j + 1).map((x) => x.key));
    for (const k of tagged.persons) out.persons.add(i + k);
    for (const k of tagged.unknown) out.unknown.add(i + k);
    i = j + 1;
  }
  return out;
}
