/**
 * Jobs: upload recordings (ui/src/upload-form.ts), and the recent requests with state, queue
 * position, progress, ETA, per-file errors, cancel, their callbacks (a failed delivery waiting for
 * its retry shows when that is; a finished request's callbacks can be sent again), and uploads of a recording already sent (same content). Refreshes
 * every 2 s while something is queued or running or a callback waits for its next try.
 */
import { ApiError, call, json, type Account, type RequestSummary } from './api.js';
import { announce, h, replace } from './dom.js';
import { dateTime, duration, percent } from './format.js';
import { hashOf } from './search-view.js';
import { token } from './session.js';
import { uploadForm } from './upload-form.js';

const REFRESH_MS = 2000;
const SHOWN = 50;

export async function renderJobs(main: HTMLElement, _params: URLSearchParams, account: Account): Promise<() => void> {
  const list = h('div', { class: 'jobs', id: 'jobs' });
  const form = uploadForm(account, token, () => void refresh());
  replace(main, h('h1', { tabindex: '-1' }, 'Jobs'), form, h('section', { 'aria-labelledby': 'recent-title' }, h('h2', { id: 'recent-title' }, 'Recent requests'), list));

  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const refresh = async () => {
    clearTimeout(timer);
    let requests: RequestSummary[];
    try {
      requests = (await json<{ requests: RequestSummary[] }>(`/transcribe/requests?limit=${SHOWN}`)).requests;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) replace(list, h('p', { class: 'error', role: 'alert' }, (err as Error).message));
      return;
    }
    if (stopped) return;
    renderList(list, requests, account, () => void refresh());
    // A callback being sent is followed too: its outcome (delivered, or failed with its next try) comes after the request is done.
    const busy = requests.some((r) => r.state === 'queued' || r.state === 'running' || r.callbacks.some((c) => c.state === 'pending' || c.state === 'inflight'));
    if (busy) timer = setTimeout(() => void refresh(), REFRESH_MS);
  };
  await refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function renderList(el: HTMLElement, requests: RequestSummary[], account: Account, changed: () => void): void {
  // A refresh keeps the error lists that were open, open.
  const open = new Set([...el.querySelectorAll('details[open]')].map((d) => d.closest('tr')?.dataset.requestid));
  if (requests.length === 0) {
    replace(el, h('p', { class: 'empty' }, 'No requests yet. Upload a recording above.'));
    return;
  }
  const head = ['Submitted', 'File', 'Destination', 'State', 'Progress', 'Files', 'Callback', ''].map((t) => h('th', { scope: 'col' }, t));
  const rows = requests.map((r) => {
    const dest = `${account.principal === 'root' ? `${r.destination.company} / ` : ''}${r.destination.org} / ${r.destination.folder}`;
    const active = r.state === 'queued' || r.state === 'running';
    const progress = h('progress', { max: 1, value: r.progress, 'aria-label': `Progress of ${r.source}` });
    const progressText = r.state === 'queued'
      ? `queued, position ${r.queuePosition}${r.etaSeconds ? ` · about ${duration(r.etaSeconds)}` : ''}`
      : r.state === 'running'
        ? `${percent(r.progress)}${r.etaSeconds ? ` · about ${duration(r.etaSeconds)} left` : ''}`
        : r.finished ? `finished ${dateTime(r.finished)}` : '';
    const errors = [...(r.error && r.state !== 'done' ? [{ file: r.source, error: r.error }] : []), ...r.fileErrors];
    const actions: HTMLElement[] = [];
    if (active) {
      const cancel = h('button', { type: 'button', class: 'secondary danger' }, 'Cancel');
      cancel.setAttribute('aria-label', `Cancel ${r.source}`);
      cancel.addEventListener('click', async () => {
        cancel.disabled = true;
        try {
          await call(`/transcribe/${encodeURIComponent(r.requestid)}/cancel`, { method: 'POST' });
          announce(`Cancelled ${r.source}`);
        } catch (err) {
          announce((err as Error).message);
        }
        changed();
      });
      actions.push(cancel);
    }
    // A finished request's callbacks can be sent again (the receiver lost one, or refused it for good).
    if (!active && r.callbacks.length > 0 && r.callbacks.every((c) => c.state !== 'inflight')) {
      const resend = h('button', { type: 'button', class: 'secondary' }, 'Send callback again');
      resend.setAttribute('aria-label', `Send callback again for ${r.source}`);
      resend.addEventListener('click', async () => {
        resend.disabled = true;
        try {
          await call(`/transcribe/${encodeURIComponent(r.requestid)}/callback`, { method: 'POST' });
          announce(`The callback of ${r.source} will be sent again`);
        } catch (err) {
          announce((err as Error).message);
        }
        changed();
      });
      actions.push(resend);
    }
    if (r.files.done > 0) {
      const hash = hashOf('search', { co: account.principal === 'root' ? r.destination.company : undefined, org: r.destination.org, folder: r.destination.folder, requestid: r.requestid });
      actions.push(h('a', { class: 'button secondary', href: hash, 'aria-label': `Transcripts of ${r.source}` }, 'Transcripts'));
    }
    return h(
      'tr',
      { 'data-requestid': r.requestid, 'data-state': r.state },
      h('td', { 'data-label': 'Submitted' }, dateTime(r.created)),
      h('th', { scope: 'row', 'data-label': 'File' }, r.source, r.kind === 'archive' ? h('span', { class: 'muted' }, ' (archive)') : null, duplicateNote(r)),
      h('td', { 'data-label': 'Destination' }, dest),
      h('td', { 'data-label': 'State' }, h('span', { class: `state state-${r.state}` }, r.state)),
      h('td', { 'data-label': 'Progress' }, active ? progress : null, h('span', { class: 'progress-text' }, progressText)),
      h(
        'td',
        { 'data-label': 'Files' },
        `${r.files.done} of ${r.files.total} done${r.files.failed ? `, ${r.files.failed} failed` : ''}`,
        errors.length
          ? h('details', { class: 'file-errors', open: open.has(r.requestid) }, h('summary', {}, errors.length === 1 ? '1 error' : `${errors.length} errors`), h('ul', {}, errors.map((x) => h('li', {}, h('strong', {}, x.file), `: ${x.error.message} (${x.error.code})`))))
          : null,
      ),
      h('td', { 'data-label': 'Callback' }, callbackCell(r)),
      h('td', { class: 'actions' }, actions),
    );
  });
  replace(el, h('table', { class: 'jobs-table' }, h('caption', { class: 'sr' }, 'Recent requests, newest first'), h('thead', {}, h('tr', {}, head)), h('tbody', {}, rows)));
}

