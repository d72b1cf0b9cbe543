/**
 * The analytics stage, last of the post-ASR stages (pipelines/post-asr-stages.ts): sentiment per
 * utterance and per channel/speaker when the request asks for it (`sentiment` or `emotion`, or the
 * company's default), call metrics always. It runs after redaction, so it sees what is persisted.
 */
import type { FileWork, Stage } from '../types.js';
import { callMetrics } from './metrics.js';
import { applySentiment } from './sentiment.js';

export const analyticsStage: Stage<FileWork, FileWork> = async (work) => {
  const utterances = work.result.utterances;
  const summary = { ...work.summary };
  if (work.options.sentiment) summary.sentiment = applySentiment(utterances);
  summary.metrics = callMetrics(utterances);
  return { ...work, summary };
};
