/**
 * The analytics stage, after redaction and the readable text (src/pipeline/stage-table.ts), so it sees
 * what is persisted: sentiment per utterance when the request asks for it (`sentiment` or `emotion`, or
 * the company's default) — a per-utterance part, so a live call's messages carry it — and, over the
 * whole call, sentiment per channel/speaker, call metrics always, and per role (agent, customer) when
 * roles are known.
 */
import type { FileWork, Stage, UtterancePart } from '../types.js';
import { callMetrics } from './metrics.js';
import { roleSummary } from './roles.js';
import { scoreUtterance, sentimentByParty } from './sentiment.js';

/** The per-utterance part: `metadata.sentiment` and `sentimentscore` (crosstalk kept to be seen, crosstalk=keep, is nobody's speech). */
export const sentimentPart: UtterancePart = (u, _i, call) => {
  if (!call.options.sentiment || u.metadata.crosstalk) return u;
  const out = { ...u, metadata: { ...u.metadata } };
  scoreUtterance(out);
  return out;
};

/** The whole-call part: sentiment per party (of the scored utterances), metrics, the roles' summary. */
export const analyticsStage: Stage<FileWork, FileWork> = async (work) => {
  const utterances = work.result.utterances;
  const summary = { ...work.summary };
  if (work.options.sentiment) summary.sentiment = sentimentByParty(utterances.filter((u) => !u.metadata.crosstalk));
  summary.metrics = callMetrics(utterances);
  const roles = roleSummary(utterances);
  if (roles) summary.roles = roles;
  return { ...work, summary };
};
