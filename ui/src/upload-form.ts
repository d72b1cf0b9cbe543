/**
 * Uploads from the browser (issue 28): several recordings or archives at once (file picker or drag
 * and drop), the options of POST /transcribe (diarization, speakers or their bounds, crosstalk, gender, sentiment, redaction and
 * its kinds, numbers, vocabulary, callback, call time, archive password) and metadata fields (agent,
 * team, campaign, or any). Each file is its own request, sent with XMLHttpRequest so that its upload
 * progress is shown; the token goes in the Authorization header only.
 */
import { describeKinds } from '../../src/redact/kinds.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS, type RedactKind } from '../../src/types.js';
import type { Account } from './api.js';
import { announce, field, h, option, replace } from './dom.js';
import { DAY_PATTERN, zoneOffset } from './format.js';
import { optionControls, optionLabel } from './option-controls.js';

const ACCEPT = '.wav,.zip,.7z,.mp3,.flac,.ogg,.opus,.m4a,.aac,.amr,.webm,audio/*,application/zip,application/x-7z-compressed';
const METADATA_PRESETS = ['agent', 'team', 'campaign'];

/** One file's request: its form fields and where it goes. */
export interface Upload {
  path: string;
  body: FormData;
}

/** POSTs one upload, reporting progress (0..1); resolves to the request id or rejects with the API's message. */
export function sendUpload(u: Upload, token: string, onProgress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', u.path);
    xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      let body: { requestid?: string; error?: { message?: string; code?: string } } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300 && body.requestid) resolve(body.requestid);
      else reject(new Error(body.error?.message ?? `HTTP ${xhr.status}`));
    });
    xhr.addEventListener('error', () => reject(new Error('The voxdex server cannot be reached; check the connection and try again.')));
    xhr.send(u.body);
  });
}

function checkbox(name: string, label: string, checked = false, hint?: string): { input: HTMLInputElement; el: HTMLElement } {
  const input = h('input', { type: 'checkbox', name, checked });
  const el = h('label', { class: 'check' }, input, label, hint ? h('small', { class: 'hint' }, ` ${hint}`) : null);
  return { input, el };
}

