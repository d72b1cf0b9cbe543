/**
 * The web UI in a real browser (Debian's Chromium, playwright-core) against a started voxdex with
 * the real ASR: a wrong token, sign-in, uploading a real-speech call, following it to done,
 * searching a phrase the API found in it, opening the hit and hearing it from there, clicking a
 * word, exporting CSV, and another company's data never showing. Expectations come from what the
 * API answers, not from hard-coded recognizer output. Screenshots of each page at 1280 px and at a
 * phone width go to test-output/ui/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Service } from '../../src/service.js';
import { buildUi } from '../../ui/build.js';
import { copyFileSync } from 'node:fs';
import { axeViolations, DESKTOP, launchChromium, screenshotsAt, type Browser } from '../fixtures/browser.js';
import { streamCall } from '../fixtures/live-client.js';
import { makeCall, makeTempDir, makeWav, makeZip, removeDir } from '../fixtures/make-audio.js';
import { makePromptCall, PROMPT_CALL } from '../fixtures/prompt-call.js';
import { ROOT, startInProcess, startReceiver, upload, waitResult } from './harness.js';

export const SCREENSHOTS = path.join(ROOT, 'test-output', 'ui');

const ui = suite('e2e: the web UI in Chromium');
let dir = '';
let svc: Service;
let browser: Browser;
let page: Page;
let acme = '';
let globex = '';
let call = '';
let requestid = '';
/** The phrase searched for, and the first hit the API gives for it. */
let terms = '';
let hit = { channel: 0, start: 0, end: 0, text: '' };
/** A word of the phrase: the live call's category. */
let liveWord = '';
const requested: string[] = [];
/** Refuses every callback (500): the jobs page shows the delivery waiting for its retry. */
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const api = async (pathname: string, init: RequestInit & { token?: string } = {}) => {
  const r = await fetch(`${svc.url}${pathname}`, { ...init, headers: { Authorization: `Bearer ${init.token ?? acme}`, Accept: 'application/json', ...(init.headers ?? {}) } });
  return r;
};

/** A screenshot at 1280 px and at phone width; at both the page must not scroll sideways. */
const screenshots = (name: string) => screenshotsAt(page, SCREENSHOTS, name);

