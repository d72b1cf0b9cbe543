/**
 * The dashboard (issue 28, docs/ui.md): for a company, an organization (or all) and a range of the
 * viewer's days, the figures of GET /analytics (computed by the index): calls with the trend against
 * the period before, the share of negative calls among the calls analysed for sentiment, the share
 * with overtalk among the calls with metrics, calls per category on one scale, calls per day, and a
 * breakdown by organization, folder or a metadata field chosen in the page. Every figure is a link to
 * the search that lists its calls. SVG and DOM only: no inline styles or scripts (strict CSP).
 */
import { analytics, details, type Account, type Analytics, type Figures } from './api.js';
import { announce, field, h, option, replace } from './dom.js';
import { addDays, change, DAY_PATTERN, dayRange, localDay, share, zoneOffset } from './format.js';
import { barChart, columnChart } from './charts.js';
import { hashOf } from './search-view.js';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
/** Breakdowns offered in the page besides "Other field…" (metadata fields uploads commonly carry). */
const COMMON_FIELDS = ['agent', 'team', 'campaign', 'queue'];

/** What the dashboard shows, as kept in the URL hash. */
interface DashState {
  co: string;
  /** '' = every organization of the company. */
  org: string;
  folder?: string;
  from: string;
  to: string;
  /** '', 'org', 'folder' or 'meta.<field>'. */
  by: string;
}

export function dashState(params: URLSearchParams, account: Account): DashState | undefined {
  const company = account.companies.find((c) => c.company === params.get('co')) ?? account.companies[0];
  if (!company) return undefined;
  const orgParam = params.get('org');
  const org = orgParam === '' ? '' : company.orgs.find((o) => o.org === orgParam)?.org ?? company.defaultDestination.org;
  const folders = company.orgs.find((o) => o.org === org)?.folders ?? [];
  const folder = params.get('folder') ?? undefined;
  let to = params.get('to') ?? '';
  if (!DAY_PATTERN.test(to)) to = localDay();
  let from = params.get('from') ?? '';
  if (!DAY_PATTERN.test(from) || from > to) from = addDays(to, -(DEFAULT_DAYS - 1));
  if (from < addDays(to, -(MAX_DAYS - 1))) from = addDays(to, -(MAX_DAYS - 1));
  const by = params.get('by') ?? '';
  return { co: company.company, org, folder: folder && folders.includes(folder) ? folder : undefined, from, to, by: /^(org|folder|meta\..+)?$/.test(by) ? by : '' };
}

/** The search page's hash for the calls behind a figure (the dashboard's scope and days, plus `extra`). */
export function figureLink(s: DashState, extra: Record<string, string | undefined> = {}): string {
  return hashOf('search', { co: s.co, org: s.org || undefined, folder: s.folder, from: s.from, to: s.to, ...extra });
}

