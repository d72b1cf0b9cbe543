/**
 * Rendering of search results (docs/search.md, "Responses"): count, summary (JSON / CSV), details, zip, and errors, with
 * the MIME rules existing clients expect: text/html unless the client's Accept names the exact type.
 */
import { Readable } from 'node:stream';
import yazl from 'yazl';
import type { VoxdexError } from '../errors.js';
import { isSpoken } from '../text/event-kind.js';
import type { TranscriptDocument } from '../types.js';
import type { SummaryField, ZipFile } from './search-options.js';
import type { StoredTranscript, SummaryRow } from './transcript-index.js';

export interface Rendered {
  status: number;
  type: string;
  body: string;
}

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/** Does the Accept header name this exact media type (with q > 0)? Wildcards do not count. */
export function accepts(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [media, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return media === type && !(q && Number(q.slice(2)) === 0);
  });
}

/**
 * Does the Accept header allow this media type at all (RFC 9110: the type itself, its `text/` range or
 * the any-type range, with q > 0; no Accept header allows everything)?
 */
export function allows(accept: string | undefined, type: string): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  const [major] = type.split('/');
  return accept.split(',').some((part) => {
    const [media, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (media === type || media === `${major}/*` || media === '*/*') && !(q && Number(q.slice(2)) === 0);
  });
}

/** JSON that is safe to serve as text/html: `<`, `>` and `&` escaped (same value when parsed). */
function htmlSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function json(value: unknown, accept: string | undefined, status = 200): Rendered {
  return accepts(accept, 'application/json')
    ? { status, type: JSON_TYPE, body: JSON.stringify(value) }
    : { status, type: HTML, body: htmlSafeJson(value) };
}

export function renderCount(n: number, accept: string | undefined): Rendered {
  return { status: 200, type: accepts(accept, 'application/json') ? JSON_TYPE : HTML, body: String(n) };
}

/** A summary row with only the selected fields, in the stable order. */
function pickFields(row: SummaryRow, fields: readonly SummaryField[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (row[f] !== undefined) out[f] = row[f];
  return out;
}

export function renderSummaryJson(rows: SummaryRow[], fields: readonly SummaryField[], accept: string | undefined): Rendered {
  return json(rows.map((r) => pickFields(r, fields)), accept);
}

/** Cell starts that spreadsheet programs evaluate as a formula (OWASP "CSV Injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field per RFC 4180: quoted when it holds a comma, quote, CR or LF; quotes doubled. A text
 * value that starts with `=`, `+`, `-`, `@`, tab or CR gets a leading `'` (and is quoted), so
 * Excel, LibreOffice and Google Sheets show it as text instead of evaluating it (OWASP). Numbers
 * are written as numbers; objects as JSON (which starts with `{` or `[`).
 */
export function csvField(value: unknown): string {
  const s = value === undefined || value === null ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(s)) return `"'${s.replace(/"/g, '""')}"`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Summary CSV: header row, then one row per transcript, CRLF line ends. Columns in the order of
 * SUMMARY_FIELDS; `metadata` becomes one `meta.<field>` column per field present in any row (sorted);
 * `speakers` the diarized transcripts' speakers separated by spaces (the column only when a row has some), `hits` is the JSON array of hits;
 * `categories` (a column only when a row of the page has any) the names joined by `;`. Served as text/csv unless the client's Accept excludes it; then
 * as text/html with `&`, `<`, `>` written as entities (never markup from a transcript in an HTML body).
 */
export function renderSummaryCsv(rows: SummaryRow[], fields: readonly SummaryField[], accept: string | undefined): Rendered {
  const metaFields = [...new Set(rows.flatMap((r) => Object.keys(r.metadata)))].sort();
  const diarized = rows.some((r) => r.speakers);
  const anyCategories = rows.some((r) => r.categories !== undefined);
  const shown = (f: SummaryField) => (f === 'speakers' ? diarized : f === 'categories' ? anyCategories : true);
  const columns = fields.flatMap((f) => (f === 'metadata' ? metaFields.map((m) => `meta.${m}`) : shown(f) ? [f] : []));
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) {
    lines.push(
      columns
        .map((c) => csvField(c.startsWith('meta.') ? row.metadata[c.slice(5)] : c === 'speakers' ? (row.speakers ?? []).join(' ') : c === 'categories' ? (row.categories ?? []).join(';') : row[c as keyof SummaryRow]))
        .join(','),
    );
  }
  const body = `${lines.join('\r\n')}\r\n`;
  return allows(accept, 'text/csv') ? { status: 200, type: CSV_TYPE, body } : { status: 200, type: HTML, body: escapeHtml(body) };
}

export function renderDetails(docs: StoredTranscript[], accept: string | undefined): Rendered {
  return json(docs, accept);
}

/** The `text` output (docs/service.md, "Results"): one line per utterance in time order; `[speaker] ` when diarized, else `[channel] ` when several channels. */
export function documentText(doc: TranscriptDocument): string {
  const many = (doc.nchannels ?? 1) > 1;
  const utts = [...(doc.utterances ?? [])].sort((a, b) => a.start - b.start || (a.metadata?.channel ?? 0) - (b.metadata?.channel ?? 0));
  const lines = utts
    .map((u) => ({ u, text: (u.events ?? []).filter(isSpoken).map((e) => e.word).join(' ') }))
    .filter((l) => l.text !== '')
    .map(({ u, text }) => (u.metadata?.speaker ? `[${u.metadata.speaker}] ${text}` : many ? `[${u.metadata?.channel ?? 0}] ${text}` : text));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A file name for a transcript inside the zip: the source's base name without extension, else the tid. */
function entryBase(doc: StoredTranscript, taken: Set<string>): string {
  const base = (doc.source ?? '').split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_').replace(/^\.+/, '');
  const safeTid = doc.tid.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '') || 'transcript';
  let name = base || safeTid;
  if (taken.has(name)) name = `${name}-${safeTid}`;
  for (let i = 2; taken.has(name); i++) name = `${base || safeTid}-${safeTid}-${i}`;
  taken.add(name);
  return name;
}

/** The zip of the matches: `<name>.json` (the document with its tid) and/or `<name>.txt` per transcript. */
export function renderZip(docs: StoredTranscript[], zipfiles: readonly ZipFile[]): Readable {
  const zip = new yazl.ZipFile();
  const taken = new Set<string>();
  const mtime = new Date();
  for (const doc of docs) {
    const name = entryBase(doc, taken);
    if (zipfiles.includes('json')) zip.addBuffer(Buffer.from(`${JSON.stringify(doc, null, 2)}\n`), `${name}.json`, { mtime });
    if (zipfiles.includes('text')) zip.addBuffer(Buffer.from(documentText(doc)), `${name}.txt`, { mtime });
  }
  zip.end();
  return zip.outputStream as Readable;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Errors on /search: the message as text/html, or {"error":{code,message}} for Accept: application/json. */
export function renderError(err: VoxdexError, accept: string | undefined): Rendered {
  return accepts(accept, 'application/json')
    ? { status: err.status, type: JSON_TYPE, body: JSON.stringify({ error: { code: err.code, message: err.message } }) }
    : { status: err.status, type: HTML, body: escapeHtml(err.message) };
}
