/**
 * Search: scope (company for the root token, organization, folder), the `terms` language with its
 * errors shown at the position, the filters the API has, paged results with hits, CSV/zip export
 * of the current search. What is searched lives in the URL hash (#/search?terms=…), never the token.
 */
import { REDACT_KINDS } from '../../src/types.js';
import { ApiError, call, categories, search, searchPath, type Account, type Scope } from './api.js';
import { announce, field, h, option, replace } from './dom.js';
import { DAY_PATTERN, dayRange } from './format.js';
import { renderResults } from './results.js';
import { errorPosition } from './snippet.js';

/** Search options kept in the hash, by their hash names (and any `meta.<field>`). */
const KEYS = [
  'co', 'org', 'folder', 'terms', 'from', 'to', 'channel', 'speaker', 'role', 'model', 'dmin', 'dmax', 'category', 'sentiment', 'omin', 'omax',
  'redacted', 'sort', 'sortdir', 'size', 'offset', 'requestid',
] as const;
type State = Partial<Record<(typeof KEYS)[number], string>> & { meta?: Record<string, string> };

/** The sentiment choices: a label, both negative labels, or any label (the calls analysed for sentiment). */
const SENTIMENTS: Array<[string, string]> = [
  ['Negative,Mostly Negative', 'Negative or mostly negative'], ['Negative', 'Negative'], ['Mostly Negative', 'Mostly negative'], ['Neutral', 'Neutral'],
  ['Mostly Positive', 'Mostly positive'], ['Positive', 'Positive'], ['any', 'Analysed for sentiment (any label)'],
];

/** The roles of `role=` (docs/speakers.md, "Roles"). */
const ROLES: Array<[string, string]> = [['agent', 'Agent'], ['customer', 'Customer']];

export const PAGE_SIZES = ['25', '50', '100'];
const DEFAULT_SIZE = '50';
/** The API's largest page: what one export holds. */
const EXPORT_MAX = 1000;

export function stateFrom(params: URLSearchParams): State {
  const s: State = {};
  for (const k of KEYS) {
    const v = params.get(k);
    if (v !== null && v !== '') s[k] = v;
  }
  for (const [k, v] of params) if (k.startsWith('meta.') && k.length > 5 && v !== '') (s.meta ??= {})[k.slice(5)] = v;
  return s;
}

export function hashOf(view: string, s: Record<string, string | undefined> | State): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(s)) {
    if (k === 'meta' && typeof v === 'object') for (const [f, x] of Object.entries(v)) q.set(`meta.${f}`, x);
    else if (typeof v === 'string' && v !== '') q.set(k, v);
  }
  return `#/${view}?${q}`;
}

/** The API options of a search (without paging). */
export function apiOptions(s: State): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (s.terms?.trim()) o.terms = s.terms;
  // Days are the viewer's days, as every date the page shows.
  Object.assign(o, dayRange(s.from, s.to));
  if (s.channel) o.channel = Number(s.channel);
  if (s.speaker) o.speaker = s.speaker;
  if (s.role) o.role = s.role;
  if (s.model) o.model = s.model;
  if (s.dmin || s.dmax) o.duration = `${s.dmin ?? ''}-${s.dmax ?? ''}`;
  if (s.category) o.category = s.category;
  if (s.sentiment) o.sentiment = s.sentiment;
  if (s.omin || s.omax) o.overtalk = `${s.omin ?? ''}-${s.omax ?? ''}`;
  if (s.redacted) o.redacted = s.redacted;
  for (const [f, v] of Object.entries(s.meta ?? {})) o[`meta.${f}`] = v;
  if (s.requestid) o.requestid = s.requestid;
  o.sort = s.sort ?? 'datetime';
  o.sortdir = s.sortdir ?? 'desc';
  return o;
}

export function scopeOf(s: State, account: Account): Scope {
  const company = account.companies.find((c) => c.company === s.co) ?? account.companies[0];
  if (!company) throw new Error('This token has no company to search in.');
  const org = company.orgs.find((o) => o.org === s.org)?.org ?? company.defaultDestination.org;
  const folders = company.orgs.find((o) => o.org === org)?.folders ?? [];
  return { company: company.company, org, folder: s.folder && folders.includes(s.folder) ? s.folder : undefined };
}

