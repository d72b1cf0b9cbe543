/**
 * The web UI's pages in Debian's Chromium (playwright-core), measured with the browser's own
 * performance timings on an index of 20,000 calls, each against named peers in the same browser:
 * - the search page (first render of 100 results): the API's raw summary page for the same search,
 *   and today's page — the UI as built at PEER_REF, served to the same browser for the same search;
 * - the dashboard (30 days and a whole year, broken down by agent): the server's time for its one
 *   GET /analytics request (wall and process CPU, measured around the request in this process), and
 *   today's dashboard at PEER_REF, which drew its charts from one search per category.
 *
 *   nice node --import tsx bench/ui-render.ts [--count 20000] [--runs 10] [--peer-ref cdffb91]
 *
 * A voxdex service runs in this process on a synthetic corpus (bench/lib/corpus.ts) in the embedded
 * index. Each run is a cold load (browser cache disabled): HTML, CSS, JS, GET /account, POST /search,
 * building the list. "rendered" is the UI's performance mark right after the 100 results are in the
 * DOM; "painted" the mark it sets in the frame after (requestAnimationFrame + task), both from the
 * navigation start. Correctness first: the page must show exactly the API's first 100 rows, in its
 * order, each with its hit count; the peer page must hold the same rows.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { createService } from '../src/service.js';
import type { IndexedTranscript } from '../src/search/transcript-index.js';
import { buildUi } from '../ui/build.js';
import { launchChromium } from '../test/fixtures/browser.js';
import { generateCorpus } from './lib/corpus.js';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const COUNT = arg('count', 20_000);
const RUNS = arg('runs', 10);
const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The last commit whose web page is "today's page" (before issue 28's pages). */
const PEER_REF = process.argv.includes('--peer-ref') ? process.argv[process.argv.indexOf('--peer-ref') + 1]! : 'cdffb91';
const BUDGET_MS = 300;
/** Two pages of 100 results: one hit per call (a phrase), and many hits per call (common words). */
const QUERIES = [
  { name: 'phrase, ~1 hit per call', terms: '"refund request"' },
  { name: 'common words, many hits per call', terms: 'please | account | order' },
];

console.log(`command: node --import tsx bench/ui-render.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores, ${os.platform()} ${os.release()}`);
console.log(`load average at start: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (a shared machine: treat times as direction)`);

await buildUi();
const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-ui-'));
const peerUi = await buildPeerUi(PEER_REF, dir);
const config = loadConfig({ VOXDEX_DATA_DIR: dir, VOXDEX_PORT: '0', VOXDEX_LOG_LEVEL: 'silent', VOXDEX_MIN_FREE_DISK_MIB: '0', VOXDEX_ASR_THREADS: '1', VOXDEX_RATE_LIMIT_PER_MIN: '0' });
const svc = await createService(config, { log: silentLogger });
const token = (await svc.tenancy.change((t) => t.addCompany('bench', { org: 'calls', folder: 'f0' }))).token;
for (const f of ['f1', 'f2', 'f3']) await svc.tenancy.change((t) => t.addFolder('bench', 'calls', f));
let batch: IndexedTranscript[] = [];
for (const t of generateCorpus({ count: COUNT, wordsPerDoc: 300 })) {
  batch.push(t);
  if (batch.length === 500) {
    await svc.index.index(batch);
    batch = [];
  }
}
if (batch.length) await svc.index.index(batch);
console.log(`corpus: ${COUNT} transcripts × 300 words, 2 channels, embedded index`);
const CATEGORIES = { refund: '"refund request"', cancel: '"cancel my subscription"', manager: '"speak to a manager"' };
for (const [name, terms] of Object.entries(CATEGORIES)) {
  await fetch(`${svc.url}/categories/bench/${name}`, { method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ terms }) });
}
for (let i = 0; i < 600; i++) {
  const list = (await (await fetch(`${svc.url}/categories/bench`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { categories: Array<{ backfill: { state: string } }> };
  if (list.categories.every((c) => c.backfill.state === 'done')) break;
  await new Promise((r) => setTimeout(r, 500));
}
console.log(`categories: ${Object.keys(CATEGORIES).join(', ')} (backfilled over the corpus)`);

const browser = await launchChromium({ width: 1280, height: 900 });
console.log(`browser: ${browser.version} (${process.env.VOXDEX_TEST_CHROMIUM ?? '/usr/bin/chromium'}), viewport 1280×900`);
const page = browser.context.pages()[0] ?? (await browser.context.newPage());
const cdp = await browser.context.newCDPSession(page);
await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))]!;
const fmt = (xs: number[]) => `p50 ${pct(xs, 0.5).toFixed(0)} / p90 ${pct(xs, 0.9).toFixed(0)} / max ${Math.max(...xs).toFixed(0)} ms`;
let failed = false;

