/**
 * Transcripts of the PII bench's call scripts (pii-calls.ts `callScript`) as a recogniser would give
 * them when it hears every word, without audio: one utterance per turn, words 0.35 s apart, 0.8 s
 * between turns; every third call also reads a card number in four groups and its security code. For
 * what needs many calls' worth of words fast (the live engine's replay test, bench/live.ts's cost per
 * release).
 */
import type { Utterance } from '../../src/types.js';
import { callScript } from './pii-calls.js';

const WORD_SEC = 0.35;
const TURN_GAP_SEC = 0.8;

/** A card exchange: the agent's question, four groups (a Luhn-valid number), the security code. */
const CARD: ReadonlyArray<[number, string]> = [
  [0, 'can i have the card number please'],
  [1, 'sure it is four five three nine'],
  [1, 'one four eight eight'],
  [1, 'zero three four three'],
  [1, 'six four six seven'],
  [0, 'and the security code on the back'],
  [1, 'seven three nine'],
];

/** Call `n` from `start` (seconds): its utterances in time order. */
export function textCall(n: number, start = 0): Utterance[] {
  const turns: Array<[number, string]> = callScript(n).map((t) => [t.channel, t.parts.map((p) => p.text).join(' ')]);
  if (n % 3 === 0) turns.splice(Math.min(4, turns.length), 0, ...CARD);
  const out: Utterance[] = [];
  let at = start;
  for (const [channel, text] of turns) {
    const events = text.split(/\s+/).filter(Boolean).map((word, i) => ({ word, start: at + i * WORD_SEC, end: at + i * WORD_SEC + 0.3, confidence: 0.9 }));
    out.push({ start: at, end: events.at(-1)!.end, confidence: 0.9, metadata: { channel, uttid: out.length }, events });
    at = events.at(-1)!.end + TURN_GAP_SEC;
  }
  return out;
}

/** One long call of at least `utterances` utterances: scripts 0, 1, 2… one after another, 5 s apart. */
export function longCall(utterances: number): Utterance[] {
  const out: Utterance[] = [];
  for (let n = 0; out.length < utterances; n++) {
    const next = textCall(n, out.length ? out.at(-1)!.end + 5 : 0);
    out.push(...next.map((u, i) => ({ ...u, metadata: { ...u.metadata, uttid: out.length + i } })));
  }
  return out.slice(0, utterances);
}
