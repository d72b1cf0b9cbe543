/**
 * Renders a transcript document in the requested output (docs/service.md, "Results"; docs/readable.md):
 * - `json`: the document, null/undefined fields omitted;
 * - `jsontop`: the top-level fields only, utterance detail collapsed into one `text` field
 *   (one channel, not diarized: the utterances' texts in order on one line; else the `text` lines);
 * - `text`: one line per utterance in time order, `[mm:ss] Speaker: text` (the role, speaker or
 *   channel as known, line-prefix.ts; a mono call without speakers: `[mm:ss] text`);
 * - `srt`, `vtt`: subtitles (SubRip, WebVTT), see subtitles.ts.
 */
import { setOwn } from '../is.js';
import { displayText } from '../readable/utterance-text.js';
import type { OutputFormat, TranscriptDocument, Utterance } from '../types.js';
import { linePrefix } from './line-prefix.js';
import { renderSrt, renderVtt } from './subtitles.js';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'jsontop', 'text', 'srt', 'vtt'];

const EXTENSION: Record<OutputFormat, string> = { json: 'json', jsontop: 'json', text: 'txt', srt: 'srt', vtt: 'vtt' };
const MIME: Record<string, string> = {
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  zip: 'application/zip',
};

export function outputExtension(output: OutputFormat): string {
  return EXTENSION[output];
}

/** The media type of a result file by its extension (json, txt, srt, vtt, zip). */
function mimeForExtension(ext: string): string {
  return MIME[ext] ?? 'application/octet-stream';
}

/** The media type of a result file (a blob key or file name) by its extension. */
export function resultMime(file: string): string {
  return mimeForExtension(file.slice(file.lastIndexOf('.') + 1));
}

/** Utterances in time order (ties: channel, then uttid). */
function ordered(doc: TranscriptDocument): Utterance[] {
  return [...doc.utterances].sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel || a.metadata.uttid - b.metadata.uttid);
}

/** 75.4 → "01:15"; from an hour on, "1:02:03". */
function clockTime(sec: number): string {
  const s = Math.max(0, Math.floor(sec));
  const pad = (n: number) => String(n).padStart(2, '0');
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${pad(m)}:${pad(s % 60)}`;
}

function multiChannel(doc: TranscriptDocument): boolean {
  return doc.nchannels > 1;
}

function diarized(doc: TranscriptDocument): boolean {
  return doc.utterances.some((u) => u.metadata.speaker);
}

/** The lines of `output=text`, without line ends: `[mm:ss] Speaker: text`. */
function textLines(doc: TranscriptDocument): string[] {
  return ordered(doc)
    .map((u) => ({ u, text: displayText(u) }))
    .filter((x) => x.text.length > 0)
    .map(({ u, text }) => `[${clockTime(u.start)}] ${linePrefix(doc, u)}${text}`);
}

function omitNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(omitNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) setOwn(out, k, omitNulls(v));
    return out;
  }
  return value;
}

export function renderTranscript(doc: TranscriptDocument, output: OutputFormat): string {
  switch (output) {
    case 'json':
      return JSON.stringify(omitNulls(doc));
    case 'jsontop': {
      const { utterances: _drop, ...top } = doc;
      const text = multiChannel(doc) || diarized(doc) ? textLines(doc).join('\n') : ordered(doc).map(displayText).filter(Boolean).join(' ');
      return JSON.stringify(omitNulls({ ...top, text }));
    }
    case 'text': {
      const lines = textLines(doc);
      return lines.length ? `${lines.join('\n')}\n` : '';
    }
    case 'srt':
      return renderSrt(doc);
    case 'vtt':
      return renderVtt(doc);
  }
}
