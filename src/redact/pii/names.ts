/**
 * People's names (kind `name`). Evidence, strongest first:
 * - the answer to a name question ("can I have your name?" → the caller's next words) and the words
 *   after "my name is", "first/last name", "surname", "this is", "I'm" (a weak cue: only with a word
 *   the tagger calls a name or does not know);
 * - spelled letters ("s m i t h", "p as in peter"), anywhere: 3 or more letters in a row;
 * - a title ("mister", "doctor") or a relation ("my husband", "my manager") before a name-like word;
 * - `compromise`'s person tags (a first name, a surname), extended by an unknown word after them.
 * A name ends at a function word, a reply, a pause or its fourth word (not counting spelled letters).
 */
import type { Stream, StreamToken } from '../digit-runs.js';
import { FILLERS, NOT_A_NAME, RELATIONS, REPLIES, TITLES } from './lexicon.js';
import { continues, gap, isLetter, isSingleLetter, nameLike, piiRecognizer, SLOW_SPELL_GAP_SEC, spelledRun, type PiiSpan, type PiiView } from './spans.js';
import type { Recognizer } from '../recognizer.js';

/** Most words of one name (first, middle, last, a second surname), spelled letters not counted. */
const MAX_NAME_WORDS = 4;
/** A pause this long (seconds) ends a name. */
const NAME_PAUSE_SEC = 1.2;
/** Words that start a name given again ("no sorry, …", "actually …", "I mean …"). */
const CORRECTIONS = new Set(['no', 'sorry', 'actually', 'mean', 'rather', 'correction']);
/** Words of a question or answer around a name that are not part of it ("my name is", "it's", "the last name"). */
const PREAMBLE = new Set([...FILLERS, 'my', 'name', 'names', "name's", 'is', 'first', 'last', 'full', 'middle', 'surname', 'this', 'i', "i'm", 'am', 'the', 'and', 'of', 'spelled', 'spelt', 'spell', 'called', 'me', 'call', 'mister', 'mr', 'miss', 'mrs', 'ms', 'missus', 'dr', 'doctor']);

/**
 * The name starting at or after i in t (up to index `last`): skips the preamble, then takes
 * name-like words (and spelled letters, and up to two misheard short words between name words).
 */
export function nameAfter(t: readonly StreamToken[], i: number, last: number, first?: (k: number) => boolean): [number, number] | undefined {
  let k = i;
  while (k <= last && PREAMBLE.has(t[k]!.key)) k++;
  // A misheard preamble ("my name in …", "no that bothered"): up to 4 more function words.
  for (let skip = 0; skip < 4 && k <= last && NOT_A_NAME.has(t[k]!.key) && !REPLIES.has(t[k]!.key); skip++) k++;
  if (k > last || (first && !first(k)) || REPLIES.has(t[k]!.key)) return undefined;
  let end = k - 1;
  let words = 0;
  for (let j = k; j <= last; ) {
    const tok = t[j]!;
    // Into the next utterance only when it goes on the name (short, or starting with a name-like word or a letter).
    if (j > k && !continues(t, j, NAME_PAUSE_SEC)) break;
    const spelled = spelledRun(t, j);
    if (spelled >= j) {
      end = j = spelled;
      j++;
      continue;
    }
    if (nameLike(tok) && !REPLIES.has(tok.key)) {
      if (words >= MAX_NAME_WORDS) break;
      words++;
      end = j++;
      continue;
    }
    // Short misheard words inside a name ("to the yukon quo" for "chidi okonkwo"): only when a name word follows.
    // After a first name alone, an "and" or "ah" before a name-like word is the surname misheard ("maria and ayr").
    const resume = [1, 2].find((d) => j + d <= last && nameLike(t[j + d]) && t[j + d]!.u === tok.u &&
      t.slice(j, j + d).every((x) => x.key.length <= 3 && ((!FILLERS.has(x.key) && x.key !== 'and') || words === 1)));
    if (words > 0 && words < MAX_NAME_WORDS && resume !== undefined) {
      j += resume;
      continue;
    }
    break;
  }
  return end >= k ? [k, end] : undefined;
}

/** Most words of a name answer said as an utterance of its own. */
const OWN_UTTERANCE_MAX = 4;

/**
 * A name said as an utterance of its own right after the preamble ("Yes, it is." + "And a Simpson,
 * ah."; "Hi, my name is." + "Oh, yeah."): every word of it, misheard ones included, when it is short
 * and wholly inside the window (not "can I get an" cut off by the next cue), its leading fillers
 * left out when a name-like word follows ("it is maria lopez"). [from, to] or undefined.
 */
export function ownUtterance(t: readonly StreamToken[], first: number, last: number): [number, number] | undefined {
  const endOf = (k: number) => {
    let e = k;
    while (e + 1 < t.length && t[e + 1]!.u === t[k]!.u) e++;
    return e;
  };
  // Past the utterances that are all preamble ("Yes, it is.").
  let k = first;
  while (k <= last && t.slice(k, endOf(k) + 1).every((x) => PREAMBLE.has(x.key) || x.key === '')) k = endOf(k) + 1;
  if (k > last || (k > 0 && t[k - 1]!.u === t[k]!.u) || REPLIES.has(t[k]!.key)) return undefined;
  const end = endOf(k);
  const words = t.slice(k, end + 1).filter((x) => !isLetter(x)).length;
  if (end > last || words > OWN_UTTERANCE_MAX) return undefined;
  let from = k;
  while (from < end && FILLERS.has(t[from]!.key)) from++;
  return [nameLike(t[from]) ? from : k, end];
}

function span(stream: Stream, [from, to]: [number, number]): PiiSpan {
  return { kind: 'name', stream, from, to };
}