export async function renderSearch(main: HTMLElement, params: URLSearchParams, account: Account): Promise<void> {
  const state = stateFrom(params);
  if (account.companies.length === 0) {
    replace(main, h('h1', {}, 'Search calls'), h('p', {}, 'There is no company yet: create one with voxdex company add.'));
    return;
  }
  const scope = scopeOf(state, account);
  // The search goes out first; the form is built while the server answers.
  const page = { size: Number(state.size ?? DEFAULT_SIZE), offset: Math.max(0, Number(state.offset ?? 0) || 0) };
  const options = apiOptions(state);
  const pending = search(scope, { ...options, offset: page.offset, size: page.size });
  pending.catch(() => {}); // handled below, once the form is there to show it

  const form = searchForm(state, account, scope);
  const results = h('section', { class: 'results', 'aria-labelledby': 'results-title', 'aria-live': 'polite' });
  replace(main, h('h1', { tabindex: '-1' }, 'Search calls'), form.element, results);
  await showResults(results, pending, { state, scope, options, page, form });
}

/** The company/organization/folder pickers, each list following the one above it. */
function scopeFields(account: Account, scope: Scope) {
  const company = h('select', { name: 'co' }, account.companies.map((c) => option(c.company, c.company, c.company === scope.company)));
  const org = h('select', { name: 'org' });
  const folder = h('select', { name: 'folder' });
  const fillScope = () => {
    const c = account.companies.find((x) => x.company === company.value)!;
    const wantOrg = org.value || scope.org;
    replace(org, c.orgs.map((o) => option(o.org, o.org, o.org === wantOrg)));
    if (!c.orgs.some((o) => o.org === wantOrg)) org.value = c.defaultDestination.org;
    const wantFolder = folder.value || scope.folder || '';
    const folders = c.orgs.find((o) => o.org === org.value)?.folders ?? [];
    replace(folder, option('', 'All folders', wantFolder === ''), folders.map((f) => option(f, f, f === wantFolder)));
  };
  org.value = scope.org;
  fillScope();
  company.addEventListener('change', () => {
    org.value = '';
    folder.value = '';
    fillScope();
  });
  org.addEventListener('change', () => {
    folder.value = '';
    fillScope();
  });
  return { company, org, folder };
}