export async function renderDashboard(main: HTMLElement, params: URLSearchParams, account: Account): Promise<void> {
  const state = dashState(params, account);
  if (!state) {
    replace(main, h('h1', {}, 'Dashboard'), h('p', { class: 'empty' }, 'This token sees no company.'));
    return;
  }
  const scope = { company: state.co, org: state.org || undefined, folder: state.folder };
  const options = { ...dayRange(state.from, state.to), tz: zoneOffset(), ...(state.by ? { by: state.by } : {}) };
  const pending = analytics(scope, options);
  pending.catch(() => {});
  const body = h('div', { class: 'dash-body', 'aria-live': 'polite', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Counting…'));
  replace(main, h('h1', { tabindex: '-1' }, 'Dashboard'), dashForm(state, account), body);
  let a: Analytics;
  try {
    a = await pending;
  } catch (err) {
    replace(body, h('p', { class: 'error', role: 'alert' }, (err as Error).message));
    body.removeAttribute('aria-busy');
    return;
  }
  const days = daysOf(state.from, state.to);
  replace(
    body,
    summary(state, a, days.length),
    categorySection(state, a),
    daySection(state, a, days),
    breakdownSection(state, a),
    h('section', { class: 'dash-overtalk', 'aria-labelledby': 'dash-ot' }, h('h2', { id: 'dash-ot' }, 'Most overtalk'), overtalkList(state)),
  );
  body.removeAttribute('aria-busy');
  announce(`${a.total.calls} calls from ${state.from} to ${state.to}`);
  performance.mark('voxdex:dashboard-rendered');
}

/** The scope, the days (YYYY-MM-DD, as everywhere on the page) and the breakdown; submitting shows them. */
function dashForm(s: DashState, account: Account): HTMLFormElement {
  const company = account.companies.find((c) => c.company === s.co)!;
  const coSel = h('select', { name: 'co' }, account.companies.map((c) => option(c.company, c.company, c.company === s.co)));
  const orgSel = h('select', { name: 'org' }, option('', 'All organizations', s.org === ''), company.orgs.map((o) => option(o.org, o.org, o.org === s.org)));
  const folderSel = h('select', { name: 'folder' }, option('', 'All folders', !s.folder), (company.orgs.find((o) => o.org === s.org)?.folders ?? []).map((f) => option(f, f, f === s.folder)));
  folderSel.disabled = s.org === '';
  const day = (name: 'from' | 'to', value: string) =>
    h('input', { type: 'text', name, value, required: true, pattern: '\\d{4}-\\d{2}-\\d{2}', inputmode: 'numeric', placeholder: 'YYYY-MM-DD', size: 10, autocomplete: 'off' });
  const fromIn = day('from', s.from);
  const toIn = day('to', s.to);
  const isCommon = s.by === '' || s.by === 'org' || s.by === 'folder' || COMMON_FIELDS.some((f) => s.by === `meta.${f}`);
  const bySel = h(
    'select',
    { name: 'by' },
    option('', 'No breakdown', s.by === ''),
    option('org', 'Organization', s.by === 'org'),
    option('folder', 'Folder', s.by === 'folder'),
    COMMON_FIELDS.map((f) => option(`meta.${f}`, `Metadata: ${f}`, s.by === `meta.${f}`)),
    option('other', 'Other metadata field…', !isCommon),
  );
  const otherIn = h('input', { type: 'text', name: 'field', value: isCommon ? '' : s.by.slice(5), placeholder: 'e.g. region', autocomplete: 'off' });
  const otherField = field('Metadata field', otherIn);
  otherField.hidden = isCommon;
  bySel.addEventListener('change', () => {
    otherField.hidden = bySel.value !== 'other';
  });
  orgSel.addEventListener('change', () => {
    replace(folderSel, option('', 'All folders', true), (company.orgs.find((o) => o.org === orgSel.value)?.folders ?? []).map((f) => option(f, f)));
    folderSel.disabled = orgSel.value === '';
  });
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    { class: 'dash-form card', 'aria-label': 'What the dashboard shows' },
    account.principal === 'root' ? field('Company', coSel) : null,
    field('Organization', orgSel),
    field('Folder', folderSel),
    field('From', fromIn, 'YYYY-MM-DD'),
    field('To', toIn, 'YYYY-MM-DD'),
    field('Break down by', bySel),
    otherField,
    h('button', { type: 'submit', class: 'primary' }, 'Show'),
    error,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const bad = [fromIn, toIn].find((i) => !DAY_PATTERN.test(i.value.trim()) || Number.isNaN(Date.parse(i.value.trim())));
    for (const i of [fromIn, toIn]) i.removeAttribute('aria-invalid');
    if (bad || fromIn.value.trim() > toIn.value.trim()) {
      const target = bad ?? fromIn;
      target.setAttribute('aria-invalid', 'true');
      error.textContent = bad ? 'Dates are written YYYY-MM-DD, e.g. 2026-03-01.' : 'From must not be after To.';
      target.focus();
      return;
    }
    const by = bySel.value === 'other' ? (otherIn.value.trim() ? `meta.${otherIn.value.trim()}` : '') : bySel.value;
    location.hash = hashOf('dashboard', { co: coSel.value, org: orgSel.value, folder: folderSel.disabled ? undefined : folderSel.value || undefined, from: fromIn.value.trim(), to: toIn.value.trim(), by: by || undefined });
  });
  return form;
}

/** A category's count; names are the company's own (`constructor` is a category, not Object's member). */
function countOf(counts: Record<string, number>, name: string): number {
  return Object.hasOwn(counts, name) ? counts[name]! : 0;
}

function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to && out.length < MAX_DAYS; d = addDays(d, 1)) out.push(d);
  return out;
}

