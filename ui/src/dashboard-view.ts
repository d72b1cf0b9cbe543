/**
 * The dashboard (issue 20, docs/analytics.md): for a company's organization and a range of days,
 * each category's calls per day as a bar chart (click a bar: that day's calls in that category),
 * the share of calls with a negative utterance, and the calls with the most overtalk. Everything is
 * drawn from the public API (GET /categories, POST /search) as SVG and DOM elements: no inline
 * styles or scripts, so the page's strict CSP holds.
 */
import { json, search, type Account, type Row, type Scope } from './api.js';
import { field, h, option, replace } from './dom.js';
import { dateTime } from './format.js';
import { callHash } from './results.js';
import { hashOf } from './search-view.js';

interface CategoryInfo {
  name: string;
  terms: string;
  calls: number;
  backfill: { state: string; done: number };
}

const SVG = 'http://www.w3.org/2000/svg';
const DAY = 86_400_000;
const MAX_DAYS = 92;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: Node[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Days from `from` to `to` inclusive (ISO dates), at most MAX_DAYS. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`) && out.length < MAX_DAYS; t += DAY) out.push(isoDay(t));
  return out;
}

/** Calls per day (UTC) of the rows' datetimes. */
export function perDay(rows: ReadonlyArray<{ datetime: string }>, days: readonly string[]): number[] {
  const index = new Map(days.map((d, i) => [d, i]));
  const counts = days.map(() => 0);
  for (const r of rows) {
    const i = index.get(isoDay(Date.parse(r.datetime)));
    if (i !== undefined) counts[i]!++;
  }
  return counts;
}

function chart(name: string, days: string[], counts: number[], onBar: (day: string) => void): SVGSVGElement {
  const w = 12;
  const height = 80;
  const max = Math.max(1, ...counts);
  const bars = counts.map((n, i) => {
    const bh = Math.round((n / max) * (height - 4));
    const bar = svg('rect', { x: i * w + 1, y: height - bh, width: w - 2, height: Math.max(bh, n > 0 ? 2 : 0), class: 'bar', tabindex: n > 0 ? 0 : -1, role: 'button', 'aria-label': `${days[i]}: ${n} calls in ${name}` },
      svg('title', {}, document.createTextNode(`${days[i]}: ${n}`)));
    if (n > 0) {
      bar.addEventListener('click', () => onBar(days[i]!));
      bar.addEventListener('keydown', (e) => {
        if ((e as KeyboardEvent).key === 'Enter' || (e as KeyboardEvent).key === ' ') onBar(days[i]!);
      });
    }
    return bar;
  });
  return svg('svg', { class: 'day-chart', viewBox: `0 0 ${days.length * w} ${height}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': `${name}: calls per day` }, ...bars);
}

function callList(rows: Row[], scope: Scope): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No calls.');
  return h('ul', { class: 'dash-calls' }, rows.map((r) =>
    h('li', {}, h('a', { href: callHash({ co: scope.company, org: scope.org }, r) }, r.filename || r.tid), ' ', h('span', { class: 'muted' }, dateTime(r.datetime)),
      ...(r.categories ?? []).map((c) => h('span', { class: 'chip' }, c)))));
}

