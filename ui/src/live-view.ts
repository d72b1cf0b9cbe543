/**
 * Live calls (issue 28, docs/live.md "The web page's API"): the calls in progress (GET /live/calls,
 * polled every 2 s), and one call followed as it happens: its utterances (readable text when there
 * is), and category alerts the moment a category first matches. The call's messages come from
 * GET /live/calls/{id}/events read with fetch, so the token stays in the Authorization header (an
 * EventSource would have to put it in the URL). When the call ends, a link opens its transcript.
 */
import { isSpoken } from '../../src/text/event-kind.js';
import type { LiveCallInfo as LiveCall, WordEvent } from '../../src/types.js';
import { call, json, type Account } from './api.js';
import { announce, h, replace } from './dom.js';
import { clock, dateTime, duration } from './format.js';
import { hashOf } from './search-view.js';

const POLL_MS = 2000;


/** A live message (API.md §11) as far as the page reads it. */
interface LiveMessage {
  type: string;
  requestid?: string;
  name?: string;
  at?: number;
  code?: string;
  message?: string;
  text?: string;
  start?: number;
  metadata?: { channel: number; speaker?: string };
  events?: Array<Pick<WordEvent, 'word' | 'kind' | 'redacted'>>;
}

/** Splits a server-sent event stream into its `data:` payloads (one per event). */
export function sseData(buffer: string): { events: string[]; rest: string } {
  const parts = buffer.split(/\r?\n\r?\n/);
  const rest = parts.pop() ?? '';
  const events = parts
    .map((block) => block.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n'))
    .filter((d) => d !== '');
  return { events, rest };
}

export async function renderLive(main: HTMLElement, params: URLSearchParams, account: Account): Promise<() => void> {
  const following = params.get('call');
  const list = h('div', { class: 'live-list', 'aria-live': 'polite' }, h('p', { class: 'muted' }, 'Looking for calls in progress…'));
  const follow = h('section', { class: 'live-follow', 'aria-labelledby': 'live-call-title' });
  replace(main, h('h1', { tabindex: '-1' }, 'Live calls'), h('section', { 'aria-labelledby': 'live-now' }, h('h2', { id: 'live-now' }, 'In progress'), list), following ? follow : null);

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = async () => {
    try {
      const { calls } = await json<{ calls: LiveCall[] }>('/live/calls');
      if (!stopped) replace(list, callTable(calls, account, following));
    } catch (err) {
      if (!stopped) replace(list, h('p', { class: 'error', role: 'alert' }, (err as Error).message));
    }
    if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
  };
  await poll();
  const abort = new AbortController();
  if (following) void followCall(follow, following, abort.signal);
  return () => {
    stopped = true;
    clearTimeout(timer);
    abort.abort();
  };
}

function callTable(calls: LiveCall[], account: Account, following: string | null): HTMLElement {
  if (calls.length === 0) return h('p', { class: 'empty' }, 'No call in progress on this node. Live calls stream to GET /transcribe/stream (docs/live.md).');
  return h('div', { class: 'table-scroll' }, h('table', { class: 'data' },
    h('caption', { class: 'sr' }, 'Calls in progress'),
    h('thead', {}, h('tr', {}, ['Started', 'Where', 'Length', 'Utterances', 'Categories so far', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, calls.map((c) => h('tr', { 'data-requestid': c.requestid },
      h('td', {}, dateTime(c.started)),
      h('th', { scope: 'row' }, `${account.principal === 'root' ? `${c.company} / ` : ''}${c.org} / ${c.folder}`),
      h('td', {}, duration(c.audiosecs)),
      h('td', {}, String(c.utterances)),
      h('td', {}, c.categories.length ? c.categories.map((n) => h('span', { class: 'chip' }, n)) : h('span', { class: 'muted' }, 'none')),
      h('td', {}, c.requestid === following ? h('span', { class: 'muted' }, 'following') : h('a', { class: 'button secondary', href: hashOf('live', { call: c.requestid }), 'aria-label': `Follow the call started ${dateTime(c.started)}` }, 'Follow')))))));
}

/** Reads the call's messages as they come and draws them. */
async function followCall(section: HTMLElement, id: string, signal: AbortSignal): Promise<void> {
  const alerts = h('ul', { class: 'live-alerts', 'aria-live': 'assertive' });
  const lines = h('ol', { class: 'live-lines', 'aria-live': 'polite' });
  const status = h('p', { class: 'muted', role: 'status' }, 'Connecting…');
  replace(section, h('h2', { id: 'live-call-title' }, `Call ${id}`), status, h('h3', {}, 'Category alerts'), alerts, h('h3', {}, 'Transcript so far'), lines);
  let res: Response;
  try {
    res = await call(`/live/calls/${encodeURIComponent(id)}/events`, { accept: 'text/event-stream' });
  } catch (err) {
    status.textContent = (err as Error).message;
    return;
  }
  status.textContent = 'Live: new utterances appear as they are said.';
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => {}));
  let buffer = '';
  for (;;) {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch {
      return;
    }
    if (chunk.done) break;
    const { events, rest } = sseData(buffer + chunk.value);
    buffer = rest;
    for (const data of events) {
      let m: LiveMessage;
      try {
        m = JSON.parse(data) as LiveMessage;
      } catch {
        continue;
      }
      show(m, { alerts, lines, status, id });
    }
  }
  if (!status.querySelector('a')) status.textContent = 'The call has ended.';
}

function show(m: LiveMessage, v: { alerts: HTMLElement; lines: HTMLElement; status: HTMLElement; id: string }): void {
  if (m.type === 'utterance') {
    const who = m.metadata?.speaker ?? `Channel ${m.metadata?.channel ?? 0}`;
    const text = m.text ?? (m.events ?? []).filter(isSpoken).map((e) => e.word).join(' ');
    v.lines.append(h('li', { class: 'live-line' }, h('span', { class: 'muted' }, `${clock(m.start ?? 0)} ${who}: `), text));
    v.lines.lastElementChild?.scrollIntoView({ block: 'nearest' });
  } else if (m.type === 'category' && m.name) {
    v.alerts.append(h('li', { class: 'live-alert' }, h('span', { class: 'chip' }, m.name), ` matched at ${clock(m.at ?? 0)}`));
    announce(`Category ${m.name} matched`);
  } else if (m.type === 'result') {
    replace(v.status, 'The call has ended: ', h('a', { href: hashOf('search', { requestid: m.requestid ?? v.id }) }, 'its transcript'), '.');
  } else if (m.type === 'error') {
    replace(v.status, h('span', { class: 'error' }, `The call ended with an error: ${m.message ?? m.code ?? ''}`));
  }
}
