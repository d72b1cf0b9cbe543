/**
 * Jobs: upload a recording or an archive (destination, model, archive password), and the recent
 * requests with state, queue position, progress, ETA, per-file errors and cancel. Refreshes every
 * 2 s while something is queued or running.
 */
import { ApiError, call, json, type Account, type RequestSummary } from './api.js';
import { announce, field, h, option, replace } from './dom.js';
import { dateTime, duration, percent } from './format.js';
import { hashOf } from './search-view.js';

const REFRESH_MS = 2000;
const SHOWN = 50;

export async function renderJobs(main: HTMLElement, _params: URLSearchParams, account: Account): Promise<() => void> {
  const list = h('div', { class: 'jobs', id: 'jobs' });
  const form = uploadForm(account, () => void refresh());
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
    if (requests.some((r) => r.state === 'queued' || r.state === 'running')) timer = setTimeout(() => void refresh(), REFRESH_MS);
  };
  await refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function uploadForm(account: Account, uploaded: () => void): HTMLFormElement {
  const file = h('input', { type: 'file', name: 'file', required: true, accept: '.wav,.zip,.7z,audio/wav,application/zip,application/x-7z-compressed' });
  const company = h('select', { name: 'company' }, account.companies.map((c) => option(c.company, c.company)));
  const dest = h('select', { name: 'destination' });
  const model = h('select', { name: 'model' });
  const zpass = h('input', { type: 'password', name: 'zpass', autocomplete: 'off' });
  const fill = () => {
    const c = account.companies.find((x) => x.company === company.value) ?? account.companies[0];
    if (!c) return;
    const def = `${c.defaultDestination.org}/${c.defaultDestination.folder}`;
    replace(dest, c.orgs.flatMap((o) => o.folders.map((f) => option(`${o.org}/${f}`, `${o.org} / ${f}`, `${o.org}/${f}` === def))));
    replace(model, option('', 'Company default'), c.models.map((m) => option(m, m === 'auto' ? 'auto (by sample rate)' : m)));
  };
  fill();
  company.addEventListener('change', fill);
  const message = h('p', { class: 'upload-message', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const form = h(
    'form',
    { class: 'card upload', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Upload a recording'),
    h(
      'div',
      { class: 'row' },
      field('Recording or archive', file, 'WAV (PCM, mu-law, A-law; 8–16 kHz; any channels), or a zip/7z of WAVs'),
      account.principal === 'root' ? field('Company', company) : null,
      field('Destination', dest),
      field('Model', model),
      field('Archive password', zpass, 'Only for encrypted zip/7z'),
    ),
    h('div', { class: 'row' }, submit, message),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = file.files?.[0];
    if (!f) return;
    const c = account.companies.find((x) => x.company === company.value) ?? account.companies[0]!;
    const [org, folder] = dest.value.split('/');
    const body = new FormData();
    body.set('file', f, f.name);
    if (model.value) body.set('model', model.value);
    if (zpass.value) body.set('zpass', zpass.value);
    submit.disabled = true;
    message.className = 'upload-message';
    message.textContent = `Uploading ${f.name}…`;
    try {
      const path = `/transcribe/${[c.company, org!, folder!].map(encodeURIComponent).join('/')}`;
      const { requestid } = await (await call(path, { method: 'POST', body })).json() as { requestid: string };
      message.textContent = `Accepted ${f.name}: request ${requestid}.`;
      form.reset();
      fill();
      uploaded();
    } catch (err) {
      message.className = 'upload-message error';
      message.textContent = `Not accepted: ${(err as Error).message}`;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function renderList(el: HTMLElement, requests: RequestSummary[], account: Account, changed: () => void): void {
  // A refresh keeps the error lists that were open, open.
  const open = new Set([...el.querySelectorAll('details[open]')].map((d) => d.closest('tr')?.dataset.requestid));
  if (requests.length === 0) {
    replace(el, h('p', { class: 'empty' }, 'No requests yet. Upload a recording above.'));
    return;
  }
  const head = ['Submitted', 'File', 'Destination', 'State', 'Progress', 'Files', ''].map((t) => h('th', { scope: 'col' }, t));
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
    if (r.files.done > 0) {
      const hash = hashOf('search', { co: account.principal === 'root' ? r.destination.company : undefined, org: r.destination.org, folder: r.destination.folder, requestid: r.requestid });
      actions.push(h('a', { class: 'button secondary', href: hash, 'aria-label': `Transcripts of ${r.source}` }, 'Transcripts'));
    }
    return h(
      'tr',
      { 'data-requestid': r.requestid, 'data-state': r.state },
      h('td', { 'data-label': 'Submitted' }, dateTime(r.created)),
      h('th', { scope: 'row', 'data-label': 'File' }, r.source, r.kind === 'archive' ? h('span', { class: 'muted' }, ' (archive)') : null),
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
      h('td', { class: 'actions' }, actions),
    );
  });
  replace(el, h('table', { class: 'jobs-table' }, h('caption', { class: 'sr' }, 'Recent requests, newest first'), h('thead', {}, h('tr', {}, head)), h('tbody', {}, rows)));
}
