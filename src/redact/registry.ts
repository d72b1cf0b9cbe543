/**
 * The one registry of transcript recognizers (presidio's RecognizerRegistry): the digit runs and the
 * personal-data word kinds, each a Recognizer (recognizer.ts) with the kinds it finds and its reach.
 * Redaction (redact.ts) runs those asked for; the live engine (engine.ts) reads their reaches. A new
 * kind is a new recognizer listed here; where findings of several kinds cover one word, the kind first
 * in KIND_PRECEDENCE (recognizers.ts) names it.
 */
import type { RedactKind } from '../types.js';
import { addressRecognizer } from './pii/address.js';
import { dobRecognizer } from './pii/dates.js';
import { emailRecognizer } from './pii/email.js';
import { nameRecognizer } from './pii/names.js';
import { alphanumericRecognizer } from './pii/numbers.js';
import type { Recognizer } from './recognizer.js';
import { runRecognizer } from './run-recognizer.js';

export const RECOGNIZER_REGISTRY: readonly Recognizer[] = [runRecognizer, emailRecognizer, addressRecognizer, dobRecognizer, alphanumericRecognizer, nameRecognizer];

/** The recognizers that find any of `kinds`. */
export function recognizersFor(kinds: ReadonlySet<RedactKind>): Recognizer[] {
  return RECOGNIZER_REGISTRY.filter((r) => r.kinds.some((k) => kinds.has(k)));
}
