/**
 * The dashboard page in Chromium (playwright-core) against a started voxdex: calls indexed with
 * sentiment labels, overtalk and dates; two categories created over the API and backfilled; the
 * page shows each category's calls per day, clicking a bar lists that day's calls, the share of
 * negative calls and the calls with the most overtalk. Screenshots at 1280 px and phone width go to
 * test-output/ui/ (dashboard-*.png); the page must not scroll sideways and must keep its CSP.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Service } from '../../src/service.js';
import { buildUi } from '../../ui/build.js';
import { DESKTOP, launchChromium, screenshotsAt, type Browser } from '../fixtures/browser.js';
import { makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { makeTranscript } from '../conformance/transcript-corpus.js';
import { ROOT, sleep, startInProcess } from './harness.js';

const SCREENSHOTS = path.join(ROOT, 'test-output', 'ui');
const ui = suite('e2e: the dashboard in Chromium');
let dir = '';
let svc: Service;
let browser: Browser;
let page: Page;
let acme = '';
const errors: string[] = [];

const screenshots = (name: string) => screenshotsAt(page, SCREENSHOTS, name);

ui.before(async () => {
  dir = makeTempDir('voxdex-dash-');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await buildUi();
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  const texts = ['i want to cancel my subscription', 'i need a refund please', 'thank you that was great', 'cancel the order and refund me'];
  const docs = Array.from({ length: 12 }, (_, i) => {
    const t = makeTranscript({ tid: `d${i}`, scope: ['acme', 'sales', 'calls'], datetime: `2026-03-${String(1 + (i % 5)).padStart(2, '0')}T10:00:00Z`, duration: 60, model: 'm',
      source: `call-${i}.wav`, requestid: `r${i}`, metadata: {}, channels: [[texts[i % 4]!], ['hello there']] });
    t.document.metrics = { overtalksecs: i * 0.5, silencesecs: 1, longestsilencesecs: 1, talksecs: {}, wordsperminute: {} };
    t.document.utterances[0]!.metadata.sentiment = i % 3 === 0 ? 'Negative' : 'Positive';
    return t;
  });
  await svc.index.index(docs);
  for (const [name, terms] of [['cancel', 'cancel'], ['refund', 'refund']]) {
    const r = await fetch(`${svc.url}/categories/acme/${name}`, { method: 'PUT', headers: { Authorization: `Bearer ${acme}`, 'content-type': 'application/json' }, body: JSON.stringify({ terms }) });
    assert.is(r.status, 201);
  }
  for (let i = 0; i < 100; i++) {
    const list = await (await fetch(`${svc.url}/categories/acme`, { headers: { Authorization: `Bearer ${acme}` } })).json();
    if (list.categories.every((c: { backfill: { state: string } }) => c.backfill.state === 'done')) break;
    await sleep(200);
  }
  browser = await launchChromium(DESKTOP);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
});

ui.after(async () => {
  await browser?.close();
  await svc?.close();
  removeDir(dir);
});

ui('shows each category per day, the negative share and the most overtalk; a bar lists that day\'s calls', async () => {
  await page.goto(`${svc.url}/ui/`);
  await page.getByLabel('Token').fill(acme);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.signed-in').getByText('acme').waitFor();
  await page.goto(`${svc.url}/ui/#/dashboard?org=sales&from=2026-03-01&to=2026-03-07`);
  await page.locator('.dash-cat').nth(1).waitFor();
  assert.equal(await page.locator('.dash-cat figcaption .chip').allTextContents(), ['cancel', 'refund']);
  assert.is(await page.locator('.dash-cat').first().locator('rect.bar').count(), 7, 'one bar per day');
  assert.is(await page.locator('.dash-summary .stat-value').first().textContent(), '12');
  assert.is(await page.locator('.sentiment-negative .stat-value').textContent(), '33 %');
  const top = await page.locator('.dash-overtalk li').allTextContents();
  assert.match(top[0]!, /^call-11\.wav .*5\.5 s overtalk$/);
  await screenshots('dashboard');
  // 2026-03-01: calls d0, d5, d10 → d0 says cancel
  await page.locator('.dash-cat').first().locator('rect.bar').first().click();
  await page.locator('.dash-day h2').getByText('cancel on 2026-03-01').waitFor();
  assert.match((await page.locator('.dash-day h2').textContent())!, /cancel on 2026-03-01: \d+ calls?/);
  assert.ok((await page.locator('.dash-day li').count()) >= 1);
  await screenshots('dashboard-day');
  assert.equal(errors.filter((e) => !/favicon/.test(e)), [], 'no page errors, no CSP violations');
});

ui.run();
