/**
 * Redaction of a transcript's utterances (scrubtext): the recognizers of the registry (registry.ts:
 * digit runs, recognizers.ts over digit-runs.ts; personal data, pii/ and docs/pii.md) asked for find
 * what is sensitive over one shared analysis (analysis.ts), and the anonymizer (anonymizer.ts)
 * replaces or marks it. Works on numerals (numtrans) and on number words alike. A live call redacts
 * its open tail with the same recognizers (engine.ts).
 */
import { DEFAULT_REDACT_KINDS, type RedactKind, type Utterance } from '../types.js';
import { analyze } from './analysis.js';
import { anonymize, type RedactionResult, type RedactMode } from './anonymizer.js';
import type { RedactionKind } from './recognizers.js';
import { recognizersFor } from './registry.js';

export type { RedactionResult, RedactionSpan, RedactMode } from './anonymizer.js';

export const DEFAULT_KINDS: readonly RedactionKind[] = DEFAULT_REDACT_KINDS;

/** The findings of the recognizers of `kinds` over `utterances` (the analysis given, or made here). */
export function findingsOf(utterances: readonly Utterance[], kinds: readonly RedactKind[], a = analyze(utterances)) {
  const wanted = new Set(kinds);
  return recognizersFor(wanted).flatMap((r) => r.analyze(a, wanted).filter((f) => wanted.has(f.kind)));
}

/** scrubtext: the utterances with the sensitive events of `kinds` replaced (new objects), or with `tag`, marked. */
export function redactUtterances(utterances: readonly Utterance[], kinds: readonly RedactionKind[] = DEFAULT_KINDS, mode: RedactMode = {}): RedactionResult {
  return anonymize(utterances, findingsOf(utterances, kinds), mode);
}