function trend(now: number, before: number | undefined, what: string): HTMLElement | null {
  if (before === undefined) return null;
  const c = change(now, before);
  const dir = now > before ? 'up' : now < before ? 'down' : 'flat';
  return h('span', { class: `trend trend-${dir}` }, `${c} `, h('span', { class: 'muted' }, `vs ${before} ${what} in the period before`));
}

/** The headline figures, each with its own denominator and a link to its calls. */
function summary(s: DashState, a: Analytics, ndays: number): HTMLElement {
  const t = a.total;
  const p = a.previous?.total;
  const pct = (n: number, of: number) => (of === 0 ? '–' : `${Math.round((100 * n) / of)} %`);
  const tile = (cls: string, label: string, value: Node | string, ...rest: Array<Node | string | null>) =>
    h('div', { class: `stat ${cls}` }, h('span', { class: 'stat-label' }, label), h('span', { class: 'stat-value' }, value), ...rest);
  return h(
    'section',
    { class: 'dash-summary', 'aria-label': 'Summary' },
    tile('stat-calls', 'Calls', h('a', { href: figureLink(s) }, String(t.calls)), h('span', { class: 'muted' }, `in ${ndays} ${ndays === 1 ? 'day' : 'days'}`), trend(t.calls, p?.calls, 'calls')),
    tile(
      'sentiment-negative',
      'Negative sentiment',
      pct(t.sentiment.negative, t.sentiment.analysed),
      h('span', {}, h('a', { href: figureLink(s, { sentiment: 'Negative,Mostly Negative' }) }, `${t.sentiment.negative} calls`), ' of ',
        h('a', { href: figureLink(s, { sentiment: 'any' }) }, `${t.sentiment.analysed} analysed for sentiment`)),
      p ? h('span', { class: 'muted' }, `before: ${share(p.sentiment.negative, p.sentiment.analysed)}`) : null,
    ),
    tile(
      'stat-overtalk',
      'Calls with overtalk',
      pct(t.metrics.overtalkCalls, t.metrics.analysed),
      h('span', {}, h('a', { href: figureLink(s, { omin: '0.01' }) }, `${t.metrics.overtalkCalls} calls`), ' of ',
        h('a', { href: figureLink(s, { omin: '0' }) }, `${t.metrics.analysed} with metrics`)),
      h('span', { class: 'muted' }, `${Math.round(t.metrics.overtalkSecs)} s overtalk, ${Math.round(t.metrics.silenceSecs)} s silence in all`),
    ),
  );
}

/** Calls per category in the range, on one scale, with the period before beside each. */
function categorySection(s: DashState, a: Analytics): HTMLElement {
  const names = [...new Set([...Object.keys(a.total.categories), ...Object.keys(a.previous?.total.categories ?? {})])].sort();
  const section = h('section', { class: 'dash-cats', 'aria-labelledby': 'dash-cat' }, h('h2', { id: 'dash-cat' }, 'Calls per category'),
    h('p', { class: 'hint' }, `Share of all ${a.total.calls} calls in the range; one scale for every category. Select a bar for its calls.`));
  if (names.length === 0) {
    section.append(h('p', { class: 'empty' }, 'No call in this range is in a category. Categories are rules over the words (PUT /categories/CO/NAME or voxdex category add).'));
    return section;
  }
  section.append(barChart({
    label: 'Calls per category',
    unit: 'calls',
    bars: names.map((name) => ({
      label: name,
      value: countOf(a.total.categories, name),
      ...(a.previous ? { before: countOf(a.previous.total.categories, name) } : {}),
      note: `${Math.round((100 * (countOf(a.total.categories, name))) / (a.total.calls || 1))} %`,
      href: figureLink(s, { category: name }),
    })),
  }));
  return section;
}