/** Every form control has an accessible name (a label, aria-label or aria-labelledby). */
async function unlabelled(): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('input, select, textarea, button, [role="button"]')]
      .filter((el) => {
        const e = el as HTMLInputElement;
        if (e.type === 'hidden' || e.closest('[hidden]')) return false;
        const named = (e.labels && e.labels.length > 0) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby') || (e.textContent ?? '').trim() !== '';
        return !named;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

ui.before(async () => {
  dir = makeTempDir('voxdex-ui-');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await buildUi();
  svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  acme = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  await svc.tenancy.change((t) => t.addFolder('acme', 'sales', 'archive'));
  globex = (await svc.tenancy.change((t) => t.addCompany('globex', { org: 'ops', folder: 'inbox' }))).token;
  call = await makePromptCall(dir, { name: 'prompt-call.wav' });
  // Another company's call with the same words: it must never show up for acme.
  const other = await upload(svc.url, { file: call, name: 'globex-confidential.wav', fields: { token: globex } });
  assert.is((await waitResult(svc.url, globex, other.body.requestid, 120_000)).status, 200);
  receiver = await startReceiver(() => 500);
  browser = await launchChromium(DESKTOP);
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => console.error('page error:', e.message));
});

ui.after(async () => {
  await receiver?.close();
  await browser?.close();
  await svc?.close();
  removeDir(dir);
});

ui('a wrong token shows an error and nothing else', async () => {
  await page.goto(`${svc.url}/`);
  assert.is(new URL(page.url()).pathname, '/ui/');
  await page.getByLabel('Token').fill('0123456789abcdef0123456789abcdef');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const error = page.locator('#sign-in-error');
  await error.getByText('This token was not accepted').waitFor();
  assert.is(await error.textContent(), 'This token was not accepted: The token is not valid: check it, or ask the operator for a new one (voxdex token rotate)');
  assert.is(await page.getByLabel('Token').getAttribute('aria-invalid'), 'true');
  assert.is(await page.evaluate(() => sessionStorage.length), 0);
  assert.is(await page.locator('nav').count(), 0, 'no navigation before sign-in');
  assert.equal(await unlabelled(), []);
  assert.equal(await axeViolations(page), []);
  await screenshots('sign-in-error');
});

ui('signs in with the company token and offers only its own company', async () => {
  await page.getByLabel('Token').fill(acme);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.signed-in').getByText('acme').waitFor();
  assert.is(await page.locator('select[name="co"]').count(), 0, 'a company token chooses no company');
  assert.equal(await page.locator('select[name="org"] option').allTextContents(), ['sales']);
  assert.equal(await page.locator('select[name="folder"] option').allTextContents(), ['All folders', 'archive', 'calls']);
  await page.locator('.results .empty').waitFor();
  assert.equal(await unlabelled(), []);
});

/** Uploads files through the form; resolves to each one's request id, in order. */
async function uploadThroughForm(files: string[]): Promise<string[]> {
  await page.locator('#upload-files').setInputFiles(files);
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.locator('.upload-message').getByText(/ of \d+ accepted\.$/).waitFor({ timeout: 60_000 });
  const states = await page.locator('.upload-item').allTextContents();
  assert.is(await page.locator('.upload-message').textContent(), `${files.length} of ${files.length} accepted.`, states.join(' | '));
  const ids: string[] = [];
  for (const f of files) {
    const state = await page.locator('.upload-item', { has: page.locator('.upload-name', { hasText: new RegExp(`^${path.basename(f).replace('.', '\\.')}$`) }) }).first().locator('.upload-state').textContent();
    ids.push(/request ([0-9a-f-]{36})/.exec(state ?? '')![1]!);
  }
  return ids;
}

ui('uploads a real-speech call with options and metadata, and follows it until it is done', async () => {
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.getByLabel('Destination').selectOption('sales/calls');
  await page.getByLabel('Sentiment').check();
  await page.getByLabel('Value of agent').fill('alice');
  await page.getByLabel('Callback URL').fill(`${receiver.url}/hook`);
  await page.getByLabel('Call time').fill('2026-03-02 14:05');
  [requestid] = await uploadThroughForm([call]);
  const row = page.locator(`tr[data-requestid="${requestid}"]`);
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', /prompt-call\.wav/);
  await page.locator(`tr[data-requestid="${requestid}"][data-state="done"]`).waitFor({ timeout: 120_000 });
  assert.match((await row.locator('td[data-label="Files"]').textContent()) ?? '', /^1 of 1 done/);
  // The options and metadata reached the request: the API finds it by them.
  const found = await (await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ 'meta.agent': 'alice', sentiment: 'any', from: '2026-03-01', to: '2026-03-03' }), headers: { 'Content-Type': 'application/json' } })).json();
  assert.equal(found.map((r: { filename: string }) => r.filename), ['prompt-call.wav']);
  // The callback failed (the receiver answers 500): the page says so, with the next try.
  await row.locator('.cb-retry').waitFor({ timeout: 30_000 });
  assert.match((await row.locator('.cb-retry').textContent()) ?? '', /^result failed, will retry · \d+ attempts? · next try \d{4}-\d{2}-\d{2} \d{2}:\d{2} · HTTP 500/);
  assert.is(await page.locator('.jobs-table tbody tr').count(), 1, 'only acme\u2019s request is listed');
  assert.not.match((await page.locator('.jobs').textContent()) ?? '', /globex/);
  assert.equal(await unlabelled(), []);
  // Its transcripts: a search limited to the request.
  await row.getByRole('link', { name: 'Transcripts of prompt-call.wav' }).click();
  await page.locator('.chip').getByText(`Only request ${requestid}`).waitFor();
  await page.locator('.result').waitFor();
  assert.equal(await page.locator('.result .file').allTextContents(), ['prompt-call.wav']);
  await page.getByRole('link', { name: 'Jobs' }).click();
  await page.locator('.jobs-table').waitFor();
});

