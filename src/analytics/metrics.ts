/**
 * Call metrics (docs/analytics.md, "Metrics"; always on) from word times: talk time per channel or speaker, overtalk
 * (two or more parties speaking at once), silence (nobody speaking), the longest silence, and words
 * per minute of talk.
 *
 * A party's speech is its words' [start, end] intervals merged across pauses shorter than
 * MERGE_GAP_SEC (the pause between two words of one sentence is talk, not silence). Overtalk is the
 * time covered by two or more parties' speech; silence is every stretch between the first and the
 * last word of the call where no party speaks and that lasts at least MIN_SILENCE_SEC (leading and
 * trailing silence, ringing and hold music before the first word, are not counted). An interruption is
 * a stretch of a party's speech that starts while another party is speaking and lasts at least
 * MIN_INTERRUPTION_SEC ("mm-hmm" under someone else's sentence is not one); it is counted for the party
 * that started talking (`interruptions`: by whom). Utterances marked `crosstalk` are not speech. Fillers
 * (`<sil>`, `[noise]`, `++breath++`) are not speech. An utterance without word events counts as one
 * interval over its span.
 */
import { isSpoken } from '../text/event-kind.js';
import type { CallMetrics, WordEvent } from '../types.js';
import { partyKey } from './sentiment.js';


/** Pauses shorter than this inside one party's speech are talk. */
export const MERGE_GAP_SEC = 0.5;
/** Gaps with nobody speaking shorter than this are turn-taking, not silence. */
export const MIN_SILENCE_SEC = 1.0;
/** A party that starts talking while another talks interrupts it when it goes on this long (shorter: a back-channel). */
export const MIN_INTERRUPTION_SEC = 1.0;

export type Interval = [number, number];

interface MetricsUtterance {
  start: number;
  end: number;
  metadata: { channel: number; speaker?: string; crosstalk?: boolean };
  events: ReadonlyArray<Pick<WordEvent, 'word' | 'start' | 'end' | 'kind' | 'redacted'>>;
}

/** Sorted, merged intervals (pauses under `gap` closed). */
export function mergeIntervals(intervals: Interval[], gap = 0): Interval[] {
  const sorted = intervals.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s - last[1] < gap + 1e-9) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Each party's speech intervals and word count. */
export function partySpeech(utterances: readonly MetricsUtterance[]): Map<string, { speech: Interval[]; words: number }> {
  const raw = new Map<string, { intervals: Interval[]; words: number }>();
  for (const u of utterances) {
    if (u.metadata.crosstalk) continue;
    const key = partyKey(u);
    let p = raw.get(key);
    if (!p) raw.set(key, (p = { intervals: [], words: 0 }));
    const words = u.events.filter((e) => typeof e.word === 'string' && isSpoken(e));
    if (words.length === 0 && u.events.length === 0) p.intervals.push([u.start, u.end]);
    for (const w of words) p.intervals.push([w.start, w.end]);
    p.words += words.length;
  }
  const out = new Map<string, { speech: Interval[]; words: number }>();
  for (const [key, p] of raw) out.set(key, { speech: mergeIntervals(p.intervals, MERGE_GAP_SEC), words: p.words });
  return out;
}

/** The stretches where two or more parties speak, and the silences (see the module comment). */
export function callEvents(utterances: readonly MetricsUtterance[]): { overtalk: Interval[]; silence: Interval[] } {
  const parties = [...partySpeech(utterances).values()];
  // Sweep over start/end points counting how many parties speak.
  const points: Array<[number, number]> = [];
  for (const p of parties) for (const [s, e] of p.speech) points.push([s, 1], [e, -1]);
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const overtalk: Interval[] = [];
  const gaps: Interval[] = [];
  let active = 0;
  let overtalkFrom = 0;
  let quietFrom: number | undefined; // undefined before the first word
  for (const [t, d] of points) {
    const before = active;
    active += d;
    if (before < 2 && active >= 2) overtalkFrom = t;
    if (before >= 2 && active < 2 && t > overtalkFrom) overtalk.push([overtalkFrom, t]);
    if (before > 0 && active === 0) quietFrom = t;
    if (before === 0 && active > 0 && quietFrom !== undefined && t > quietFrom) gaps.push([quietFrom, t]);
  }
  const silence = gaps.filter(([s, e]) => e - s >= MIN_SILENCE_SEC);
  return { overtalk: mergeIntervals(overtalk), silence };
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const total = (xs: Interval[]) => xs.reduce((n, [s, e]) => n + (e - s), 0);

/** Interruptions by each party (see the module comment). */
export function interruptions(parties: ReadonlyMap<string, { speech: Interval[] }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, p] of parties) {
    out[key] = p.speech.filter(([s, e]) => e - s >= MIN_INTERRUPTION_SEC && [...parties].some(([other, q]) => other !== key && q.speech.some(([qs, qe]) => qs < s && qe > s))).length;
  }
  return out;
}

/** The document's top-level `metrics`. */
export function callMetrics(utterances: readonly MetricsUtterance[]): CallMetrics {
  const parties = partySpeech(utterances);
  const { overtalk, silence } = callEvents(utterances);
  const talksecs: Record<string, number> = {};
  const wordsperminute: Record<string, number> = {};
  for (const key of [...parties.keys()].sort()) {
    const p = parties.get(key)!;
    const secs = total(p.speech);
    talksecs[key] = r2(secs);
    wordsperminute[key] = secs > 0 ? Math.round((p.words / secs) * 60) : 0;
  }
  return {
    overtalksecs: r2(total(overtalk)),
    silencesecs: r2(total(silence)),
    longestsilencesecs: r2(Math.max(0, ...silence.map(([s, e]) => e - s))),
    talksecs,
    wordsperminute,
    interruptions: Object.fromEntries(Object.entries(interruptions(parties)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}