/** The upload card: files, destination, options, metadata, and a list with each file's progress. */
export function uploadForm(account: Account, token: () => string | undefined, uploaded: () => void): HTMLFormElement {
  const files = h('input', { type: 'file', name: 'file', multiple: true, accept: ACCEPT, id: 'upload-files' });
  let chosen: File[] = [];
  const chosenList = h('p', { class: 'chosen muted', id: 'chosen', 'aria-live': 'polite' }, 'No file chosen.');
  const setChosen = (list: File[]) => {
    chosen = list;
    chosenList.textContent = list.length === 0 ? 'No file chosen.' : `${list.length} ${list.length === 1 ? 'file' : 'files'}: ${list.map((f) => f.name).join(', ')}`;
  };
  files.addEventListener('change', () => setChosen([...(files.files ?? [])]));
  const drop = h('div', { class: 'dropzone', id: 'dropzone' },
    h('label', { for: 'upload-files' }, h('strong', {}, 'Choose recordings'), ' or drop them here'), files,
    h('small', { class: 'hint' }, 'WAV (PCM, mu-law, A-law), MP3, FLAC, Ogg, M4A, AMR… where the installation transcodes; or zip/7z archives of them. Several at once: one request each.'),
    chosenList);
  for (const ev of ['dragenter', 'dragover']) drop.addEventListener(ev, (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  for (const ev of ['dragleave', 'drop']) drop.addEventListener(ev, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    const list = [...((e as DragEvent).dataTransfer?.files ?? [])];
    if (list.length) setChosen(list);
  });

  const company = h('select', { name: 'company' }, account.companies.map((c) => option(c.company, c.company)));
  const dest = h('select', { name: 'destination' });
  const model = h('select', { name: 'model' });
  const fill = () => {
    const c = account.companies.find((x) => x.company === company.value) ?? account.companies[0];
    if (!c) return;
    const def = `${c.defaultDestination.org}/${c.defaultDestination.folder}`;
    replace(dest, c.orgs.flatMap((o) => o.folders.map((f) => option(`${o.org}/${f}`, `${o.org} / ${f}`, `${o.org}/${f}` === def))));
    replace(model, option('', 'Company default'), c.models.map((m) => option(m, m === 'auto' ? 'auto (by sample rate)' : m)));
  };
  fill();
  company.addEventListener('change', fill);

  // The request options' controls, from the one option table (src/jobs/option-table.ts).
  const opt = optionControls();
  // The default kinds start ticked: unticking one turns it off (`-cvv`), ticking another adds it (docs/redaction.md, "Kinds").
  const kinds = REDACT_KINDS.map((k) => checkbox(`redact-${k}`, k, DEFAULT_REDACT_KINDS.includes(k)));
  const callback = h('input', { type: 'url', name: 'callback', placeholder: 'https://example.com/hook', autocomplete: 'off' });
  const when = h('input', { type: 'text', name: 'datetime', placeholder: 'YYYY-MM-DD HH:MM', autocomplete: 'off', size: 16 });
  const zpass = h('input', { type: 'password', name: 'zpass', autocomplete: 'off' });
  const metaRows = h('div', { class: 'meta-rows' });
  const addMeta = (name = '', value = '') => {
    const k = h('input', { type: 'text', class: 'meta-key', value: name, placeholder: 'field', autocomplete: 'off', size: 10 });
    const v = h('input', { type: 'text', class: 'meta-value', value, placeholder: 'value', autocomplete: 'off', size: 14 });
    metaRows.append(h('div', { class: 'row meta-row' }, field('Field', k), field(name ? `Value of ${name}` : 'Value', v)));
  };
  METADATA_PRESETS.forEach((m) => addMeta(m));
  const more = h('button', { type: 'button', class: 'secondary' }, 'Add a field');
  more.addEventListener('click', () => {
    addMeta();
    (metaRows.lastElementChild?.querySelector('input') as HTMLInputElement | null)?.focus();
  });

  const message = h('p', { class: 'upload-message', role: 'status' });
  const progress = h('ul', { class: 'upload-progress', 'aria-label': 'Uploads' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const form = h(
    'form',
    { class: 'card upload', 'aria-labelledby': 'upload-title', novalidate: true },
    h('h2', { id: 'upload-title' }, 'Upload recordings'),
    drop,
    h('div', { class: 'row' }, account.principal === 'root' ? field('Company', company) : null, field('Destination', dest), field('Model', model),
      field('Call time', when, 'YYYY-MM-DD HH:MM, your time; empty: now'), field('Archive password', zpass, 'Only for encrypted zip/7z')),
    h('fieldset', { class: 'options' }, h('legend', {}, 'Analysis'),
      h('div', { class: 'row' }, opt.diarize!.el, opt.speakers!.el, opt.minspeakers!.el, opt.maxspeakers!.el, opt.crosstalk!.el),
      h('div', { class: 'row' }, opt.gender!.el, opt.sentiment!.el, opt.numtrans!.el),
      h('div', { class: 'row' }, opt.vocab!.el, field('Callback URL', callback, 'POSTed the result when done'))),
    h('fieldset', { class: 'options' }, h('legend', {}, 'Redaction'),
      h('div', { class: 'row' }, opt.scrubtext!.el, opt.scrubaudio!.el),
      h('fieldset', { class: 'kinds' }, h('legend', {}, optionLabel('redact')), h('div', { class: 'row' }, kinds.map((k) => k.el)))),
    h('fieldset', { class: 'options' }, h('legend', {}, 'Metadata'), metaRows, more),
    h('div', { class: 'row' }, submit, message),
    progress,
  );

  const fields = (): Array<[string, string]> | string => {
    const out: Array<[string, string]> = [];
    if (model.value) out.push(['model', model.value]);
    if (zpass.value) out.push(['zpass', zpass.value]);
    const redact = describeKinds(kinds.filter((k) => k.input.checked).map((k) => k.input.name.slice(7) as RedactKind));
    const changed = redact !== describeKinds(DEFAULT_REDACT_KINDS);
    for (const [name, c] of Object.entries(opt)) {
      // Kinds chosen imply redacting the text.
      const v = name === 'scrubtext' && changed ? 'true' : name === 'redact' ? undefined : c.value();
      if (v !== undefined) out.push([name, v]);
    }
    if (changed) out.push(['redact', redact]);
    if (callback.value.trim()) out.push(['callback', callback.value.trim()]);
    const t = when.value.trim();
    if (t) {
      const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::\d{2})?)?$/.exec(t);
      if (!m || !DAY_PATTERN.test(m[1]!)) return 'Call time is written YYYY-MM-DD HH:MM, e.g. 2026-03-01 14:05.';
      out.push(['datetime', `${m[1]}T${m[2] ?? '00:00'}:00${zoneOffset(new Date(`${m[1]}T${m[2] ?? '00:00'}:00`))}`]);
    }
    const meta: Record<string, string> = {};
    for (const row of metaRows.querySelectorAll('.meta-row')) {
      const k = (row.querySelector('.meta-key') as HTMLInputElement).value.trim();
      const v = (row.querySelector('.meta-value') as HTMLInputElement).value;
      if (k && v !== '') meta[k] = v;
    }
    if (Object.keys(meta).length) out.push(['metadata', JSON.stringify(meta)]);
    return out;
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    message.className = 'upload-message';
    if (chosen.length === 0) {
      message.className = 'upload-message error';
      message.textContent = 'Choose at least one recording first.';
      files.focus();
      return;
    }
    const extra = fields();
    if (typeof extra === 'string') {
      message.className = 'upload-message error';
      message.textContent = extra;
      when.setAttribute('aria-invalid', 'true');
      when.focus();
      return;
    }
    when.removeAttribute('aria-invalid');
    const c = account.companies.find((x) => x.company === company.value) ?? account.companies[0]!;
    const [org, folder] = dest.value.split('/');
    const path = `/transcribe/${[c.company, org!, folder!].map(encodeURIComponent).join('/')}`;
    const batch = chosen;
    submit.disabled = true;
    message.textContent = `Uploading ${batch.length} ${batch.length === 1 ? 'file' : 'files'}…`;
    let accepted = 0;
    // One at a time: the server takes each as it comes, and a slow link is not split between them.
    for (const f of batch) {
      const bar = h('progress', { max: 1, value: 0, 'aria-label': `Upload of ${f.name}` });
      const state = h('span', { class: 'upload-state' }, 'waiting');
      const li = h('li', { class: 'upload-item' }, h('span', { class: 'upload-name' }, f.name), bar, state);
      progress.prepend(li);
      const body = new FormData();
      body.set('file', f, f.name);
      for (const [k, v] of extra) body.set(k, v);
      state.textContent = 'uploading';
      try {
        const requestid = await sendUpload({ path, body }, token() ?? '', (x) => {
          bar.value = x;
          state.textContent = `${Math.round(x * 100)} %`;
        });
        bar.value = 1;
        state.textContent = `accepted: request ${requestid}`;
        li.classList.add('ok');
        accepted++;
        uploaded();
      } catch (err) {
        state.textContent = `not accepted: ${(err as Error).message}`;
        li.classList.add('failed');
      }
    }
    message.textContent = `${accepted} of ${batch.length} accepted.`;
    announce(message.textContent);
    submit.disabled = false;
    if (accepted === batch.length) {
      files.value = '';
      setChosen([]);
    }
  });
  return form;
}