ui('uploads several files at once with progress each; flags the same recording sent twice; per-file errors; cancel', async () => {
  const tone = await makeWav(dir, { name: 'tone.wav', rate: 8000, channels: 1, tone: 440, seconds: 1 });
  const again = path.join(dir, 'tone-again.wav');
  copyFileSync(tone, again);
  const nested = await makeZip(dir, 'inner.zip', [tone]);
  const zip = await makeZip(dir, 'batch.zip', [{ path: tone, name: 'ok.wav' }, { path: nested, name: 'inner.zip' }]);
  const [, toneId, againId] = await uploadThroughForm([zip, tone, again]);
  assert.equal(await page.locator('.upload-item.ok progress').evaluateAll((els) => els.map((e) => (e as HTMLProgressElement).value)), [1, 1, 1]);
  const dup = page.locator(`tr[data-requestid="${againId}"] .duplicate`);
  await dup.waitFor();
  assert.match((await dup.textContent()) ?? '', new RegExp(`^Same recording as tone\\.wav \\(request ${toneId}, `));
  assert.is(await page.locator(`tr[data-requestid="${toneId}"] .duplicate`).count(), 0, 'the first upload is not the repeat');
  const zipRow = page.locator('tr', { hasText: 'batch.zip' });
  await page.locator('tr[data-state="done"]', { hasText: 'batch.zip' }).waitFor({ timeout: 60_000 });
  assert.match((await zipRow.locator('td[data-label="Files"]').textContent()) ?? '', /^1 of 2 done, 1 failed/);
  await zipRow.locator('.file-errors summary').click();
  assert.match((await zipRow.locator('.file-errors li').textContent()) ?? '', /^inner\.zip: Archive member is a zip archive; nested archives are not expanded\..*\(NESTED_ARCHIVE\)$/);

  const long = await makeCall(dir, { seconds: 90, name: 'long-call.wav' });
  await uploadThroughForm([long]);
  const row = page.locator('tr', { hasText: 'long-call.wav' });
  await row.getByRole('button', { name: 'Cancel long-call.wav' }).click();
  await page.locator('tr[data-state="cancelled"]', { hasText: 'long-call.wav' }).waitFor({ timeout: 30_000 });
  await row.locator('.file-errors summary').click();
  assert.match((await row.locator('.file-errors li').textContent()) ?? '', /^long-call\.wav: The request was cancelled \(CANCELLED\)$/);
  assert.is(await row.getByRole('button', { name: /^Cancel/ }).count(), 0, 'nothing left to cancel');
  assert.equal(await axeViolations(page), []);
  await screenshots('jobs');
});

ui('searches a phrase the API found in the call: the same hit, with the words marked', async () => {
  // The phrase: two adjacent recognized words that are in the prompts' text (robust to recognizer changes).
  const details = await (await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ output: 'details', requestid }), headers: { 'Content-Type': 'application/json' } })).json();
  const expected = new Set(Object.values(PROMPT_CALL.text).join(' ').split(' '));
  const common = new Set(['the', 'and', 'your', 'you', 'are', 'this', 'in', 'by', 'as', 'be', 'a', 'is']);
  let best: { words: string[]; score: number } | undefined;
  for (const u of details[0].utterances) {
    for (let i = 0; i + 1 < u.events.length; i++) {
      const [a, b] = [u.events[i], u.events[i + 1]];
      const ok = [a, b].every((e: { word: string }) => expected.has(e.word.toLowerCase()) && !common.has(e.word.toLowerCase()));
      const score = Math.min(a.confidence, b.confidence);
      if (ok && a.start >= 1.5 && (!best || score > best.score)) best = { words: [a.word, b.word], score };
    }
  }
  assert.ok(best, 'the recognizer found two adjacent words of the prompts');
  terms = `"${best!.words.join(' ')}"`;
  const apiRows = await (await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ terms }), headers: { 'Content-Type': 'application/json' } })).json();
  assert.is(apiRows.length, 1);
  hit = apiRows[0].hits[0];

  await page.getByRole('link', { name: 'Search' }).click();
  await page.getByLabel('Words or phrases').fill(terms);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.results-head h2').getByText('1 call').waitFor();
  const result = page.locator('.result');
  assert.is(await result.count(), 1);
  assert.is(await result.locator('.file').textContent(), 'prompt-call.wav');
  assert.is(await result.locator('.score').textContent(), `${apiRows[0].score} hit${apiRows[0].score === 1 ? '' : 's'}`);
  const first = result.locator('.hit').first();
  assert.is(await first.locator('.ch').textContent(), `ch\u00a0${hit.channel}`);
  assert.is(await first.locator('.snip').textContent(), `\u2026${hit.text}\u2026`);
  assert.equal((await first.locator('mark').allTextContents()).map((w) => w.toLowerCase()), best!.words.map((w) => w.toLowerCase()));
  assert.not.match((await page.locator('main').textContent()) ?? '', /globex/);
  await page.getByText('Filters and order').click(); // shown open in the screenshots
  assert.equal(await unlabelled(), []);
  assert.equal(await axeViolations(page), []);
  liveWord = best!.words[0]!.toLowerCase();
  await screenshots('search-results');
});

