/**
 * The batch driver of the stage table (stage-table.ts; docs/pipeline.md): per stage, in the table's
 * order, its per-utterance part folded over the file's utterances in time order (each after the same
 * voice's last), then its whole-call part.
 */
import type { CallView, FileWork, PipelineStage, StageContext, Utterance } from '../types.js';
import { StageView } from './call-view.js';

/** A whole call as a per-utterance part sees it. */
export type WholeCall = Pick<CallView, 'options' | 'nchannels' | 'utterances'>;

/** Every utterance of a file through one stage's per-utterance part (kept in their order). */
export function foldUtterances(stage: PipelineStage, call: WholeCall): Utterance[] {
  const view = new StageView(stage, call.options, call.nchannels);
  view.utterances.push(...call.utterances);
  const out = view.utterances.slice();
  const order = out.map((u, i) => ({ u, i })).sort((a, b) => a.u.start - b.u.start || a.i - b.i);
  for (const { i } of order) out[i] = view.give(i);
  return out;
}

export async function runStages(work: FileWork, stages: readonly PipelineStage[], ctx: StageContext): Promise<FileWork> {
  for (const stage of stages) {
    if (stage.utterance) work = { ...work, result: { ...work.result, utterances: foldUtterances(stage, { options: work.options, ...work.result }) } };
    if (stage.call) work = await stage.call(work, ctx);
  }
  return work;
}