/** Each callback of the request: delivered (when), or failed so far with its attempts, last error and next try. */
function callbackCell(r: RequestSummary): HTMLElement | string {
  if (r.callbacks.length === 0) return h('span', { class: 'muted' }, 'none');
  return h('ul', { class: 'callbacks' }, r.callbacks.map((c) => {
    const what = c.kind === 'error' ? 'failure notice' : 'result';
    if (c.state === 'delivered') return h('li', { class: 'cb cb-delivered' }, `${what} delivered${c.deliveredAt ? ` ${dateTime(c.deliveredAt)}` : ''}`);
    const tries = `${c.attempts} ${c.attempts === 1 ? 'attempt' : 'attempts'}`;
    if (c.state === 'inflight') return h('li', { class: 'cb' }, `${what}: sending now`);
    if (c.state === 'pending' && c.attempts === 0) return h('li', { class: 'cb' }, `${what}: to be sent`);
    if (c.state === 'pending') {
      return h('li', { class: 'cb cb-retry' }, h('strong', {}, `${what} failed, will retry`), ` · ${tries}`,
        c.nextAttemptAt ? ` · next try ${dateTime(c.nextAttemptAt)}` : '', c.lastError ? h('span', { class: 'cb-error' }, ` · ${c.lastError}`) : null);
    }
    return h('li', { class: 'cb cb-failed' }, h('strong', {}, `${what} not delivered (gave up)`), ` · ${tries}`, c.lastError ? h('span', { class: 'cb-error' }, ` · ${c.lastError}`) : null);
  }));
}

/** An upload whose content (sha256) was sent before to the same company: which request it repeats. */
function duplicateNote(r: RequestSummary): HTMLElement | null {
  const dup = r.duplicateOf;
  if (!dup) return null;
  return h('span', { class: 'duplicate', role: 'note' }, h('strong', {}, 'Same recording as '), `${dup.source} (request ${dup.requestid}, ${dateTime(dup.created)})`);
}