ui('shows a syntax error at its position in the search terms', async () => {
  const box = page.getByLabel('Words or phrases');
  await box.fill('refund "cancel my');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.query-error mark.at').waitFor();
  assert.is(await page.locator('.query-error p.error').textContent(), 'Invalid terms: the quote at position 7 is not closed. See docs/search.md for the syntax.');
  assert.is(await page.locator('.query-error pre').textContent(), 'refund "cancel my');
  assert.is(await page.locator('.query-error mark.at').textContent(), '"');
  assert.is(await box.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.evaluate(() => [(document.activeElement as HTMLInputElement).selectionStart, (document.activeElement as HTMLInputElement).selectionEnd]), [7, 8]);
  await screenshots('search-error');
});

ui('opens the hit and plays the recording from the hit\u2019s offset', async () => {
  await page.getByLabel('Words or phrases').fill(terms);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.result').waitFor();
  await page.locator('.result .hit').first().click();
  await page.locator('h1', { hasText: 'prompt-call.wav' }).waitFor();
  await page.waitForFunction(() => (document.getElementById('player') as HTMLAudioElement | null)?.dataset.startedAt !== undefined, undefined, { timeout: 15_000 });
  const startedAt = Number(await page.locator('#player').getAttribute('data-started-at'));
  assert.ok(Math.abs(startedAt - hit.start) < 0.5, `playback started at ${startedAt} s; the hit is at ${hit.start} s`);
  await page.waitForTimeout(400);
  const t = await page.evaluate(() => (document.getElementById('player') as HTMLAudioElement).currentTime);
  assert.ok(t > startedAt && t < hit.start + 2, `playing on: ${t} s`);
  assert.ok((await page.locator('.w.now').count()) >= 1, 'the word being spoken is highlighted');
  assert.ok((await page.locator('.w.w-hit').count()) >= 2, 'the hit words are marked in the transcript');
  assert.ok((await page.locator('.w.low').count()) >= 0);
  assert.is(await page.locator('.utt.ch-0').count() > 0 && (await page.locator('.utt.ch-1').count()) > 0, true, 'both speaker tracks');
  assert.equal(await unlabelled(), []);
  assert.equal(await axeViolations(page), []);
  await screenshots('call');
});

ui('clicking a word, or Enter on it, plays from that word', async () => {
  // The readable text is shown by default; the recognized words are one switch away.
  if (await page.getByLabel('Readable text').count()) await page.getByLabel('Readable text').uncheck();
  const word = page.locator('.utt.ch-1 .w').nth(2);
  const start = Number(await word.getAttribute('data-start'));
  await word.click();
  const at = await page.evaluate(() => (document.getElementById('player') as HTMLAudioElement).currentTime);
  assert.ok(Math.abs(at - start) < 0.5, `after the click: ${at} s, the word starts at ${start} s`);
  await page.keyboard.press('ArrowRight');
  const next = Number(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.start));
  assert.ok(next >= start, 'arrow right moves to the next word');
  await page.keyboard.press('Enter');
  const after = await page.evaluate(() => (document.getElementById('player') as HTMLAudioElement).currentTime);
  assert.ok(Math.abs(after - next) < 0.5, `after Enter: ${after} s, the word starts at ${next} s`);
  // Listening to one channel keeps the place in the call.
  await page.getByRole('radio', { name: 'Channel 1' }).check();
  await page.waitForFunction(() => (document.getElementById('player') as HTMLAudioElement).src.includes('channel=1'));
  await page.waitForFunction(() => (document.getElementById('player') as HTMLAudioElement).readyState >= 1);
  const kept = await page.evaluate(() => (document.getElementById('player') as HTMLAudioElement).currentTime);
  assert.ok(Math.abs(kept - next) < 1.5, `after switching to channel 1: ${kept} s (was at ${next} s)`);
});

