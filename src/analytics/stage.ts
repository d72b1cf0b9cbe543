/**
 * The analytics stage, last of the post-ASR stages (src/pipeline/post-asr-stages.ts): sentiment per
 * utterance and per channel/speaker when the request asks for it (`sentiment` or `emotion`, or the
 * company's default), call metrics always, and per role (agent, customer) when roles are known. It runs
 * after redaction, so it sees what is persisted.
 */
import type { FileWork, Stage } from '../types.js';
import { callMetrics } from './metrics.js';
import { roleSummary } from './roles.js';
import { applySentiment } from './sentiment.js';

export const analyticsStage: Stage<FileWork, FileWork> = async (work) => {
  const utterances = work.result.utterances;
  const summary = { ...work.summary };
  // crosstalk kept to be seen (crosstalk=keep) is nobody's speech: no sentiment, no metrics
  if (work.options.sentiment) summary.sentiment = applySentiment(utterances.filter((u) => !u.metadata.crosstalk));
  summary.metrics = callMetrics(utterances);
  const roles = roleSummary(utterances);
  if (roles) summary.roles = roles;
  return { ...work, summary };
};
