/**
 * Word forms (docs/search.md, "Word forms"): a query word typed without quotes finds its inflections —
 * `weasel` finds "weasels", `cancel` finds "cancelled", "cancelling", "cancels" — because both sides
 * are compared by their stem; a word or phrase in quotes is compared exactly. The stem is Porter2
 * (the Snowball English stemmer, npm `wink-porter2-stemmer`), computed here, in the app, for the
 * matcher (match.ts), both indexes (SQLite stores the stems in their own FTS columns, Elasticsearch
 * in its own field) and the web page's hit marks: one stemmer everywhere, so every backend returns
 * the same calls and the same hits (Lucene's and SQLite's built-in Porter stemmers differ from each
 * other and from Snowball on some words).
 */
/// <reference path="./wink-porter2-stemmer.d.ts" />
import porter2 from 'wink-porter2-stemmer';

/** Words of ASCII letters only are stemmed (a normalized word: lower case, no accents); others are their own stem. */
const STEMMABLE = /^[a-z]{3,}$/;
const cache = new Map<string, string>();
/** The start of a redacted word's token (query.ts `redactedToken`): a kind, not an English word. */
const REDACTED = 'voxdexredacted';

/** The stem of a normalized word (normalizeWord): "weasels" → "weasel", "cancelled" → "cancel", "42" → "42". */
export function wordStem(norm: string): string {
  if (!STEMMABLE.test(norm) || norm.startsWith(REDACTED)) return norm;
  let s = cache.get(norm);
  if (s === undefined) {
    s = porter2(norm);
    if (cache.size >= 50_000) cache.clear();
    cache.set(norm, s);
  }
  return s;
}

/** The stems of a sequence of normalized words. */
export function wordStems(norms: readonly string[]): string[] {
  return norms.map(wordStem);
}
