/**
 * What an event is (src/types.ts EventKind) — the one statement of the rule. The ASR decides it for
 * its tokens (tokenKind), redaction marks what it replaces; every consumer (search, the text output,
 * metrics, roles, sentiment) asks eventKind(), which reads the event's `kind` and derives it only for a
 * document stored before events carried one: redacted when `redacted` is set, else a filler when the
 * word is an engine's non-speech token, else a word. A redacted `[NAME]` is therefore never a filler.
 */
import type { EventKind, WordEvent } from '../types.js';

/** An engine's non-speech token: `<sil>`, `<s>`, `[noise]`, `++breath++` (pocketsphinx's filler dictionary). */
const FILLER_TOKEN = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;

/** The kind of a token the ASR returned, decided when it becomes an event. */
export function tokenKind(word: string): 'word' | 'filler' {
  return FILLER_TOKEN.test(word) ? 'filler' : 'word';
}

/** The event's kind: its own, or (stored before kinds) derived from its fields. */
export function eventKind(e: Pick<WordEvent, 'word' | 'kind' | 'redacted'>): EventKind {
  if (e.kind !== undefined) return e.kind;
  if (e.redacted !== undefined) return 'redacted';
  return typeof e.word === 'string' ? tokenKind(e.word) : 'filler';
}

/** Something was said: a word, or a redacted word (fillers are not speech). */
export function isSpoken(e: Pick<WordEvent, 'word' | 'kind' | 'redacted'>): boolean {
  return eventKind(e) !== 'filler';
}
