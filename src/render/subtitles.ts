/**
 * Subtitle outputs of a transcript: SubRip (`srt`) and WebVTT (`vtt`), from each utterance's readable
 * `text`, timed by its events (src/readable/text-timing.ts). Cues are in time order across channels
 * (ties: channel, then uttid). A cue holds at most two lines of MAX_LINE_CHARS and spans at most
 * MAX_CUE_SEC (the usual subtitle guidance: 42 characters a line, 2 lines, ~7 s). An utterance is cut
 * where it pauses for PAUSE_BREAK_SEC or more, and a cue that would be too long is cut at the best
 * place that leaves it at least half full: after a sentence, else at a pause or a comma, else before
 * the word that does not fit; a single token longer than that (a long numeral read slowly) is shown for
 * MAX_CUE_SEC from its start. A cue's lines break at punctuation when that keeps them balanced. The
 * first cue of each utterance starts with its speaker (`Agent: `, `S1: `, `C0: `) when there is one.
 */
import { timeTokens, type TimedToken } from '../readable/text-timing.js';
import { displayText } from '../readable/utterance-text.js';
import type { TranscriptDocument, Utterance } from '../types.js';
import { linePrefix } from './line-prefix.js';

const MAX_LINE_CHARS = 42;
const MAX_CUE_SEC = 7;
/** A silence this long inside an utterance always ends a cue (no text on screen over it). */
const PAUSE_BREAK_SEC = 1;
/** A silence this long is a good place to cut a cue that must be cut. */
const PAUSE_SEC = 0.3;

export interface Cue {
  start: number;
  end: number;
  /** One or two lines. */
  lines: string[];
}

function ordered(doc: TranscriptDocument): Utterance[] {
  return [...doc.utterances].sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel || a.metadata.uttid - b.metadata.uttid);
}

/** The best two lines for a cue's text: one line when it fits, else the break that balances them, after punctuation when it can; null if it does not fit in two. */
export function layout(words: readonly string[]): string[] | null {
  const one = words.join(' ');
  if (one.length <= MAX_LINE_CHARS || words.length === 1) return [one];
  let best: { lines: string[]; score: number } | undefined;
  for (let k = 1; k < words.length; k++) {
    const a = words.slice(0, k).join(' ');
    const b = words.slice(k).join(' ');
    if (a.length > MAX_LINE_CHARS || b.length > MAX_LINE_CHARS) continue;
    const score = Math.abs(a.length - b.length) - (/[.,?!;:]$/.test(a) ? 16 : 0);
    if (!best || score < best.score) best = { lines: [a, b], score };
  }
  return best?.lines ?? null;
}

/** How good a place the end of tokens[k - 1] is to cut (0: only if it must). */
function cutScore(tokens: readonly TimedToken[], k: number): number {
  const before = tokens[k - 1]!;
  const after = tokens[k];
  if (/[.?!…]["'”’)\]]*$/.test(before.text)) return 3;
  if (after && after.start - before.end >= PAUSE_SEC) return 2;
  return /[,;:]$/.test(before.text) ? 2 : 0;
}

/** One utterance's tokens as cues: cut at long pauses, then wherever a cue would overflow. */
function utteranceCues(tokens: readonly TimedToken[], prefix: string): Cue[] {
  const out: Cue[] = [];
  const words = (ts: readonly TimedToken[]) => {
    const ws = ts.map((t) => t.text);
    if (out.length === 0 && ws.length > 0) ws[0] = prefix + ws[0];
    return ws;
  };
  const fits = (ts: readonly TimedToken[]) => ts.length <= 1 || (ts[ts.length - 1]!.end - ts[0]!.start <= MAX_CUE_SEC && layout(words(ts)) !== null);
  const emit = (ts: readonly TimedToken[]) => {
    const ws = words(ts);
    // One token can outlast a cue (a card number read slowly is one numeral): its text cannot be cut, so it stays up MAX_CUE_SEC.
    const end = Math.min(Math.max(ts[ts.length - 1]!.end, ts[0]!.start), ts[0]!.start + MAX_CUE_SEC);
    out.push({ start: ts[0]!.start, end, lines: layout(ws) ?? [ws.join(' ')] });
  };
  let cur: TimedToken[] = [];
  for (const t of tokens) {
    const last = cur[cur.length - 1];
    if (last && t.start - last.end >= PAUSE_BREAK_SEC) {
      emit(cur);
      cur = [];
    }
    cur.push(t);
    while (!fits(cur)) {
      // Cut before the token that overflowed, or earlier at a better place that keeps the cue half full.
      const full = cur.length - 1;
      const chars = (k: number) => cur.slice(0, k).reduce((n, x) => n + x.text.length + 1, 0);
      let cut = full;
      let best = 0;
      for (let k = full; k >= 1; k--) {
        const s = cutScore(cur, k);
        if (s > best && chars(k) >= chars(full) / 2) [cut, best] = [k, s];
      }
      emit(cur.slice(0, cut));
      cur = cur.slice(cut);
    }
  }
  if (cur.length > 0) emit(cur);
  return out;
}

/** The cues of a document, in time order. */
export function cues(doc: TranscriptDocument): Cue[] {
  const out: Cue[] = [];
  for (const u of ordered(doc)) {
    const text = displayText(u);
    if (text === '') continue;
    out.push(...utteranceCues(timeTokens(text, u.events), linePrefix(doc, u)));
  }
  // A long utterance split into cues overlaps the other channels' utterances: order all cues by start
  // (a stable sort: ties keep channel, then uttid order).
  return out.sort((x, y) => x.start - y.start);
}

/** 3723.5 → "01:02:03,500" (srt) or "01:02:03.500" (vtt). */
function timestamp(sec: number, sep: ',' | '.'): string {
  const ms = Math.max(0, Math.round(sec * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(ms % 1000, 3)}`;
}

/** SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, a blank line after each. */
export function renderSrt(doc: TranscriptDocument): string {
  return cues(doc)
    .map((c, i) => `${i + 1}\n${timestamp(c.start, ',')} --> ${timestamp(c.end, ',')}\n${c.lines.join('\n')}\n\n`)
    .join('');
}

/** WebVTT cue text: `&`, `<` and `>` are markup there and are escaped. */
function vttText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** WebVTT: the `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`, a blank line between them. */
export function renderVtt(doc: TranscriptDocument): string {
  return `WEBVTT\n\n${cues(doc)
    .map((c) => `${timestamp(c.start, '.')} --> ${timestamp(c.end, '.')}\n${c.lines.map(vttText).join('\n')}\n\n`)
    .join('')}`;
}
