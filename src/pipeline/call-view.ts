/**
 * One stage's view of a call (CallView, src/types.ts): the utterances given to it so far, the last it
 * gave out per voice, and the value it computes once over them. The batch driver (fold-stages.ts) fills
 * one per stage with a file's utterances; the live driver (live-stages.ts) adds a call's as they come.
 */
import { voiceOf } from '../readable/stage.js';
import type { CallView, PipelineStage, RequestOptions, Utterance } from '../types.js';

export class StageView implements CallView {
  readonly options: RequestOptions;
  readonly nchannels: number;
  readonly utterances: Utterance[] = [];
  readonly #stage: PipelineStage;
  readonly #last = new Map<string, Utterance>();
  #memo: { n: number; value: unknown } | undefined;

  constructor(stage: PipelineStage, options: RequestOptions, nchannels: number) {
    this.#stage = stage;
    this.options = options;
    this.nchannels = nchannels;
  }

  previous(u: Utterance): Utterance | undefined {
    return this.#last.get(voiceOf(u));
  }

  once<T>(f: () => T): T {
    if (this.#memo?.n !== this.utterances.length) this.#memo = { n: this.utterances.length, value: f() };
    return this.#memo.value as T;
  }

  /** The utterance at index i through the stage's per-utterance part (or as `given`: the part's result found otherwise). */
  give(i: number, given?: Utterance): Utterance {
    const out = given ?? (this.#stage.utterance ? this.#stage.utterance(this.utterances[i]!, i, this) : this.utterances[i]!);
    this.#last.set(voiceOf(out), out);
    return out;
  }
}
