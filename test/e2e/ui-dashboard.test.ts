/**
 * The analyst's pages in Chromium (playwright-core) against a started voxdex with a known corpus in
 * its index (issue 28): the dashboard's figures are checked against counts asked of the API
 * independently (the searches each figure links to), with their own denominators, one scale across
 * categories, axes and values, the trend, a breakdown chosen in the page; the search page's filters;
 * a call's scorecard, by role too; the upload form's speaker bounds and crosstalk; axe-core finds no
 * serious or critical violation on any of them. Screenshots at
 * 1280 px and phone width go to test-output/ui/ (dashboard, dashboard-agent, search-filters, scorecard-roles,
 * scorecard-speakers); no page may scroll sideways or break its CSP.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Service } from '../../src/service.js';
import type { IndexedTranscript } from '../../src/search/transcript-index.js';
import { buildUi } from '../../ui/build.js';
import { clock } from '../../ui/src/format.js';
import { axeViolations, DESKTOP, launchChromium, screenshotsAt, type Browser } from '../fixtures/browser.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { makeTranscript } from '../conformance/transcript-corpus.js';
import { ROOT, sleep, startInProcess } from './harness.js';

const SCREENSHOTS = path.join(ROOT, 'test-output', 'ui');
const ui = suite('e2e: the dashboard, search filters and scorecard in Chromium');
let dir = '';
let svc: Service;
let browser: Browser;
let page: Page;
let acme = '';
let tz = '+00:00';
const errors: string[] = [];
const RANGE = { from: '2026-03-01', to: '2026-03-07' };

const screenshots = (name: string) => screenshotsAt(page, SCREENSHOTS, name);

/** The calls: 12 in the first week of March 2026 (3 analysed for sentiment, 2 of them negative), 4 the week before. */
function corpus(): IndexedTranscript[] {
  const texts = ['i want to cancel my subscription', 'i need a refund please', 'thank you that was great', 'cancel the order and refund me'];
  const agents = ['alice', 'bob', 'alice', undefined];
  const docs = Array.from({ length: 16 }, (_, i) => {
    const before = i >= 12;
    const day = before ? `2026-02-${String(22 + (i % 7)).padStart(2, '0')}` : `2026-03-0${1 + (i % 5)}`;
    const agent = agents[i % 4];
    const t = makeTranscript({
      tid: `d${String(i).padStart(2, '0')}`, scope: ['acme', 'sales', i % 3 === 0 ? 'archive' : 'calls'], datetime: `${day}T1${i % 10}:00:00Z`, duration: 60, model: 'm',
      source: i === 5 || i === 6 ? 'same-name.wav' : `call-${i}.wav`, requestid: `r${i}`, metadata: agent ? { agent } : {}, channels: [[texts[i % 4]!], ['hello there']],
    });
    if (i < 10) t.document.metrics = { overtalksecs: i % 3 === 0 ? 0 : i * 0.5, silencesecs: 1, longestsilencesecs: 1, talksecs: { '0': 2, '1': 1 }, wordsperminute: { '0': 120, '1': 90 } };
    if ([1, 4, 7].includes(i)) t.document.utterances[0]!.metadata.sentiment = i === 7 ? 'Positive' : i === 1 ? 'Negative' : 'Mostly Negative';
    return t;
  });
  // A call with a scorecard to show: roles, gender, sentiment, readable text, redaction, four speakers on one channel.
  const mono = makeTranscript({ tid: 'm01', scope: ['acme', 'sales', 'calls'], datetime: '2026-03-03T09:00:00Z', duration: 40, model: 'm', source: 'four-speakers.wav', requestid: 'rm',
    metadata: { agent: 'carol' }, channels: [['hello you reached acme', 'i want to cancel my account', 'let me transfer you', 'my card is ####', 'sure thing']] });
  mono.document.utterances.forEach((u, k) => {
    u.metadata.speaker = `S${(k % 4) + 1}`;
    u.metadata.gender = k % 2 === 0 ? 'female' : 'male';
    u.text = `${u.events.map((e) => e.word).join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
    u.metadata.sentiment = k === 1 ? 'Negative' : 'Neutral';
  });
  mono.document.utterances[3]!.events[3]!.redacted = 'card';
  mono.document.sentiment = { S1: { label: 'Neutral', score: 0.05 }, S2: { label: 'Negative', score: -0.6 } };
  mono.document.metrics = { overtalksecs: 0, silencesecs: 3.5, longestsilencesecs: 2, talksecs: { S1: 4, S2: 3, S3: 2, S4: 1.5 }, wordsperminute: { S1: 130, S2: 110, S3: 100, S4: 90 } };
  return [...docs, mono, rolesCall()];
}

/** A stereo call whose roles are known (channel 0 the agent), a name redacted on each line; outside the dashboard's ranges. */
function rolesCall(): IndexedTranscript {
  const call = makeTranscript({ tid: 'r01', scope: ['acme', 'sales', 'calls'], datetime: '2026-02-10T10:00:00Z', duration: 30, model: 'm', source: 'roles-call.wav', requestid: 'rr', metadata: {},
    channels: [['thank you for calling acme how can i help', 'thank you xname let me check'], ['hi my name is xname i want to cancel', 'thank you']] });
  for (const u of call.document.utterances) {
    u.metadata.role = u.metadata.channel === 0 ? 'agent' : 'customer';
    for (const e of u.events) {
      if (e.word !== 'xname') continue;
      e.word = '[NAME]';
      e.redacted = 'name';
    }
  }
  call.document.metrics = { overtalksecs: 1, silencesecs: 2, longestsilencesecs: 1, talksecs: { '0': 6, '1': 5 }, wordsperminute: { '0': 140, '1': 100 }, interruptions: { '0': 0, '1': 1 } };
  call.document.roles = {
    agent: { parties: ['C0'], talksecs: 6, wordsperminute: 140, interruptions: 0, sentiment: { label: 'Positive', score: 0.4 } },
    customer: { parties: ['C1'], talksecs: 5, wordsperminute: 100, interruptions: 1, sentiment: { label: 'Negative', score: -0.3 } },
  };
  return call;
}

const api = (p: string, init: RequestInit = {}) => fetch(`${svc.url}${p}`, { ...init, headers: { Authorization: `Bearer ${acme}`, Accept: 'application/json', 'content-type': 'application/json', ...(init.headers ?? {}) } });

/** How many calls the search with these options finds, asked of the API (the page's days are the browser's). */
async function count(options: Record<string, string>, scope = 'acme/sales'): Promise<number> {
  const body: Record<string, string> = { ...options, output: 'count' };
  if (options.from) body.from = `${options.from}T00:00:00${tz}`;
  if (options.to) body.to = `${options.to}T23:59:59.999${tz}`;
  const r = await api(`/search/${scope}`, { method: 'POST', body: JSON.stringify(body) });
  assert.is(r.status, 200, JSON.stringify(options));
  return Number(await r.text());
}

ui.before(async () => {
  dir = makeTempDir('voxdex-dash-');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await buildUi();
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  await svc.tenancy.change((t) => t.addFolder('acme', 'sales', 'archive'));
  await svc.index.index(corpus());
  for (const [name, terms] of [['cancel', 'cancel'], ['refund', 'refund']]) {
    const r = await api(`/categories/acme/${name}`, { method: 'PUT', body: JSON.stringify({ terms }) });
    assert.is(r.status, 201);
  }
  for (let i = 0; i < 100; i++) {
    const list = await (await api('/categories/acme')).json();
    if (list.categories.every((c: { backfill: { state: string } }) => c.backfill.state === 'done')) break;
    await sleep(200);
  }
  browser = await launchChromium(DESKTOP);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${svc.url}/ui/`);
  await page.getByLabel('Token').fill(acme);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.signed-in').getByText('acme').waitFor();
  const east = await page.evaluate(() => -new Date(2026, 2, 1).getTimezoneOffset());
  tz = `${east < 0 ? '-' : '+'}${String(Math.floor(Math.abs(east) / 60)).padStart(2, '0')}:${String(Math.abs(east) % 60).padStart(2, '0')}`;
});