export async function renderDashboard(main: HTMLElement, params: URLSearchParams, account: Account): Promise<void> {
  const company = account.companies.find((c) => c.company === params.get('co')) ?? account.companies[0];
  if (!company) {
    replace(main, h('h1', {}, 'Dashboard'), h('p', { class: 'empty' }, 'This token sees no company.'));
    return;
  }
  const org = company.orgs.find((o) => o.org === params.get('org'))?.org ?? company.defaultDestination.org;
  const to = params.get('to') ?? isoDay(Date.now());
  const from = params.get('from') ?? isoDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY);
  const scope: Scope = { company: company.company, org };
  const days = daysOf(from, to);

  const coSel = h('select', { name: 'co' }, account.companies.map((c) => option(c.company, c.company, c.company === company.company)));
  const orgSel = h('select', { name: 'org' }, company.orgs.map((o) => option(o.org, o.org, o.org === org)));
  const fromIn = h('input', { type: 'date', name: 'from', value: from, required: true });
  const toIn = h('input', { type: 'date', name: 'to', value: to, required: true });
  const form = h('form', { class: 'dash-form', onsubmit: (e: Event) => {
    e.preventDefault();
    location.hash = hashOf('dashboard', { co: coSel.value, org: orgSel.value, from: fromIn.value, to: toIn.value });
  } }, ...(account.principal === 'root' ? [field('Company', coSel)] : []), field('Organization', orgSel), field('From', fromIn), field('To', toIn), h('button', { type: 'submit' }, 'Show'));
  const summary = h('section', { class: 'dash-summary', 'aria-label': 'Sentiment' });
  const charts = h('section', { class: 'dash-charts', 'aria-labelledby': 'dash-cat' }, h('h2', { id: 'dash-cat' }, 'Categories per day'));
  const dayCalls = h('section', { class: 'dash-day', 'aria-live': 'polite' });
  const overtalk = h('section', { class: 'dash-overtalk', 'aria-labelledby': 'dash-ot' }, h('h2', { id: 'dash-ot' }, 'Most overtalk'));
  replace(main, h('h1', {}, 'Dashboard'), form, summary, charts, dayCalls, overtalk);

  const range = { from, to };
  const [cats, all, negative, mostlyNegative, top] = await Promise.all([
    json<{ categories: CategoryInfo[] }>(`/categories/${encodeURIComponent(company.company)}`),
    search(scope, { ...range, size: 0 }),
    search(scope, { ...range, size: 0, sentiment: 'Negative' }),
    search(scope, { ...range, size: 0, sentiment: 'Mostly Negative' }),
    json<Array<{ tid: string; source: string; metrics?: { overtalksecs: number } }>>(`/search/${encodeURIComponent(company.company)}/${encodeURIComponent(org)}`, {
      body: { ...range, sort: 'overtalk', size: 10, output: 'details' },
    }),
  ]);
  const share = (n: number) => (all.total === 0 ? '–' : `${Math.round((100 * n) / all.total)} %`);
  replace(summary,
    h('div', { class: 'stat' }, h('span', { class: 'stat-value' }, String(all.total)), h('span', { class: 'muted' }, 'calls')),
    h('div', { class: 'stat sentiment-negative' }, h('span', { class: 'stat-value' }, share(negative.total)), h('span', { class: 'muted' }, 'with a negative utterance')),
    h('div', { class: 'stat sentiment-mostly-negative' }, h('span', { class: 'stat-value' }, share(mostlyNegative.total)), h('span', { class: 'muted' }, 'with a mostly negative one')));

  if (cats.categories.length === 0) charts.append(h('p', { class: 'empty' }, 'No categories yet: PUT /categories/CO/NAME or voxdex category add.'));
  const showDay = async (name: string, day: string) => {
    const r = await search(scope, { category: name, from: day, to: day, size: 100, fields: 'tid,filename,datetime,categories' });
    replace(dayCalls, h('h2', {}, `${name} on ${day}: ${r.total} ${r.total === 1 ? 'call' : 'calls'}`), callList(r.rows, scope));
  };
  for (const c of cats.categories) {
    const r = await search(scope, { ...range, category: c.name, size: 1000, fields: 'datetime' });
    charts.append(h('figure', { class: 'dash-cat' },
      h('figcaption', {}, h('span', { class: 'chip' }, c.name), ` ${r.total} in range`, c.backfill.state === 'done' ? '' : ` (scoring earlier calls: ${c.backfill.done} done)`),
      chart(c.name, days, perDay(r.rows, days), (day) => void showDay(c.name, day)),
      h('div', { class: 'axis muted' }, h('span', {}, days[0] ?? ''), h('span', {}, days.at(-1) ?? ''))));
  }
  const withOvertalk = top.filter((d) => (d.metrics?.overtalksecs ?? 0) > 0);
  overtalk.append(withOvertalk.length === 0 ? h('p', { class: 'empty' }, 'No overtalk in this range.') : h('ol', { class: 'dash-calls' }, withOvertalk.map((d) =>
    h('li', {}, h('a', { href: `#/call?${new URLSearchParams({ co: company.company, org, tid: d.tid, file: d.source })}` }, d.source || d.tid), ' ', h('span', { class: 'muted' }, `${d.metrics!.overtalksecs.toFixed(1)} s overtalk`)))));
}