/** The words box, where a query error is shown, and the syntax help. */
function termsFields(state: State) {
  const terms = h('input', {
    type: 'search',
    name: 'terms',
    value: state.terms ?? '',
    placeholder: 'refund "cancel my subscription" -test',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const queryError = h('div', { class: 'query-error', id: 'query-error', role: 'alert' });
  terms.setAttribute('aria-describedby', 'query-error terms-help');
  const help = h(
    'details',
    { class: 'syntax', id: 'terms-help' },
    h('summary', {}, 'Search syntax'),
    h(
      'ul',
      {},
      h('li', {}, h('code', {}, 'refund cancel'), ' both words (AND)'),
      h('li', {}, h('code', {}, 'refund | credit'), ' either word (OR)'),
      h('li', {}, h('code', {}, '-test'), ' calls without the word'),
      h('li', {}, h('code', {}, '"cancel my subscription"'), ' the words in order, on one channel'),
      h('li', {}, h('code', {}, '"refund order"~3'), ' the words within 3 words of each other'),
      h('li', {}, h('code', {}, 'cancel*'), ', ', h('code', {}, 'col?r'), ' wildcards inside a word'),
      h('li', {}, h('code', {}, '(refund | credit) account'), ' grouping'),
    ),
  );
  return { terms, queryError, help };
}

/** Dates, channel, speaker, model, duration, analytics, redaction, metadata, order and page size. */
function filterFields(state: State, account: Account, scope: Scope) {
  const date = (name: 'from' | 'to') =>
    h('input', { type: 'text', name, value: state[name] ?? '', pattern: '\\d{4}-\\d{2}-\\d{2}', inputmode: 'numeric', placeholder: 'YYYY-MM-DD', size: 10, autocomplete: 'off' });
  const from = date('from');
  const to = date('to');
  const maxChannels = 4;
  const channel = h('select', { name: 'channel' }, option('', 'Any channel', !state.channel), Array.from({ length: maxChannels }, (_, i) => option(String(i), `Channel ${i}`, state.channel === String(i))));
  const model = h('select', { name: 'model' }, option('', 'Any model', !state.model), account.installedModels.map((m) => option(m, m, m === state.model)));
  if (state.model && !account.installedModels.includes(state.model)) model.append(option(state.model, state.model, true));
  const num = (name: 'dmin' | 'dmax' | 'omin' | 'omax', label: string) => h('input', { type: 'number', name, min: 0, step: 'any', inputmode: 'decimal', value: state[name] ?? '', 'aria-label': label, placeholder: label });
  const dmin = num('dmin', 'min');
  const dmax = num('dmax', 'max');
  const omin = num('omin', 'min');
  const omax = num('omax', 'max');
  const speaker = h('input', { type: 'text', name: 'speaker', value: state.speaker ?? '', placeholder: 'S1, C0…', size: 6, autocomplete: 'off' });
  // What the agent or the customer said (calls whose roles are known, docs/speakers.md); any other value is the API's to refuse.
  const role = h('select', { name: 'role' }, option('', 'Anyone', !state.role), ROLES.map(([v, t]) => option(v, t, state.role === v)));
  if (state.role && !ROLES.some(([v]) => v === state.role)) role.append(option(state.role, state.role, true));
  const category = h('select', { name: 'category' }, option('', 'Any category', !state.category));
  if (state.category) category.append(option(state.category, state.category.replace(/,/g, ' or '), true));
  // The company's categories arrive after the form is drawn (the search itself does not wait for them).
  void categories(scope.company).then((list) => {
    for (const c of list) if (c.name !== state.category) category.append(option(c.name, c.name));
  }).catch(() => {});
  const sentiment = h('select', { name: 'sentiment' }, option('', 'Any sentiment', !state.sentiment), SENTIMENTS.map(([v, t]) => option(v, t, state.sentiment === v)));
  if (state.sentiment && !SENTIMENTS.some(([v]) => v === state.sentiment)) sentiment.append(option(state.sentiment, state.sentiment, true));
  const redacted = h('select', { name: 'redacted' }, option('', 'Any', !state.redacted), REDACT_KINDS.map((k) => option(k, k, state.redacted === k)));
  if (state.redacted && !(REDACT_KINDS as readonly string[]).includes(state.redacted)) redacted.append(option(state.redacted, state.redacted, true));
  const [metaField, metaValue] = Object.entries(state.meta ?? {})[0] ?? ['', ''];
  const mfield = h('input', { type: 'text', name: 'mfield', value: metaField, placeholder: 'agent', size: 10, autocomplete: 'off' });
  const mvalue = h('input', { type: 'text', name: 'mvalue', value: metaValue, placeholder: 'alice', size: 12, autocomplete: 'off' });
  const sort = h('select', { name: 'sort' }, [['datetime', 'Call date'], ['score', 'Hits'], ['duration', 'Duration'], ['filename', 'File name'], ['confidence', 'Confidence'], ['overtalk', 'Overtalk'], ['silence', 'Silence']].map(([v, t]) => option(v!, t!, (state.sort ?? 'datetime') === v)));
  const sortdir = h('select', { name: 'sortdir' }, option('desc', 'Descending', (state.sortdir ?? 'desc') === 'desc'), option('asc', 'Ascending', state.sortdir === 'asc'));
  const size = h('select', { name: 'size' }, PAGE_SIZES.map((n) => option(n, `${n} per page`, (state.size ?? DEFAULT_SIZE) === n)));
  return { from, to, channel, speaker, role, model, dmin, dmax, omin, omax, category, sentiment, redacted, mfield, mvalue, sort, sortdir, size };
}

interface SearchForm {
  element: HTMLFormElement;
  terms: HTMLInputElement;
  queryError: HTMLElement;
  /** Goes to the search `s` (its URL hash). */
  go: (s: State) => void;
}

/** The search form: submitting it goes to the search it describes. */
function searchForm(state: State, account: Account, scope: Scope): SearchForm {
  const { company, org, folder } = scopeFields(account, scope);
  const { terms, queryError, help } = termsFields(state);
  const f = filterFields(state, account, scope);
  const range = (legend: string, min: HTMLInputElement, max: HTMLInputElement) =>
    h('fieldset', { class: 'field duration' }, h('legend', {}, legend), h('div', { class: 'pair' }, min, h('span', { 'aria-hidden': 'true' }, '–'), max));
  const durationGroup = range('Duration (seconds)', f.dmin, f.dmax);
  const overtalkGroup = range('Overtalk (seconds)', f.omin, f.omax);
  const metaGroup = h('fieldset', { class: 'field meta-filter' }, h('legend', {}, 'Metadata'),
    h('div', { class: 'pair' }, h('label', { class: 'sr', for: 'f-mfield' }, 'Metadata field'), f.mfield, h('span', { 'aria-hidden': 'true' }, '='), h('label', { class: 'sr', for: 'f-mvalue' }, 'Metadata value'), f.mvalue));
  f.mfield.id = 'f-mfield';
  f.mvalue.id = 'f-mvalue';
  const dateError = h('p', { class: 'error', role: 'alert', id: 'date-error' });

  const read = (): State => ({
    co: account.principal === 'root' ? company.value : undefined,
    org: org.value,
    folder: folder.value || undefined,
    terms: terms.value.trim() || undefined,
    from: f.from.value.trim() || undefined,
    to: f.to.value.trim() || undefined,
    channel: f.channel.value || undefined,
    speaker: f.speaker.value.trim() || undefined,
    role: f.role.value || undefined,
    model: f.model.value || undefined,
    dmin: f.dmin.value || undefined,
    dmax: f.dmax.value || undefined,
    category: f.category.value || undefined,
    sentiment: f.sentiment.value || undefined,
    omin: f.omin.value || undefined,
    omax: f.omax.value || undefined,
    redacted: f.redacted.value || undefined,
    meta: f.mfield.value.trim() && f.mvalue.value ? { [f.mfield.value.trim()]: f.mvalue.value } : undefined,
    sort: f.sort.value === 'datetime' ? undefined : f.sort.value,
    sortdir: f.sortdir.value === 'desc' ? undefined : f.sortdir.value,
    size: f.size.value === DEFAULT_SIZE ? undefined : f.size.value,
    requestid: state.requestid,
  });
  const go = (s: State) => {
    location.hash = hashOf('search', s);
  };
  const requestChip = state.requestid
    ? h('p', { class: 'chip' }, `Only request ${state.requestid} `, h('button', { type: 'button', class: 'link', onclick: () => go({ ...read(), requestid: undefined, offset: undefined }) }, 'Show all requests'))
    : null;

  const element = h(
    'form',
    { role: 'search', class: 'search-form', 'aria-label': 'Search calls' },
    h(
      'div',
      { class: 'row scope' },
      account.principal === 'root' ? field('Company', company) : null,
      field('Organization', org),
      field('Folder', folder),
    ),
    h('div', { class: 'row terms' }, field('Words or phrases', terms), h('button', { type: 'submit', class: 'primary' }, 'Search')),
    queryError,
    help,
    h(
      'details',
      { class: 'filters', open: hasFilters(state) },
      h('summary', {}, 'Filters and order'),
      h('div', { class: 'row' }, field('From', f.from, 'YYYY-MM-DD'), field('To', f.to, 'YYYY-MM-DD'), field('Channel', f.channel), field('Speaker', f.speaker), field('Said by', f.role, 'When the call\u2019s roles are known'), field('Model', f.model), durationGroup),
      h('div', { class: 'row' }, field('Category', f.category), field('Sentiment', f.sentiment), overtalkGroup, field('Redacted', f.redacted, 'Calls where this kind was redacted'), metaGroup),
      h('div', { class: 'row' }, field('Sort by', f.sort), field('Order', f.sortdir), field('Page size', f.size)),
      dateError,
    ),
    requestChip,
  );
  element.addEventListener('submit', (e) => {
    e.preventDefault();
    const bad = [f.from, f.to].find((i) => i.value.trim() !== '' && !DAY_PATTERN.test(i.value.trim()));
    for (const i of [f.from, f.to]) i.removeAttribute('aria-invalid');
    if (bad) {
      bad.setAttribute('aria-invalid', 'true');
      dateError.textContent = 'Dates are written YYYY-MM-DD, e.g. 2026-03-01.';
      bad.focus();
      return;
    }
    dateError.textContent = '';
    go(read());
  });
  return { element, terms, queryError, go };
}

interface ResultsContext {
  state: State;
  scope: Scope;
  options: Record<string, unknown>;
  page: { size: number; offset: number };
  form: SearchForm;
}

/** Waits for the search and shows its page of results (or its error, under the words box). */
async function showResults(results: HTMLElement, pending: ReturnType<typeof search>, c: ResultsContext): Promise<void> {
  const { state, scope, form } = c;
  results.setAttribute('aria-busy', 'true');
  replace(results, h('p', { class: 'muted' }, 'Searching…'));
  let answer: Awaited<ReturnType<typeof search>>;
  try {
    answer = await pending;
  } catch (err) {
    results.removeAttribute('aria-busy');
    replace(results);
    showError(err, form.terms, form.queryError);
    return;
  }
  results.removeAttribute('aria-busy');
  performance.mark('voxdex:results-received');

  const callState = { co: scope.company, org: scope.org, folder: scope.folder, terms: state.terms, channel: state.channel, speaker: state.speaker, role: state.role, back: location.hash };
  renderResults(results, answer, {
    offset: c.page.offset,
    pageSize: c.page.size,
    terms: state.terms ?? '',
    callState,
    exports: exportButtons(c, answer.total),
    page: (o) => form.go({ ...state, offset: o ? String(o) : undefined }),
  });
  announce(answer.total === 1 ? '1 call matches' : `${answer.total} calls match`);
  // For bench/ui-render.ts: results in the DOM, and the frame after (they are on screen).
  performance.mark('voxdex:results-rendered');
  requestAnimationFrame(() => setTimeout(() => performance.mark('voxdex:results-painted'), 0));
}

/** CSV and zip downloads of the current search (its first EXPORT_MAX calls). */
function exportButtons(c: ResultsContext, total: number): HTMLElement {
  const exportButton = (label: string, extra: Record<string, unknown>, accept: string, name: string) =>
    h('button', {
      type: 'button',
      class: 'secondary',
      onclick: async (e: Event) => {
        const b = e.currentTarget as HTMLButtonElement;
        b.disabled = true;
        try {
          const res = await call(searchPath(c.scope), { body: { ...c.options, ...extra, offset: 0, size: EXPORT_MAX }, accept });
          download(await res.blob(), name);
          announce(`${label}: download started`);
        } catch (err) {
          showError(err, c.form.terms, c.form.queryError);
        } finally {
          b.disabled = false;
        }
      },
    }, label);
  return h(
    'div',
    { class: 'exports' },
    exportButton('Export CSV', { output: 'summary', format: 'csv' }, 'text/csv', 'voxdex-search.csv'),
    exportButton('Export ZIP', { output: 'zip' }, 'application/zip', 'voxdex-search.zip'),
    total > EXPORT_MAX ? h('small', { class: 'hint' }, `Exports hold the first ${EXPORT_MAX} of ${total} calls.`) : null,
  );
}

function hasFilters(s: State): boolean {
  return Boolean(s.from || s.to || s.channel || s.speaker || s.role || s.model || s.dmin || s.dmax || s.category || s.sentiment || s.omin || s.omax || s.redacted || s.meta ||
    s.sort || s.sortdir || s.size);
}

/** A search error: a BAD_QUERY is shown under the box with the position marked; others as they are. */
function showError(err: unknown, terms: HTMLInputElement, box: HTMLElement): void {
  const message = (err as Error).message;
  const pos = err instanceof ApiError && err.code === 'BAD_QUERY' ? errorPosition(message, terms.value) : undefined;
  if (pos === undefined) {
    replace(box, h('p', { class: 'error' }, message));
    return;
  }
  const q = terms.value;
  replace(
    box,
    h('p', { class: 'error' }, message),
    h(
      'pre',
      { class: 'caret', 'aria-label': `Position ${pos} of the search terms` },
      h('code', {}, q.slice(0, pos), h('mark', { class: 'at' }, q.slice(pos, pos + 1) || ' '), q.slice(pos + 1)),
    ),
  );
  terms.setAttribute('aria-invalid', 'true');
  terms.focus();
  terms.setSelectionRange(pos, Math.min(q.length, pos + 1));
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