ui.after(async () => {
  await browser?.close();
  await svc?.close();
  removeDir(dir);
});

const text = async (selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();

ui('dashboard: every figure equals the count of its search, with its own denominator', async () => {
  await page.goto(`${svc.url}/ui/#/dashboard?org=sales&from=${RANGE.from}&to=${RANGE.to}`);
  await page.locator('.hbar').first().waitFor();
  const calls = await count(RANGE);
  assert.is(await text('.stat-calls .stat-value'), String(calls));
  const negative = await count({ ...RANGE, sentiment: 'Negative,Mostly Negative' });
  const analysed = await count({ ...RANGE, sentiment: 'any' });
  assert.equal([negative, analysed, calls], [3, 4, 13], 'the corpus: 3 of 4 analysed calls negative, 13 calls');
  assert.is(await text('.sentiment-negative .stat-value'), `${Math.round((100 * negative) / analysed)} %`);
  assert.equal(await page.locator('.sentiment-negative .stat-value ~ span a').allTextContents(), [`${negative} calls`, `${analysed} analysed for sentiment`]);
  const withOvertalk = await count({ ...RANGE, overtalk: '0.01-' });
  const withMetrics = await count({ ...RANGE, overtalk: '0-' });
  assert.equal(await page.locator('.stat-overtalk a').allTextContents(), [`${withOvertalk} calls`, `${withMetrics} with metrics`]);
  const before = await count({ from: '2026-02-22', to: '2026-02-28' });
  assert.match(await text('.stat-calls .trend'), new RegExp(`vs ${before} calls in the period before$`));

  // One scale for every category, with values and an axis.
  const bars = await page.locator('.hbar').evaluateAll((els) => els.map((el) => ({
    label: el.querySelector('.hbar-label')!.textContent, value: Number(el.querySelector('.hbar-value')!.firstChild!.textContent),
    width: (el.querySelector('.hbar-fill') as HTMLElement).getBoundingClientRect().width, track: (el.querySelector('.hbar-track') as HTMLElement).getBoundingClientRect().width,
  })));
  assert.equal(bars.map((b) => b.label), ['cancel', 'refund']);
  for (const b of bars) assert.is(b.value, await count({ ...RANGE, category: b.label! }), b.label!);
  const ticks = (await page.locator('.hbar-axis .tick').allTextContents()).map(Number);
  const top = ticks.at(-1)!;
  assert.is(ticks[0], 0);
  for (const b of bars) assert.ok(Math.abs(b.width / b.track - b.value / top) < 0.02, `${b.label}: bar ${b.width}/${b.track} for ${b.value} of ${top}`);

  // Calls per day: every day of the range, each column the count of that day.
  const columns = page.locator('.dash-days > .chart .col');
  assert.is(await columns.count(), 7);
  for (const label of await page.locator('.dash-days > .chart a.col').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')!))) {
    const [, day, n] = /^(\S+): (\d+) calls$/.exec(label)!;
    assert.is(Number(n), await count({ from: day!, to: day! }), label);
  }
  // One date format: the form and the axis say YYYY-MM-DD.
  assert.equal([await page.locator('input[name="from"]').inputValue(), await page.locator('input[name="to"]').inputValue()], [RANGE.from, RANGE.to]);
  assert.equal(await page.locator('.dash-days > .chart .col-x span').allTextContents(), ['2026-03-01', '2026-03-04', '2026-03-07']);
  assert.equal(await axeViolations(page), []);
  await screenshots('dashboard');
});

ui('dashboard: a breakdown chosen in the page; a figure opens the calls behind it', async () => {
  await page.getByLabel('Break down by').selectOption('meta.agent');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.locator('.dash-breakdown tbody tr').first().waitFor();
  const rows = await page.locator('.dash-breakdown tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')!.textContent, tr.querySelectorAll('td')[0]!.textContent]));
  assert.equal(rows.map((r) => r[0]), ['alice', 'bob', 'carol', '(no agent)']);
  for (const [agent, n] of rows) {
    if (agent === '(no agent)') continue;
    assert.is(Number(n), await count({ ...RANGE, 'meta.agent': agent! }), agent!);
  }
  assert.is(rows.reduce((s, r) => s + Number(r[1]), 0), await count(RANGE));
  assert.equal(await axeViolations(page), []);
  await screenshots('dashboard-agent');
  // The refund bar lists the refund calls of the range.
  const refund = Number((await page.locator('.hbar', { hasText: 'refund' }).locator('.hbar-value').textContent())!.split(' ')[0]);
  await page.locator('.hbar', { hasText: 'refund' }).locator('a').click();
  await page.locator('.results-head h2').waitFor();
  assert.is(await text('.results-head h2'), `${refund} calls`);
  assert.is(await page.getByLabel('Category').inputValue(), 'refund');
  // Browsing has no hits to count: no "0 hits" on every call.
  assert.is(await page.locator('.result .score').count(), 0);
});