/** Names answering a name question or following a name cue. */
function fromWindows(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const w of view.windows) {
    if (w.topic !== 'name') continue;
    const t = w.stream.tokens;
    const tags = w.cue.weak ? view.persons(w.stream) : undefined;
    const unknown = w.cue.weak ? view.unknown(w.stream) : undefined;
    // A weak cue needs a word the tagger calls a name (or does not know) right after it.
    const first = tags ? (k: number) => k <= w.cue.index + 3 && (tags.has(k) || unknown!.has(k) || isSingleLetter(t[k])) : undefined;
    const found = nameAfter(t, w.first, w.last, first);
    if (found) out.push(span(w.stream, found));
    const own = w.cue.weak ? undefined : ownUtterance(t, w.first, w.last);
    if (own) out.push(span(w.stream, own));
    // Later in an answer window, spelled letters are the name spelled out, and a correction
    // ("no sorry, maria reed") gives the name again.
    for (let j = (found?.[1] ?? w.first - 1) + 1; j <= w.last; j++) {
      const e = spelledRun(t, j, SLOW_SPELL_GAP_SEC);
      if (e > j) out.push(span(w.stream, [j, (j = e)]));
      else if (!w.cue.weak && CORRECTIONS.has(t[j]!.key)) {
        const again = nameAfter(t, j + 1, Math.min(w.last, j + 8));
        if (again) out.push(span(w.stream, again));
        if (again) j = again[1];
      }
    }
  }
  return out;
}

/**
 * A name said as an utterance of its own right after an utterance ending in "my <relation>" or "this
 * is" ("My brother." + "Wow, that loop." for "my brother Guadalupe"; the agent's "…this is." +
 * "Colorado."): the next utterance whole, misheard words included, when it follows within a name's
 * pause and is short (not a reply, not "he said it ships on friday").
 */
function afterCueUtterance(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    const t = stream.tokens;
    for (let i = 1; i + 1 < t.length; i++) {
      const key = t[i]!.key;
      const cue = (RELATIONS.has(key) && t[i - 1]!.key === 'my') || (key === 'is' && t[i - 1]!.key === 'this');
      if (!cue || t[i + 1]!.u === t[i]!.u || gap(t[i]!, t[i + 1]!) > NAME_PAUSE_SEC || REPLIES.has(t[i + 1]!.key)) continue;
      let end = i + 1;
      while (end + 1 < t.length && t[end + 1]!.u === t[i + 1]!.u) end++;
      if (end - i <= OWN_UTTERANCE_MAX - 1) out.push(span(stream, [i + 1, end]));
    }
  }
  return out;
}

/** Three or more spelled letters in a row, anywhere ("s m i t h"). */
function spelled(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    const t = stream.tokens;
    for (let i = 0; i < t.length; i++) {
      const e = spelledRun(t, i);
      if (e >= i + 2) {
        out.push(span(stream, [i, e]));
        i = e;
      }
    }
  }
  return out;
}

/** A title or a relation word before a name ("doctor patel", "my husband david"), and the tagger's person words. */
function fromTags(view: PiiView): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const stream of view.streams) {
    const t = stream.tokens;
    const persons = view.persons(stream);
    const unknown = view.unknown(stream);
    for (let i = 0; i < t.length; i++) {
      const key = t[i]!.key;
      const next = t[i + 1];
      const known = (k: number) => persons.has(k) || unknown.has(k);
      if ((TITLES.has(key) && nameLike(next)) || (RELATIONS.has(key) && next && known(i + 1) && next.u === t[i]!.u)) {
        const to = nameLike(t[i + 2]) && known(i + 2) && t[i + 2]!.u === t[i]!.u ? i + 2 : i + 1;
        out.push(span(stream, [i + 1, to]));
        continue;
      }
      if (!persons.has(i) || NOT_A_NAME.has(key)) continue;
      let to = i;
      while (to + 1 < t.length && t[to + 1]!.u === t[i]!.u && nameLike(t[to + 1]) && known(to + 1) && to - i < MAX_NAME_WORDS - 1) to++;
      out.push(span(stream, [i, to]));
      i = to;
    }
  }
  return out;
}

export function recognizeNames(view: PiiView): PiiSpan[] {
  return [...fromWindows(view), ...spelled(view), ...fromTags(view), ...afterCueUtterance(view)];
}

/** Words of a spelling besides letters: "double" (u), "as in" / "as for" and the word after them. */
const SPELLING = new Set(['double', 'as', 'in', 'for']);
/** A pause this long (seconds) ends a spelling: spans.ts `spelledRun`, slow in a name window (SLOW_SPELL_GAP_SEC), the longest. */
const SPELL_PAUSE_SEC = SLOW_SPELL_GAP_SEC;

/**
 * How far back a name said from `now` on reaches: a letter said within a spelling's pause makes the
 * letters just before it a spelled run ("s m" + "i t h"). Everything else a name claims lies at or
 * after the word that makes it one (a name after its cue, a title, a relation), so a later word
 * changes nothing before it.
 */
function nameReach(stream: Stream, now: number): number {
  const t = stream.tokens;
  if (t.length === 0) return 0;
  if (now - t[t.length - 1]!.end > SPELL_PAUSE_SEC) return t.length;
  let k = t.length;
  const spelling = (i: number) => isLetter(t[i]) || SPELLING.has(t[i]!.key) || (t[i - 1]?.key === 'in' || t[i - 1]?.key === 'for') && t[i - 2]?.key === 'as';
  while (k > 0 && spelling(k - 1) && (k === t.length || gap(t[k - 1]!, t[k]!) <= SPELL_PAUSE_SEC)) k--;
  return k;
}

export const nameRecognizer: Recognizer = piiRecognizer('names', ['name'], recognizeNames, (_view: PiiView, stream: Stream, now: number) => nameReach(stream, now), []);
