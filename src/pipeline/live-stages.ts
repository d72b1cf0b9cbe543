/**
 * The live driver's use of the stage table (stage-table.ts; docs/pipeline.md): each utterance, as it
 * ends, through the per-utterance parts before the held one (numbers, roles); the held part (redaction)
 * and those after it (readable text, sentiment) once the redaction hold releases it, in the order of
 * release. Every stage keeps its view of the call so far (call-view.ts), so each part sees what it would
 * see over the whole file in batch: the same table, fed one utterance at a time.
 */
import type { PipelineStage, RequestOptions, Utterance } from '../types.js';
import { StageView } from './call-view.js';

/** The held part when the table has none: it gives each utterance out as it is. */
const PASS: PipelineStage = { name: 'release', utterance: (u) => u, held: true };

export class LiveStages {
  /** The per-utterance parts before the held one, the held one, and those after it, each with its view. */
  readonly #before: StageView[];
  readonly #held: StageView;
  readonly #after: StageView[];

  constructor(stages: readonly PipelineStage[], options: RequestOptions, nchannels: number) {
    const parts = stages.filter((s) => s.utterance);
    const at = parts.findIndex((s) => s.held);
    const view = (s: PipelineStage) => new StageView(s, options, nchannels);
    this.#before = (at < 0 ? parts : parts.slice(0, at)).map(view);
    this.#held = view(at < 0 ? PASS : parts[at]!);
    this.#after = (at < 0 ? [] : parts.slice(at + 1)).map(view);
  }

  /** The call so far as the held part sees it (what the redaction hold reads); an utterance's index here names it. */
  get call(): readonly Utterance[] {
    return this.#held.utterances;
  }

  /** An utterance has ended: through the parts before the held one; its index in `call`. */
  ended(u: Utterance): number {
    const out = this.#before.reduce((x, view) => through(view, x), u);
    return this.#held.utterances.push(out) - 1;
  }

  /**
   * The utterance at index i of `call` is released: through the held part and those after it, as it is
   * sent. `held`: the held part's result as the live driver already has it (the redaction engine's
   * settled utterance, src/redact/engine.ts: the same recognizers and anonymizer, over the open tail only).
   */
  released(i: number, held?: Utterance): Utterance {
    return this.#after.reduce((x, view) => through(view, x), this.#held.give(i, held));
  }
}

function through(view: StageView, u: Utterance): Utterance {
  view.utterances.push(u);
  return view.give(view.utterances.length - 1);
}