ui('search: every filter of the API; word forms; a clear message for an unknown category', async () => {
  await page.goto(`${svc.url}/ui/#/search?org=sales`);
  await page.locator('.result').first().waitFor();
  await page.getByText('Filters and order').click();
  await page.getByLabel('Category').selectOption('cancel');
  await page.getByLabel('Sentiment').selectOption('any');
  await page.locator('input[name="omin"]').fill('0');
  await page.getByLabel('Metadata field').fill('agent');
  await page.getByLabel('Metadata value').fill('alice');
  await page.getByLabel('Sort by').selectOption('overtalk');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForFunction(() => location.hash.includes('category=cancel'));
  await page.locator('.results-head h2').waitFor();
  const filtered = await count({ category: 'cancel', sentiment: 'any', overtalk: '0-', 'meta.agent': 'alice' });
  assert.is(await text('.results-head h2'), filtered === 1 ? '1 call' : `${filtered} calls`);
  assert.ok(filtered > 0);
  assert.equal(await axeViolations(page), []);
  await screenshots('search-filters');

  await page.goto(`${svc.url}/ui/#/search?org=sales&terms=cancels`);
  await page.locator('.result').first().waitFor();
  assert.is(await text('.results-head h2'), `${await count({ terms: 'cancels' })} calls`);
  assert.equal(await page.locator('.result').first().locator('mark').allTextContents(), ['cancel']);

  // Two calls of the same name are told apart (their call time to the second, their id).
  await page.goto(`${svc.url}/ui/#/search?org=sales&size=100`);
  await page.locator('.result').first().waitFor();
  const same = page.locator('.result', { hasText: 'same-name.wav' });
  assert.is(await same.count(), 2);
  const labels = await same.locator('.file').allTextContents();
  assert.is(new Set(labels).size, 2, `told apart: ${labels.join(' / ')}`);

  await page.goto(`${svc.url}/ui/#/search?org=sales&category=nope`);
  await page.locator('.query-error .error').waitFor();
  assert.match(await text('.query-error .error'), /^Unknown category "nope": the categories of acme are cancel, refund/);
  await page.goto(`${svc.url}/ui/#/search?org=sales&sentiment=${encodeURIComponent('mostly negative')}`);
  await page.locator('.results-head h2').waitFor();
  assert.is(await text('.results-head h2'), `${await count({ sentiment: 'Mostly Negative' })} call${(await count({ sentiment: 'Mostly Negative' })) === 1 ? '' : 's'}`);
});

