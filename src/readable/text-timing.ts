/**
 * Times for the words of an utterance's `text`: the text's tokens (split at spaces) are aligned to
 * the utterance's events, so that subtitles can cut the text where it pauses and search can show a
 * hit in the text. The document keeps no mapping between the two (no written form survives the
 * readable stage), so it is found again here: a monotone alignment (edit distance) of the tokens'
 * and the events' letters and digits, where a token may cover several events ("$25." ← "twenty five
 * dollars") and several tokens one event ("555 0142" → "5550142").
 */
import type { WordEvent } from '../types.js';

export interface TimedToken {
  text: string;
  start: number;
  end: number;
  /** Indexes of the events this token covers, [first, last]; undefined when it covers none. */
  events?: [number, number];
}

const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}#]+/gu, '');

/** Spoken words a numeral may stand for (its digits, scales, units). */
const NUMBER_WORD =
  /^(zero|oh|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(thir|four|fif|six|seven|eigh|nine)teen|(twen|thir|for|four|fif|six|seven|eigh|nine)ty|hundred|thousand|million|billion|point|double|triple|and|dollars?|cents?|pounds?|euros?|percent|[ap]m|first|second|third|\w+th)$/;
const numeric = (s: string) => /\d/.test(s) || /^#+$/.test(s);

/** How unlike a token and an event are: 0 the same, 0.3 a numeral and a number (or its words), 0.4 one begins the other, 1 else. */
function unlike(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '' || b === '') return 1;
  if ((numeric(a) || NUMBER_WORD.test(a)) && (numeric(b) || NUMBER_WORD.test(b)) && (numeric(a) || numeric(b))) return 0.3;
  return a.startsWith(b) || b.startsWith(a) ? 0.4 : 1;
}

/** What it costs a token and an event to share a partner: little when they are alike (a number's words), else less than a mismatch. */
const share = (a: string, b: string) => (unlike(a, b) < 1 ? 0.2 : 0.8);

/** The tokens of `text` with the times of the events they stand for. */
export function timeTokens(text: string, events: readonly WordEvent[]): TimedToken[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const n = tokens.length;
  const m = events.length;
  if (n === 0) return [];
  if (m === 0) return tokens.map((t) => ({ text: t, start: 0, end: 0 }));
  const tk = tokens.map(key);
  const ek = events.map((e) => key(e.word));
  // cost[i][j]: tokens 0..i-1 aligned with events 0..j-1; step 1 = pair, 2 = token shares, 3 = event shares.
  const cost = Array.from({ length: n + 1 }, () => new Float64Array(m + 1).fill(Infinity));
  const step = Array.from({ length: n + 1 }, () => new Uint8Array(m + 1));
  cost[0]![0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      const c = cost[i]![j]!;
      if (c === Infinity) continue;
      if (i < n && j < m && c + unlike(tk[i]!, ek[j]!) < cost[i + 1]![j + 1]!) {
        cost[i + 1]![j + 1] = c + unlike(tk[i]!, ek[j]!);
        step[i + 1]![j + 1] = 1;
      }
      if (i < n && j > 0 && c + share(tk[i]!, ek[j - 1]!) < cost[i + 1]![j]!) {
        cost[i + 1]![j] = c + share(tk[i]!, ek[j - 1]!);
        step[i + 1]![j] = 2;
      }
      if (j < m && i > 0 && c + share(tk[i - 1]!, ek[j]!) < cost[i]![j + 1]!) {
        cost[i]![j + 1] = c + share(tk[i - 1]!, ek[j]!);
        step[i]![j + 1] = 3;
      }
    }
  }
  // Walk back: every event belongs to one token; a token may share the event before it.
  const span: Array<[number, number] | undefined> = tokens.map(() => undefined);
  const widen = (t: number, e: number) => {
    const s = span[t];
    span[t] = s ? [Math.min(s[0], e), Math.max(s[1], e)] : [e, e];
  };
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const s = step[i]![j]!;
    if (s === 1) widen(--i, --j);
    else if (s === 2) widen(--i, j - 1);
    else if (s === 3) widen(i - 1, --j);
    else break; // i = 0 with j > 0 cannot happen (events only join a token); safety
  }
  return tokens.map((text, t) => {
    const sp = span[t]!;
    return { text, start: events[sp[0]]!.start, end: events[sp[1]]!.end, events: sp };
  });
}