ui('exports the current search as the API\u2019s CSV', async () => {
  await page.getByRole('link', { name: /Back to the results/ }).click();
  await page.locator('.result').waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  assert.is(download.suggestedFilename(), 'voxdex-search.csv');
  const csv = readFileSync((await download.path())!, 'utf8');
  const fromApi = await (
    await api('/search/acme/sales', { method: 'POST', body: JSON.stringify({ terms, format: 'csv', offset: 0, size: 1000, sort: 'datetime', sortdir: 'desc' }), headers: { 'Content-Type': 'application/json', Accept: 'text/csv' } })
  ).text();
  assert.is(csv, fromApi);
  assert.match(csv, /^tid,filename,datetime,duration,nchannels,model,confidence,score,meta\.agent,hits\r\n/);
  assert.match(csv, /,prompt-call\.wav,/);
});

ui('another company\u2019s data never appears, and no request carries a token in its URL', async () => {
  await page.goto(`${svc.url}/ui/#/search?co=globex&org=ops`);
  await page.locator('.result').first().waitFor();
  const files = await page.locator('.result .file').allTextContents();
  assert.equal(files.sort(), ['ok.wav', 'prompt-call.wav', 'tone-again.wav', 'tone.wav'], 'acme\u2019s own calls only');
  assert.not.match((await page.content()), /globex-confidential/);
  for (const url of requested) {
    assert.not.match(url, acme, `token in ${url}`);
    assert.not.match(url, globex, `token in ${url}`);
    assert.not.match(new URL(url).pathname, /globex/, `acme's page asked for ${url}`);
  }
  assert.ok(requested.some((u) => u.includes('/transcribe/download/')), 'the audio came through a signed link');
});

ui('live calls: the call in progress, its words as they are said and a category alert', async () => {
  const r = await api(`/categories/acme/live-${liveWord}`, { method: 'PUT', body: JSON.stringify({ terms: liveWord }), headers: { 'Content-Type': 'application/json' } });
  assert.is(r.status, 201);
  const ws = `${svc.url.replace('http', 'ws')}/transcribe/stream?token=${acme}&encoding=mulaw&channels=2&rate=8000`;
  await page.getByRole('link', { name: 'Live' }).click();
  await page.locator('.live-list .empty').waitFor();
  const streaming = streamCall(ws, call, { speed: 1 });
  await page.getByRole('link', { name: /^Follow the call/ }).click({ timeout: 15_000 });
  await page.locator('.live-line').first().waitFor({ timeout: 60_000 });
  await page.locator('.live-alert').first().waitFor({ timeout: 60_000 });
  assert.match((await page.locator('.live-alert').first().textContent()) ?? '', new RegExp(`^live-${liveWord} matched at \\d`));
  assert.equal(await axeViolations(page), []);
  await screenshots('live');
  const run = await streaming;
  const said = run.messages.filter((m) => m.message.type === 'utterance').length;
  await page.locator('.live-follow [role="status"] a').getByText('its transcript').waitFor({ timeout: 60_000 });
  assert.is(await page.locator('.live-line').count(), said, 'every utterance the client got');
  assert.ok(!requested.some((u) => u.includes(acme)), 'no token in a URL the page asked for');
});

ui('signing out forgets the token', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Token').waitFor();
  assert.is(await page.evaluate(() => sessionStorage.length), 0);
  await screenshots('sign-in');
});

ui('the root token sees every company and chooses which one to search', async () => {
  const root = readFileSync(path.join(dir, 'data', 'root.token'), 'utf8').trim();
  await page.getByLabel('Token').fill(root);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.signed-in').getByText('root (all companies)').waitFor();
  await page.getByRole('link', { name: 'Search' }).click();
  await page.locator('form[role="search"] select[name="co"]').waitFor();
  assert.equal(await page.getByLabel('Company').locator('option').allTextContents(), ['acme', 'globex']);
  await page.getByLabel('Company').selectOption('globex');
  assert.equal(await page.locator('select[name="org"] option').allTextContents(), ['ops']);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.result .file', { hasText: 'globex-confidential.wav' }).waitFor();
  assert.equal(await page.locator('.result .file').allTextContents(), ['globex-confidential.wav']);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Token').waitFor();
});

ui.run();
