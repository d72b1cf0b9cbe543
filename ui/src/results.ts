/** The result list of a search: one entry per call with its hits (snippets with the hit words marked), and paging. */
import type { Row } from './api.js';
import { h, replace } from './dom.js';
import { clock, dateTime, dateTimeSeconds, duration } from './format.js';
import { hitWordTest, markSnippet } from './snippet.js';

/** Hits shown per call before "more". */
const HITS_SHOWN = 5;

export interface ResultsOptions {
  offset: number;
  pageSize: number;
  terms: string;
  /** What a call link carries besides the call (scope, terms, the search to go back to). */
  callState: Record<string, string | undefined>;
  exports: HTMLElement;
  page: (offset: number) => void;
}

export function callHash(state: Record<string, string | undefined>, row: Row): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...state, tid: row.tid, file: row.filename, dt: row.datetime })) if (v) q.set(k, v);
  return `#/call?${q}`;
}

export function renderResults(section: HTMLElement, answer: { total: number; rows: Row[] }, o: ResultsOptions): void {
  const { total, rows } = answer;
  const first = total === 0 ? 0 : o.offset + 1;
  const last = o.offset + rows.length;
  const heading = h('h2', { id: 'results-title' }, total === 1 ? '1 call' : `${total} calls`);
  const range = h('span', { class: 'muted range' }, total > 0 ? `${first}–${last} of ${total}` : '');
  if (total === 0) {
    replace(section, h('div', { class: 'results-head' }, heading), h('p', { class: 'empty' }, o.terms ? 'No call says that. Try fewer words, a wildcard (refund*) or OR (refund | credit).' : 'No calls in this scope yet.'));
    return;
  }
  const isHit = hitWordTest(o.terms);
  const list = h('ol', { class: 'result-list', start: first });
  const frag = document.createDocumentFragment();
  // Calls of the same file name on this page are told apart by their call time to the second and their id.
  const names = new Map<string, number>();
  for (const row of rows) names.set(row.filename, (names.get(row.filename) ?? 0) + 1);
  for (const row of rows) frag.append(resultItem(row, o, isHit, (names.get(row.filename) ?? 0) > 1));
  list.append(frag);
  replace(section, h('div', { class: 'results-head' }, heading, range, o.exports), list, pager(total, o));
}

function resultItem(row: Row, o: ResultsOptions, isHit: (w: string) => boolean, sameName: boolean): HTMLLIElement {
  const meta = [
    h('span', {}, h('span', { class: 'sr' }, 'Call date '), sameName ? dateTimeSeconds(row.datetime) : dateTime(row.datetime)),
    h('span', {}, h('span', { class: 'sr' }, 'Duration '), duration(row.duration)),
    h('span', {}, row.nchannels === 1 ? '1 channel' : `${row.nchannels} channels`),
    h('span', {}, row.model),
    row.confidence !== undefined ? h('span', {}, `confidence ${row.confidence.toFixed(2)}`) : null,
    ...Object.entries(row.metadata ?? {}).slice(0, 4).map(([k, v]) => h('span', { class: 'tag' }, `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)),
    ...(row.categories ?? []).map((c) => h('span', { class: 'chip', title: 'Category' }, c)),
    h('span', { class: 'tid', title: 'Transcript id' }, h('span', { class: 'sr' }, 'Transcript id '), `#${row.tid.slice(0, 8)}`),
  ];
  const call = callHash(o.callState, row);
  const hits = row.hits.map((hit, i) =>
    h(
      'li',
      { hidden: i >= HITS_SHOWN },
      h(
        'a',
        { class: 'hit', href: `${call}&t=${hit.start}&hc=${hit.channel}` },
        h('span', { class: 'at' }, h('span', { 'aria-hidden': 'true' }, '\u25b6\u00a0'), clock(hit.start)),
        h('span', { class: 'ch' }, `ch\u00a0${hit.channel}`),
        hit.role ? h('span', { class: 'role' }, hit.role) : null,
        h('span', { class: 'snip' }, '\u2026', markSnippet(hit.text, isHit), '\u2026'),
      ),
    ),
  );
  const hitList = hits.length ? h('ul', { class: 'hits', 'aria-label': `Hits in ${row.filename}` }, hits) : null;
  let more: HTMLButtonElement | null = null;
  if (hits.length > HITS_SHOWN) {
    more = h('button', { type: 'button', class: 'link more' }, `Show all ${hits.length} hits`);
    more.addEventListener('click', () => {
      hits.forEach((li) => (li.hidden = false));
      more!.remove();
      hits[HITS_SHOWN]?.querySelector('a')?.focus(); // keyboard users continue at the first new hit
    });
  }
  return h(
    'li',
    { class: 'result', 'data-tid': row.tid },
    h(
      'div',
      { class: 'result-head' },
      h('a', { class: 'file', href: call }, row.filename, sameName ? h('span', { class: 'muted same-name' }, ` (${dateTimeSeconds(row.datetime)})`) : null),
      // Browsing without words has no hits to count: no "0 hits" on every call.
      o.terms.trim() ? h('span', { class: 'score', title: 'Hits (score)' }, row.score === 1 ? '1 hit' : `${row.score} hits`) : null,
    ),
    h('div', { class: 'meta' }, meta),
    hitList,
    more,
  );
}

function pager(total: number, o: ResultsOptions): HTMLElement | null {
  if (total <= o.pageSize) return null;
  const page = Math.floor(o.offset / o.pageSize) + 1;
  const pages = Math.ceil(total / o.pageSize);
  const prev = h('button', { type: 'button', class: 'secondary', disabled: o.offset === 0 }, '\u2190 Previous');
  const next = h('button', { type: 'button', class: 'secondary', disabled: o.offset + o.pageSize >= total }, 'Next \u2192');
  prev.addEventListener('click', () => o.page(Math.max(0, o.offset - o.pageSize)));
  next.addEventListener('click', () => o.page(o.offset + o.pageSize));
  return h('nav', { class: 'pager', 'aria-label': 'Result pages' }, prev, h('span', {}, `Page ${page} of ${pages}`), next);
}