ui('a call\u2019s scorecard: categories with their words, metrics, sentiment, gender, redaction, readable text, many speakers', async () => {
  await page.goto(`${svc.url}/ui/#/call?org=sales&tid=m01&file=four-speakers.wav`);
  await page.locator('.scorecard').waitFor();
  assert.equal(await page.locator('.score-cats > li .chip').allTextContents(), ['cancel']);
  assert.match(await text('.cat-hits li'), /I want to cancel my account\./);
  assert.match(await text('.scorecard .facts'), /Silence3\.5 s \(longest 2\.0 s\)/);
  assert.match(await text('.redactions'), /^1 card word redacted$/);
  const parties = await page.locator('.scorecard table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(parties[0], ['Speaker S1', '\u2013', '4 s', '130', '\u2013', 'Neutral (0.05)', 'female']);
  assert.equal(parties[1], ['Speaker S2', '\u2013', '3 s', '110', '\u2013', 'Negative (-0.60)', 'male']);
  assert.is(parties.length, 4);
  // Readable text by default; four speakers on one channel: one legible column, not four narrow ones.
  assert.ok(await page.locator('.lanes.lanes-many.readable').count() === 1);
  assert.equal(await page.locator('.utt .text').first().textContent(), 'Hello you reached acme.');
  assert.is(await page.locator('.utt .words').first().isVisible(), false);
  // Export of the document: the API's own.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the document (JSON)' }).click()]);
  const doc = JSON.parse(readFileSync((await download.path())!, 'utf8'));
  const [fromApi] = await (await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ output: 'details', requestid: 'rm' }) })).json();
  assert.equal(doc, fromApi);
  assert.equal(await axeViolations(page), []);
  await screenshots('scorecard-speakers');
  await page.getByLabel('Readable text').uncheck();
  assert.is(await page.locator('.utt .words').first().isVisible(), true);
  assert.equal(errors.filter((e) => !/favicon|Failed to load resource/.test(e)), [], 'no page errors, no CSP violations');
});

