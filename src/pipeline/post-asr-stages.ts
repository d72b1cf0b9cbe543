/**
 * What happens to a recording's words between the ASR and its transcript document, in order. A new
 * capability is one line here (its stage lives in its own room, e.g. src/numbers/); the order is
 * the product's privacy boundary: redaction runs before anything of the file is persisted (the
 * runner writes the checkpoint, the index entry and the item's state only after these stages).
 */
import { analyticsStage } from '../analytics/stage.js';
import { numbersStage } from '../numbers/stage.js';
import { readableStage } from '../readable/stage.js';
import { rolesStage } from '../speakers/roles.js';
import { speakers } from '../speakers/stage.js';
import { redactStage } from '../redact/stage.js';
import type { FileWork, Stage } from '../types.js';

/** A post-ASR stage reads `work.options` (RequestOptions) and returns the work changed (or as it is when its option is off). */
export type PostAsrStage = Stage<FileWork, FileWork>;

export const POST_ASR_STAGES: readonly PostAsrStage[] = [
  // In this order: numbers (numtrans) → speakers (crosstalk, diarize, gender) → roles (agent, customer) → redact
  // (scrubtext) → readable text (built from the redacted events; the ASR's written forms end here) → analytics
  // (sentiment, metrics, roles).
  numbersStage,
  speakers,
  rolesStage,
  redactStage,
  readableStage,
  analyticsStage,
];
