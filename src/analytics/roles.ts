/**
 * The document's top-level `roles` (docs/speakers.md, "Roles"): per role (agent, customer) its parties,
 * its talk time and words per minute (its utterances together, pauses under MERGE_GAP_SEC closed), the
 * interruptions its parties made, and, with sentiment, the word-weighted mean of its utterances' scores.
 */
import { isSpoken } from '../text/event-kind.js';
import type { RoleSummary, TranscriptDocument, Utterance } from '../types.js';
import { interruptions, partySpeech } from './metrics.js';
import { labelFor, partyKey } from './sentiment.js';

const r2 = (x: number) => Math.round(x * 100) / 100;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function roleSummary(utterances: readonly Utterance[]): TranscriptDocument['roles'] | undefined {
  const spoken = utterances.filter((u) => !u.metadata.crosstalk);
  if (!spoken.some((u) => u.metadata.role)) return undefined;
  const byParty = interruptions(partySpeech(spoken));
  const out: NonNullable<TranscriptDocument['roles']> = {};
  for (const role of ['agent', 'customer'] as const) {
    const mine = spoken.filter((u) => u.metadata.role === role);
    if (mine.length === 0) continue;
    const parties = [...new Set(mine.map(partyKey))].sort();
    // the role as one party: its utterances under one key
    const together = partySpeech(mine.map((u) => ({ ...u, metadata: { channel: 0 } })));
    const p = together.get('0')!;
    const secs = p.speech.reduce((n, [s, e]) => n + (e - s), 0);
    const summary: RoleSummary = {
      parties,
      talksecs: r2(secs),
      wordsperminute: secs > 0 ? Math.round((p.words / secs) * 60) : 0,
      interruptions: parties.reduce((n, k) => n + (byParty[k] ?? 0), 0),
    };
    let weighted = 0;
    let words = 0;
    for (const u of mine) {
      if (u.metadata.sentimentscore === undefined) continue;
      const n = u.events.filter(isSpoken).length;
      weighted += u.metadata.sentimentscore * n;
      words += n;
    }
    if (words > 0) summary.sentiment = { label: labelFor(r3(weighted / words)), score: r3(weighted / words) };
    out[role] = summary;
  }
  return out;
}