ui('roles: the search page\u2019s role and redaction-kind filters, the scorecard by role, a category limited to a role', async () => {
  await page.goto(`${svc.url}/ui/#/search?org=sales&terms=thank`);
  await page.locator('.result').first().waitFor();
  await page.getByText('Filters and order').click();
  await page.getByLabel('Said by').selectOption('customer');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForFunction(() => location.hash.includes('role=customer'));
  await page.locator('.results-head h2').waitFor();
  const customer = await count({ terms: 'thank', role: 'customer' });
  assert.ok(customer > 0 && customer < (await count({ terms: 'thank' })), 'the role filter leaves out the calls without roles');
  assert.is(await text('.results-head h2'), customer === 1 ? '1 call' : `${customer} calls`);
  assert.equal(await page.locator('.result', { hasText: 'roles-call.wav' }).locator('.hit .role').allTextContents(), ['customer']);
  // The call opened from it lists the customer's hit only, as the search did (the agent said "thank you" twice).
  await page.locator('.result', { hasText: 'roles-call.wav' }).locator('a.hit').click();
  await page.locator('#hits-title').waitFor();
  assert.is(await text('#hits-title'), '1 hit');
  await page.goto(`${svc.url}/ui/#/search?org=sales`);
  await page.locator('.result').first().waitFor();
  await page.getByText('Filters and order').click();
  await page.getByLabel('Redacted').selectOption('name');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForFunction(() => location.hash.includes('redacted=name'));
  await page.locator('.results-head h2').waitFor();
  assert.is(await count({ redacted: 'name' }), 1);
  assert.equal(await page.locator('.result .file').allTextContents(), ['roles-call.wav']);

  // A category limited to the customer: the scorecard shows the customer's words only, as the index matched them.
  const put = await api('/categories/acme/customer-thanks', { method: 'PUT', body: JSON.stringify({ terms: 'thank', role: 'customer' }) });
  assert.is(put.status, 201);
  for (let i = 0; i < 100; i++) {
    const list = await (await api('/categories/acme')).json();
    if (list.categories.every((c: { backfill: { state: string } }) => c.backfill.state === 'done')) break;
    await sleep(200);
  }
  await page.goto(`${svc.url}/ui/#/call?org=sales&tid=r01&file=roles-call.wav`);
  await page.locator('.scorecard').waitFor();
  const [doc] = await (await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ output: 'details', requestid: 'rr' }) })).json();
  assert.ok(doc.categories.includes('customer-thanks'));
  const customerThanks = doc.utterances.find((u: { metadata: { role: string }; text?: string; events: { word: string }[] }) => u.metadata.role === 'customer' && u.events[0]!.word === 'thank');
  const cat = page.locator('.score-cats > li', { has: page.locator('.chip', { hasText: /^customer-thanks$/ }) });
  const catHits = await cat.locator('.cat-hits li').allTextContents();
  assert.is(catHits.length, 1, catHits.join(' | '));
  assert.ok(catHits[0]!.startsWith(`${clock(customerThanks.start)} `), `${catHits[0]} at ${customerThanks.start}`);
  const rows = (caption: string) => page.locator('.scorecard table', { has: page.locator('caption', { hasText: caption }) }).locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(await rows('By role'), [
    ['Agent', 'Agent (channel 0)', '6 s', '140', '0', 'Positive (0.40)'],
    ['Customer', 'Customer (channel 1)', '5 s', '100', '1', 'Negative (-0.30)'],
  ]);
  assert.equal((await rows('By party')).map((r) => r.slice(0, 5)), [['Agent (channel 0)', 'agent', '6 s', '140', '0'], ['Customer (channel 1)', 'customer', '5 s', '100', '1']]);
  assert.match(await text('.redactions'), /^2 name words redacted$/);
  assert.equal([...new Set(await page.locator('.utt .ch-label').allTextContents())], ['Agent (channel 0)', 'Customer (channel 1)']);
  assert.equal(await axeViolations(page), []);
  await screenshots('scorecard-roles');
});