/** Calls per day (every day of the range, 0 where none) and each category per day, all on one scale. */
function daySection(s: DashState, a: Analytics, days: string[]): HTMLElement {
  const byDay = new Map(a.days.map((d) => [d.day, d]));
  const column = (pick: (f: Figures) => number, extra: (day: string) => Record<string, string>) => days.map((day) => {
    const f = byDay.get(day);
    return { label: day, value: f ? pick(f) : 0, href: hashOf('search', { co: s.co, org: s.org || undefined, folder: s.folder, from: day, to: day, ...extra(day) }) };
  });
  const names = Object.keys(a.total.categories).sort();
  const max = Math.max(1, ...a.days.flatMap((d) => Object.values(d.categories)));
  return h(
    'section',
    { class: 'dash-days', 'aria-labelledby': 'dash-day' },
    h('h2', { id: 'dash-day' }, 'Calls per day'),
    columnChart({ label: 'Calls per day', unit: 'calls', columns: column((f) => f.calls, () => ({})) }),
    names.length ? h('h3', {}, 'Each category per day (one scale)') : null,
    names.map((name) => h('figure', { class: 'dash-cat' },
      h('figcaption', {}, h('span', { class: 'chip' }, name), ` ${countOf(a.total.categories, name)} in range`),
      columnChart({ label: `${name}: calls per day`, unit: 'calls', max, small: true, columns: column((f) => countOf(f.categories, name), () => ({ category: name })) }))),
  );
}

/** The breakdown chosen in the form: per group its calls, negative share and overtalk share, each linked. */
function breakdownSection(s: DashState, a: Analytics): HTMLElement | null {
  if (!s.by || !a.groups) return null;
  const by = s.by;
  const title = by === 'org' ? 'organization' : by === 'folder' ? 'folder' : by.slice(5);
  const groupLink = (key: string | null, extra: Record<string, string | undefined> = {}) => {
    if (key === null) return undefined;
    if (by === 'org') return hashOf('search', { co: s.co, org: key, from: s.from, to: s.to, ...extra });
    if (by === 'folder') {
      const [org, folder] = key.split('/');
      return hashOf('search', { co: s.co, org, folder, from: s.from, to: s.to, ...extra });
    }
    return figureLink(s, { [by]: key, ...extra });
  };
  const cell = (text: string, href: string | undefined) => h('td', {}, href ? h('a', { href }, text) : text);
  const catNames = Object.keys(a.total.categories).sort();
  const rows = a.groups.map((g) => {
    const label = g.key === null ? `(no ${title})` : g.key;
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, groupLink(g.key) ? h('a', { href: groupLink(g.key)! }, label) : label),
      cell(String(g.calls), groupLink(g.key)),
      cell(share(g.sentiment.negative, g.sentiment.analysed), groupLink(g.key, { sentiment: 'Negative,Mostly Negative' })),
      cell(share(g.metrics.overtalkCalls, g.metrics.analysed), groupLink(g.key, { omin: '0.01' })),
      catNames.map((c) => cell(String(countOf(g.categories, c)), groupLink(g.key, { category: c }))),
    );
  });
  return h(
    'section',
    { class: 'dash-breakdown', 'aria-labelledby': 'dash-by' },
    h('h2', { id: 'dash-by' }, `By ${title}`),
    h('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'dash-by' },
      h('table', { class: 'data' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, title), h('th', { scope: 'col' }, 'Calls'), h('th', { scope: 'col' }, 'Negative (of analysed)'), h('th', { scope: 'col' }, 'Overtalk (of calls with metrics)'),
          catNames.map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows))),
    a.otherGroupsCalls ? h('p', { class: 'hint' }, `${a.otherGroupsCalls} more calls are in smaller groups not shown.`) : null,
  );
}

/** The ten calls with the most overtalk in the range (their documents' metrics). */
function overtalkList(s: DashState): HTMLElement {
  const box = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const scope = { company: s.co, org: s.org, folder: s.folder };
  if (!s.org) {
    replace(box, h('p', { class: 'hint' }, 'Choose an organization to list its calls with the most overtalk.'));
    return box;
  }
  details(scope, { ...dayRange(s.from, s.to), sort: 'overtalk', size: 10, overtalk: '0.01-' })
    .then((docs) => {
      replace(box, docs.length === 0 ? h('p', { class: 'empty' }, 'No overtalk in this range.') : h('ol', { class: 'dash-calls' }, docs.map((d) =>
        h('li', {}, h('a', { href: hashOf('call', { co: s.co, org: s.org, tid: d.tid, file: d.source }) }, d.source || d.tid), ' ',
          h('span', { class: 'muted' }, `${(d.metrics?.overtalksecs ?? 0).toFixed(1)} s overtalk`)))));
    })
    .catch((err: Error) => replace(box, h('p', { class: 'error' }, err.message)));
  return box;
}
