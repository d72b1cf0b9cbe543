/**
 * The one stage table (docs/pipeline.md): what happens to a call's words between the ASR and its
 * transcript document, in order. Each line is a stage of its own room with a per-utterance part, a
 * whole-call part, or both; a new capability is one line here. Two drivers read the same table:
 *
 * - batch (fold-stages.ts, for an upload, the drop folder, `voxdex import` and `voxdex transcribe`, and a
 *   live call's job): per stage, its per-utterance part folded over the file's utterances in time
 *   order, then its whole-call part;
 * - live (live-stages.ts, under live-call.ts): the per-utterance parts on each utterance as it ends —
 *   those from redaction on once the redaction hold releases it — then its message; the whole-call parts
 *   run once in the call's job, over the whole call (the batch driver on the utterances already decoded).
 *
 * The order is the product's privacy boundary: redaction runs before the readable text, sentiment and
 * categories, and before anything of the call is sent or persisted.
 */
import { categoriesStage, type Categorize } from '../analytics/categories-stage.js';
import { analyticsStage, sentimentPart } from '../analytics/stage.js';
import { numbersPart } from '../numbers/stage.js';
import { readablePart } from '../readable/stage.js';
import { redactionPart, silencedAudioStage } from '../redact/stage.js';
import { rolesPart } from '../speakers/roles.js';
import { speakers } from '../speakers/stage.js';
import type { PipelineStage } from '../types.js';

export interface StageTableDeps {
  /** The company's categories a call is in (src/analytics/categories.ts `categorizer`); absent, no categories. */
  categorize?: Categorize;
}

export function stageTable(deps: StageTableDeps = {}): readonly PipelineStage[] {
  return [
    // numtrans: number words as numerals, as each utterance is decoded.
    { name: 'numbers', utterance: numbersPart },
    // crosstalk, diarize, gender: needs every channel's audio and the whole call.
    { name: 'speakers', call: speakers },
    // agent and customer: the company's agent channel, else the script phrases heard so far.
    { name: 'roles', utterance: rolesPart },
    // scrubaudio: the kept audio silenced over the spans (reads the words before they are replaced).
    { name: 'silenced audio', call: silencedAudioStage },
    // scrubtext (replace) or scrubtext=tag (mark), over the call so far; live, once the hold lets it go.
    { name: 'redaction', utterance: redactionPart, held: true },
    // text from the redacted events; the ASR's written forms end here.
    { name: 'readable text', utterance: readablePart },
    // sentiment per utterance; per party, metrics and roles' summary over the call.
    { name: 'analytics', utterance: sentimentPart, call: analyticsStage },
    // the company's categories: in the document; live, alerts over the call so far.
    categoriesStage(deps.categorize),
  ];
}
