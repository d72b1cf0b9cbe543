/**
 * Step 4 of diarization, reconciliation with the transcript: every word gets the speaker whose windows
 * cover its middle (votes weighted towards the window centres), lone short words between two runs of
 * the same speaker follow their neighbours, utterances are split where the speaker changes (so every
 * utterance has one speaker), and speakers are named in order of first appearance. Pure.
 */
import type { Utterance, WordEvent } from '../types.js';
import { toSpeechTime, type Span, type SpeechTimeline } from './regions.js';

export interface LabelledWindow extends Span {
  /** Cluster of the window (speech-timeline times). */
  label: number;
}

/** The cluster of each time (recording seconds): weighted vote of the windows covering it on the speech timeline. */
export function speakerAt(times: number[], timeline: SpeechTimeline, windows: LabelledWindow[], k: number): number[] {
  return times.map((time) => {
    const m = toSpeechTime(timeline, time);
    const votes = new Float64Array(Math.max(1, k));
    let best = -1;
    let bestDist = Infinity;
    windows.forEach((w, i) => {
      const half = (w.end - w.start) / 2;
      const d = Math.abs(m - (w.start + half));
      if (d <= half) votes[w.label]! += 1 - d / (half + 1e-6) + 1e-3;
      if (d < bestDist) [best, bestDist] = [i, d];
    });
    let arg = -1;
    for (let c = 0; c < votes.length; c++) if (votes[c]! > 0 && (arg < 0 || votes[c]! > votes[arg]!)) arg = c;
    return arg >= 0 ? arg : best >= 0 ? windows[best]!.label : 0;
  });
}

/**
 * A run of at most `maxWords` words lasting under `maxSec` between two runs of one other speaker is
 * given to that speaker: shorter than the windows can resolve, so more likely noise than a turn.
 */
export function smoothRuns(words: Span[], labels: number[], o: { maxWords: number; maxSec: number } = { maxWords: 1, maxSec: 0.5 }): number[] {
  const out = [...labels];
  let i = 0;
  while (i < out.length) {
    let j = i;
    while (j + 1 < out.length && out[j + 1] === out[i]) j++;
    const before = out[i - 1];
    const after = out[j + 1];
    const dur = words[j]!.end - words[i]!.start;
    if (before !== undefined && before === after && j - i + 1 <= o.maxWords && dur < o.maxSec) for (let x = i; x <= j; x++) out[x] = before;
    i = j + 1;
  }
  return out;
}

/** An utterance with one speaker (index) per word, split where it changes. Times stay the words'. */
export function splitUtterance(u: Utterance, speakers: number[]): { utterance: Utterance; speaker: number }[] {
  if (u.events.length === 0) return [{ utterance: u, speaker: speakers[0] ?? 0 }];
  const pieces: { events: WordEvent[]; speaker: number }[] = [];
  u.events.forEach((e, i) => {
    const last = pieces[pieces.length - 1];
    if (last && last.speaker === speakers[i]) last.events.push(e);
    else pieces.push({ events: [e], speaker: speakers[i]! });
  });
  if (pieces.length === 1) return [{ utterance: u, speaker: pieces[0]!.speaker }];
  return pieces.map((p, n) => {
    const conf = p.events.reduce((s, e) => s + e.confidence, 0) / p.events.length;
    return {
      speaker: p.speaker,
      utterance: {
        ...u,
        start: n === 0 ? u.start : p.events[0]!.start,
        end: n === pieces.length - 1 ? u.end : p.events[p.events.length - 1]!.end,
        confidence: Math.round(conf * 1000) / 1000,
        metadata: { ...u.metadata },
        events: p.events,
      },
    };
  });
}

/** Names clusters S1, S2, … in order of first appearance (by utterance start). */
export function nameSpeakers(items: { start: number; speaker: number }[], prefix = 'S'): Map<number, string> {
  const names = new Map<number, string>();
  for (const it of [...items].sort((a, b) => a.start - b.start)) if (!names.has(it.speaker)) names.set(it.speaker, `${prefix}${names.size + 1}`);
  return names;
}