ui('upload form: minspeakers, maxspeakers and crosstalk are sent beside diarize; the API\u2019s refusal is shown', async () => {
  await page.goto(`${svc.url}/ui/#/jobs`);
  await page.getByLabel('At least').fill('3');
  await page.getByLabel('At most').fill('2');
  await page.getByLabel('Crosstalk').selectOption('keep');
  await page.getByLabel('Tell speakers apart').check();
  await page.locator('#upload-files').setInputFiles(await makeWav(dir, { name: 'speakers.wav', rate: 8000, tone: 440, seconds: 1 }));
  // What the page hands to XMLHttpRequest (a multipart body with a file is not visible to the DevTools protocol).
  await page.evaluate(() => {
    const w = window as unknown as { sent: Array<Array<[string, string]>> };
    w.sent = [];
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (body) {
      if (body instanceof FormData) w.sent.push([...body.entries()].filter((e): e is [string, string] => typeof e[1] === 'string'));
      return send.call(this, body);
    };
  });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.waitForFunction(() => (window as unknown as { sent: unknown[] }).sent.length === 1);
  const [sent] = await page.evaluate(() => (window as unknown as { sent: Array<Array<[string, string]>> }).sent);
  const fields = Object.fromEntries(sent!);
  assert.equal([fields.diarize, fields.minspeakers, fields.maxspeakers, fields.crosstalk], ['true', '3', '2', 'keep']);
  await page.locator('.upload-message').getByText('0 of 1 accepted.').waitFor();
  assert.match(await text('.upload-item .upload-state'), /^not accepted: minspeakers=3 is more than maxspeakers=2/);
  assert.equal(await axeViolations(page), []);
});

ui.run();
