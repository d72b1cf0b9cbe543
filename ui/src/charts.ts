/**
 * The dashboard's charts as plain HTML: bars are links (to the calls behind them) whose lengths are
 * set through the CSSOM (`el.style`, allowed by the page's CSP, unlike style attributes). Every chart
 * has an axis with values, a caption for screen readers and one scale for all its bars; a chart may
 * be given `max` to share a scale with others.
 */
import { h } from './dom.js';

export interface Bar {
  label: string;
  value: number;
  /** The same figure in the period before (drawn as a tick on the bar's track). */
  before?: number;
  /** Shown after the value, e.g. a share. */
  note?: string;
  href: string;
}

/** Round numbers for an axis from 0 to at least `max`: [0, step, 2·step, …]. */
export function axisTicks(max: number, count = 4): number[] {
  const m = Math.max(1, max);
  const raw = m / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(1, [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? 10 * mag);
  const ticks: number[] = [];
  for (let t = 0; t < m + step; t += step) ticks.push(t);
  return ticks;
}

function pct(value: number, top: number): string {
  return `${Math.min(100, (100 * value) / top)}%`;
}

/** Horizontal bars, one row per bar, on one scale with an axis of values underneath. */
export function barChart(o: { label: string; unit: string; bars: Bar[]; max?: number }): HTMLElement {
  const ticks = axisTicks(o.max ?? Math.max(...o.bars.map((b) => Math.max(b.value, b.before ?? 0))));
  const top = ticks.at(-1)!;
  const rows = o.bars.map((b) => {
    const fill = h('span', { class: 'hbar-fill' });
    fill.style.width = pct(b.value, top);
    const track = h('span', { class: 'hbar-track' }, fill);
    if (b.before !== undefined) {
      const mark = h('span', { class: 'hbar-before', title: `period before: ${b.before}` });
      mark.style.left = pct(b.before, top);
      track.append(mark);
    }
    // The link's name is its visible text: label, value, share, the period before.
    return h(
      'li',
      { class: 'hbar' },
      h('a', { href: b.href, class: 'hbar-link' },
        h('span', { class: 'hbar-label' }, b.label),
        track,
        h('span', { class: 'hbar-value' }, String(b.value), h('span', { class: 'sr' }, ` ${o.unit}`), b.note ? h('span', { class: 'muted' }, ` ${b.note}`) : null,
          b.before !== undefined ? h('span', { class: 'muted' }, ` · before ${b.before}`) : null)),
    );
  });
  const axis = h('div', { class: 'hbar-axis', 'aria-hidden': 'true' }, ticks.map((t) => {
    const tick = h('span', { class: 'tick' }, String(t));
    tick.style.left = pct(t, top);
    return tick;
  }));
  return h('figure', { class: 'chart hbars' }, h('figcaption', { class: 'sr' }, o.label), h('ul', { class: 'hbar-list' }, rows), h('div', { class: 'hbar-axis-row' }, h('span', {}), axis, h('span', {})));
}

export interface Column {
  /** The day (YYYY-MM-DD). */
  label: string;
  value: number;
  href: string;
}

/** Columns over time (one per day) with a value axis; the first, middle and last days are labelled. */
export function columnChart(o: { label: string; unit: string; columns: Column[]; max?: number; small?: boolean }): HTMLElement {
  const ticks = axisTicks(o.max ?? Math.max(...o.columns.map((c) => c.value)), o.small ? 2 : 4);
  const top = ticks.at(-1)!;
  const showValues = o.columns.length <= 31;
  const cols = o.columns.map((c) => {
    const bar = h('span', { class: 'col-bar' });
    bar.style.height = pct(c.value, top);
    const inner = [bar, showValues && c.value > 0 ? h('span', { class: 'col-value' }, String(c.value)) : null];
    return c.value > 0
      ? h('a', { class: 'col', href: c.href, 'aria-label': `${c.label}: ${c.value} ${o.unit}`, title: `${c.label}: ${c.value}` }, inner)
      : h('span', { class: 'col col-empty', title: `${c.label}: 0` }, inner);
  });
  const yAxis = h('div', { class: 'col-axis', 'aria-hidden': 'true' }, ticks.map((t) => {
    const tick = h('span', { class: 'tick' }, String(t));
    tick.style.bottom = pct(t, top);
    return tick;
  }));
  const n = o.columns.length;
  const labelled = [0, Math.floor((n - 1) / 2), n - 1].filter((v, i, a) => a.indexOf(v) === i);
  const xAxis = h('div', { class: 'col-x', 'aria-hidden': 'true' }, labelled.map((i) => h('span', {}, o.columns[i]?.label ?? '')));
  const plot = h('div', { class: 'col-plot' }, cols);
  const grid = h('div', { class: 'col-grid' }, ticks.map((t) => {
    const line = h('span', { class: 'gridline' });
    line.style.bottom = pct(t, top);
    return line;
  }), plot);
  return h(
    'figure',
    { class: `chart columns${o.small ? ' columns-small' : ''}`, role: 'group', 'aria-label': `${o.label}, ${o.columns[0]?.label ?? ''} to ${o.columns.at(-1)?.label ?? ''}` },
    h('div', { class: 'col-area' }, yAxis, grid),
    xAxis,
  );
}