try {
  // Sign in once, as a person would; each run then opens a search link in this tab.
  await page.goto(`${svc.url}/ui/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.signed-in').waitFor();
  for (const q of QUERIES) {
    // The API's answer is the reference.
    const res = await fetch(`${svc.url}/search/bench/calls`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ terms: q.terms, size: 100 }),
    });
    const rows = (await res.json()) as { tid: string; score: number; hits: unknown[] }[];
    const total = Number(res.headers.get('x-total-count'));
    const hits = rows.reduce((n, r) => n + r.hits.length, 0);
    if (rows.length !== 100 || rows.some((r) => r.score < 1)) throw new Error(`${q.terms}: the API gave ${rows.length} rows; the bench needs 100 with hits`);
    console.log(`\nquery ${q.terms} (${q.name}): ${total} matches; first page 100 calls, ${hits} hits`);

    const ui: Record<'rendered' | 'painted' | 'search' | 'build' | 'wait' | 'searchStart' | 'html' | 'js' | 'dcl', number[]> = { rendered: [], painted: [], search: [], build: [], wait: [], searchStart: [], html: [], js: [], dcl: [] };
    const peer: { fcp: number[]; load: number[] } = { fcp: [], load: [] };
    const today: { rendered: number[]; painted: number[] } = { rendered: [], painted: [] };
    const hash = `#/search?${new URLSearchParams({ org: 'calls', terms: q.terms, size: '100' })}`;
    for (let run = 0; run < RUNS + 1; run++) {
      // ---- the UI: a cold load of a search link in a tab that signed in before
      await page.goto('about:blank');
      await page.goto(`${svc.url}/ui/${hash}`);
      await page.waitForFunction(() => performance.getEntriesByName('voxdex:results-painted').length > 0, undefined, { timeout: 30_000 });
      const m = await page.evaluate(() => {
        // (no named helpers in here: tsx would wrap them in a __name() the page does not have)
        const rendered = performance.getEntriesByName('voxdex:results-rendered')[0]!.startTime;
        const search = performance.getEntriesByType('resource').find((e) => e.name.includes('/search/')) as PerformanceResourceTiming;
        return {
          rendered,
          painted: performance.getEntriesByName('voxdex:results-painted')[0]!.startTime,
          search: search.responseEnd - search.startTime,
          build: rendered - performance.getEntriesByName('voxdex:results-received')[0]!.startTime,
          wait: performance.getEntriesByName('voxdex:results-received')[0]!.startTime - search.responseEnd,
          searchStart: search.startTime,
          html: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd,
          js: (performance.getEntriesByType('resource').find((e) => e.name.endsWith('/app.js')) as PerformanceResourceTiming).responseEnd,
          dcl: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
          tids: [...document.querySelectorAll('.result')].map((el) => (el as HTMLElement).dataset.tid),
          scores: [...document.querySelectorAll('.result .score')].map((el) => el.textContent),
          links: document.querySelectorAll('.result a.hit').length,
        };
      });
      const want = rows.map((r) => r.tid);
      if (JSON.stringify(m.tids) !== JSON.stringify(want)) throw new Error(`the UI shows other rows than the API (${m.tids.length} shown)`);
      if (m.scores.some((s, i) => s !== `${rows[i]!.score} hit${rows[i]!.score === 1 ? '' : 's'}`)) throw new Error('the UI shows other hit counts than the API');
      if (m.links !== hits) throw new Error(`the UI has ${m.links} hit links; the API gave ${hits} hits`);

      // ---- the peer: the API's own summary page for the same search, in the same browser
      await page.goto('about:blank');
      await page.setExtraHTTPHeaders({ Authorization: `Bearer ${token}` });
      await page.goto(`${svc.url}/search/bench/calls?${new URLSearchParams({ terms: q.terms, size: '100' })}`, { waitUntil: 'load' });
      await page.setExtraHTTPHeaders({});
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 5_000 }).catch(() => {});
      const p = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const fcp = performance.getEntriesByName('first-contentful-paint')[0];
        return { fcp: fcp ? fcp.startTime : NaN, load: nav.loadEventEnd, tids: (JSON.parse(document.body.innerText) as { tid: string }[]).map((r) => r.tid) };
      });
      if (JSON.stringify(p.tids) !== JSON.stringify(want)) throw new Error('the peer page holds other rows than the API');

      // ---- today's page: the UI built at PEER_REF, for the same search link
      await page.goto('about:blank');
      await servePeerUi(page, true);
      await page.goto(`${svc.url}/ui/${hash}`);
      await page.waitForFunction(() => performance.getEntriesByName('voxdex:results-painted').length > 0, undefined, { timeout: 30_000 });
      const o = await page.evaluate(() => ({
        rendered: performance.getEntriesByName('voxdex:results-rendered')[0]!.startTime,
        painted: performance.getEntriesByName('voxdex:results-painted')[0]!.startTime,
        tids: [...document.querySelectorAll('.result')].map((el) => (el as HTMLElement).dataset.tid),
      }));
      await servePeerUi(page, false);
      if (JSON.stringify(o.tids) !== JSON.stringify(want)) throw new Error('today\'s page shows other rows than the API');
      if (run === 0) continue; // warm-up: first start of the page's code paths and of the server's
      today.rendered.push(o.rendered);
      today.painted.push(o.painted);
      ui.rendered.push(m.rendered);
      ui.painted.push(m.painted);
      ui.search.push(m.search);
      ui.build.push(m.build);
      ui.wait.push(m.wait);
      ui.searchStart.push(m.searchStart);
      ui.html.push(m.html);
      ui.js.push(m.js);
      ui.dcl.push(m.dcl);
      peer.fcp.push(p.fcp);
      peer.load.push(p.load);
    }
    console.log(`  correct: the UI shows the API's 100 calls in order with their hit counts and ${hits} hit links; the peer page holds the same rows`);
    console.log(`  web UI   first render (results in the DOM) ${fmt(ui.rendered)}`);
    console.log(`           painted (next frame)              ${fmt(ui.painted)}`);
    console.log(`           HTML received                     ${fmt(ui.html)}`);
    console.log(`           app.js received                   ${fmt(ui.js)}`);
    console.log(`           DOMContentLoaded (app.js ran)     ${fmt(ui.dcl)}`);
    console.log(`           POST /search sent at              ${fmt(ui.searchStart)}`);
    console.log(`           POST /search took                 ${fmt(ui.search)}`);
    console.log(`           answer read (JSON, event loop)    ${fmt(ui.wait)}`);
    console.log(`           building the list (JS)            ${fmt(ui.build)}`);
    console.log(`  peer     API summary page, first paint     ${fmt(peer.fcp)};  load event ${fmt(peer.load)}`);
    console.log(`  peer     today's page (${PEER_REF}) rendered   ${fmt(today.rendered)};  painted ${fmt(today.painted)}`);
    const verdict = pct(ui.painted, 0.5) < BUDGET_MS;
    console.log(`  budget   painted p50 < ${BUDGET_MS} ms: ${verdict ? 'met' : 'NOT MET'} (${RUNS} cold loads)`);
    if (!verdict) failed = true;
  }
  if (!(await dashboards(page))) failed = true;
} finally {
  await browser.close();
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** The web page as it was at `ref` (its ui/ and src/ from git), bundled as `npm run build:ui` bundles it. */
async function buildPeerUi(ref: string, into: string): Promise<{ js: Buffer; css: Buffer; html: Buffer }> {
  const tree = path.join(into, 'peer-src');
  execFileSync('mkdir', ['-p', tree]);
  execFileSync('sh', ['-c', `git -C "${REPO}" archive ${ref} ui src | tar -x -C "${tree}"`]);
  const out = path.join(into, 'peer-ui.js');
  await build({ entryPoints: [path.join(tree, 'ui', 'src', 'main.ts')], bundle: true, minify: true, format: 'esm', target: ['es2022'], outfile: out, nodePaths: [path.join(REPO, 'node_modules')], logLevel: 'warning' });
  return { js: readFileSync(out), css: readFileSync(path.join(tree, 'ui', 'styles.css')), html: readFileSync(path.join(tree, 'ui', 'index.html')) };
}

/** While on, the browser gets today's page (PEER_REF) for /ui/ from the same origin: same server, same API. */
async function servePeerUi(page: Page, on: boolean): Promise<void> {
  if (!on) {
    await page.unroute('**/ui/**');
    return;
  }
  await page.route('**/ui/**', (route) => {
    const url = new URL(route.request().url());
    const file = url.pathname.replace(/^\/ui\/?/, '') || 'index.html';
    const body = file === 'app.js' ? peerUi.js : file === 'styles.css' ? peerUi.css : file === 'index.html' ? peerUi.html : undefined;
    if (!body) return route.continue();
    return route.fulfill({ body, contentType: file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html', headers: { 'Cache-Control': 'no-store' } });
  });
}

/**
 * The dashboard, 30 days and a whole year of the corpus, by agent: correctness first (its figures are
 * the API's counts), then the server's time for GET /analytics (wall and this process's CPU, 10 times),
 * the page's first render (the frame where its figures are drawn), and today's dashboard for the same
 * range (one search per category, plus the overtalk list) drawn to the same point.
 */
async function dashboards(page: Page): Promise<boolean> {
  let ok = true;
  const api = async (p: string, body: unknown) => fetch(`${svc.url}${p}`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  for (const [from, to] of [['2024-06-01', '2024-06-30'], ['2024-01-01', '2024-12-31']] as const) {
    const range = { from: `${from}T00:00:00Z`, to: `${to}T23:59:59.999Z` };
    // correctness: the analytics' figures are the searches' counts
    const a = (await (await api('/analytics/bench/calls', { ...range, tz: 'Z', by: 'meta.agent' })).json()) as { total: { calls: number; categories: Record<string, number> }; groups: Array<{ key: string | null; calls: number }> };
    const count = async (extra: Record<string, string>) => Number(await (await api('/search/bench/calls', { ...range, ...extra, output: 'count' })).text());
    if (a.total.calls !== (await count({}))) throw new Error('the dashboard\'s calls differ from the search count');
    for (const [name, n] of Object.entries(a.total.categories)) if (n !== (await count({ category: name }))) throw new Error(`category ${name}: ${n} differs from its search`);
    for (const g of a.groups.slice(0, 5)) if (g.key !== null && g.calls !== (await count({ 'meta.agent': g.key }))) throw new Error(`agent ${g.key} differs from its search`);
    console.log(`\ndashboard ${from} … ${to} by agent: ${a.total.calls} calls, categories ${JSON.stringify(a.total.categories)}, ${a.groups.length} agents — equal to the searches' counts`);

    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RUNS + 1; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await api('/analytics/bench/calls', { ...range, tz: 'Z', by: 'meta.agent' });
      await r.arrayBuffer();
      const c = process.cpuUsage(c0);
      if (i === 0) continue;
      wall.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
    }
    const hash = `#/dashboard?${new URLSearchParams({ org: 'calls', from, to, by: 'meta.agent' })}`;
    const oldHash = `#/dashboard?${new URLSearchParams({ org: 'calls', from, to })}`;
    const ui: number[] = [];
    const analyticsReq: number[] = [];
    const old: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      await page.goto('about:blank');
      await page.goto(`${svc.url}/ui/${hash}`);
      await page.waitForFunction(() => performance.getEntriesByName('voxdex:dashboard-rendered').length > 0, undefined, { timeout: 60_000 });
      const m = await page.evaluate(() => {
        const req = performance.getEntriesByType('resource').find((e) => e.name.includes('/analytics/')) as PerformanceResourceTiming;
        return { rendered: performance.getEntriesByName('voxdex:dashboard-rendered')[0]!.startTime, analytics: req.responseEnd - req.startTime, calls: document.querySelector('.stat-calls .stat-value')?.textContent };
      });
      if (m.calls !== String(a.total.calls)) throw new Error(`the dashboard shows ${m.calls} calls, the API ${a.total.calls}`);
      await page.goto('about:blank');
      await servePeerUi(page, true);
      await page.goto(`${svc.url}/ui/${oldHash}`);
      // today's dashboard is drawn when every category's chart and the overtalk list are there
      const n = Object.keys(CATEGORIES).length;
      await page.waitForFunction((k) => document.querySelectorAll('.dash-cat').length === k && document.querySelector('.dash-overtalk ol, .dash-overtalk .empty') !== null, n, { timeout: 120_000, polling: 'raf' });
      const drawn = await page.evaluate(() => performance.now());
      await servePeerUi(page, false);
      if (run === 0) continue;
      ui.push(m.rendered);
      analyticsReq.push(m.analytics);
      old.push(drawn);
    }
    console.log(`  server   GET /analytics wall ${fmt(wall)};  CPU ${fmt(cpu)}`);
    console.log(`  web UI   first render (figures drawn)      ${fmt(ui)};  its /analytics request ${fmt(analyticsReq)}`);
    console.log(`  peer     today's dashboard (${PEER_REF}) drawn   ${fmt(old)}`);
    const met = pct(ui, 0.5) < BUDGET_MS && pct(wall, 0.5) < BUDGET_MS;
    console.log(`  budget   first render p50 and server p50 < ${BUDGET_MS} ms: ${met ? 'met' : 'NOT MET'}`);
    if (!met) ok = false;
  }
  return ok;
}
