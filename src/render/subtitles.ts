/**
 * Subtitle outputs of a transcript: SubRip (`srt`) and WebVTT (`vtt`). Cues are in time order across
 * channels (ties: channel, then uttid); an utterance longer than a reader can take in is split at
 * word boundaries (word times from `events`) so that a cue spans at most MAX_CUE_SEC and holds at most
 * two lines of MAX_LINE_CHARS (the usual subtitle guidance: 42 characters a line, 2 lines, ~7 s).
 * Each cue starts as the `text` output's lines do: `[speaker] ` when diarized, `[channel] ` with several channels.
 */
import type { TranscriptDocument, Utterance, WordEvent } from '../types.js';
import { linePrefix } from './line-prefix.js';

export const MAX_LINE_CHARS = 42;
export const MAX_CUE_SEC = 7;

export interface Cue {
  start: number;
  end: number;
  /** One or two lines. */
  lines: string[];
}

function ordered(doc: TranscriptDocument): Utterance[] {
  return [...doc.utterances].sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel || a.metadata.uttid - b.metadata.uttid);
}

/** Breaks words into at most two lines of MAX_LINE_CHARS (a longer single word stays whole); null if they do not fit. */
function wrap(words: string[]): string[] | null {
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line === '') line = w;
    else if (line.length + 1 + w.length <= MAX_LINE_CHARS) line += ` ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line !== '') lines.push(line);
  return lines.length <= 2 ? lines : null;
}

/** The cues of a document, in time order. */
export function cues(doc: TranscriptDocument): Cue[] {
  const prefix = (u: Utterance) => linePrefix(doc, u);
  const out: Cue[] = [];
  for (const u of ordered(doc)) {
    const events = u.events.filter((e) => e.word !== '');
    if (events.length === 0) continue;
    let group: WordEvent[] = [];
    const flush = () => {
      if (group.length === 0) return;
      const words = group.map((e) => e.word);
      words[0] = prefix(u) + words[0];
      out.push({ start: group[0]!.start, end: Math.max(group[group.length - 1]!.end, group[0]!.start), lines: wrap(words) ?? [words.join(' ')] });
      group = [];
    };
    for (const e of events) {
      const next = [...group, e];
      const words = next.map((x) => x.word);
      words[0] = prefix(u) + words[0];
      if (group.length > 0 && (e.end - group[0]!.start > MAX_CUE_SEC || wrap(words) === null)) flush();
      group.push(e);
    }
    flush();
  }
  // A long utterance split into cues overlaps the other channels' utterances: order all cues by start
  // (a stable sort: ties keep channel, then uttid order).
  return out.sort((x, y) => x.start - y.start);
}

/** 3723.5 → "01:02:03,500" (srt) or "01:02:03.500" (vtt). */
export function timestamp(sec: number, sep: ',' | '.'): string {
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
