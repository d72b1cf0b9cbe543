/**
 * The one recognizer interface (presidio's EntityRecognizer): a recognizer says which kinds it finds,
 * finds them over the shared analysis of a call (analysis.ts), and declares its REACH — from which
 * word of a stream on the words said from a time on could still bring it to redact a word it leaves
 * now. The engine (engine.ts) reads the reaches of the recognizers asked for to release each word of
 * a live call as soon as none can claim it, and recognizers are listed once, in the registry
 * (registry.ts). Precedence between kinds is the registry's too (docs/redaction.md, "The engine").
 */
import type { RedactKind } from '../types.js';
import type { Analysis } from './analysis.js';
import type { Stream } from './digit-runs.js';

/** What a recognizer found: stream tokens [from, to] of one kind. */
export interface Finding {
  kind: RedactKind;
  stream: Stream;
  from: number;
  to: number;
  /** Tokens inside [from, to] that keep their word (a sentence of chatter between a number's groups). */
  spared?: ReadonlySet<number>;
}

export interface Recognizer {
  /** For logs and docs. */
  name: string;
  /** The kinds it may return. */
  kinds: readonly RedactKind[];
  /** Its findings of the kinds in `wanted`. */
  analyze(a: Analysis, wanted: ReadonlySet<RedactKind>): Finding[];
  /**
   * The first token index of `stream` whose redaction words said from `now` on (on any channel) could
   * still change from kept to redacted, given the call so far `a`;
   * `stream.tokens.length` when none.
   * Must never be later than the truth: the live engine releases every word before it.
   */
  reach(a: Analysis, stream: Stream, now: number): number;
  /**
   * The tokens [from, to] of `stream` it has redacted and may still rename, held too (undefined: none):
   * a number that may still grow is held from its first word on (a group said next makes the words
   * between its own), so that kinds read as the stored document's (`digits` may become `card`,
   * `[NAME]` between two groups `###`); a name an email said later may rename is not (redacted either way).
   */
  renames(a: Analysis, stream: Stream, now: number): [number, number] | undefined;
  /**
   * The earliest time whose words its findings that may still grow need (the question of an open
   * window, the context words of a run that may still grow); Infinity when none. The engine keeps
   * its context from there (engine.ts).
   */
  context(a: Analysis, stream: Stream, now: number): number;
  /** Seconds before a word that its evidence can lie (context words, the question, the start of a run or a window). */
  contextSec: number;
}
