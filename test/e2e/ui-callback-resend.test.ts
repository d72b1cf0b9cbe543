/**
 * The jobs page's "Send callback again" (issue 33 item 8) in a real browser (Debian's Chromium,
 * playwright-core) against a started voxdex with the real ASR: a callback the receiver refused for
 * good (400) shows as not delivered; the button sends it again and the page follows it to delivered.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Page } from 'playwright-core';
import type { Service } from '../../src/service.js';
import { buildUi } from '../../ui/build.js';
import { axeViolations, DESKTOP, launchChromium, type Browser } from '../fixtures/browser.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { startInProcess, startReceiver, upload, waitResult } from './harness.js';

const ui = suite('e2e: jobs page, sending a callback again');
const ctx = {} as { dir: string; svc: Service; browser: Browser; page: Page; acme: string; receiver: Awaited<ReturnType<typeof startReceiver>> };

ui.before(async () => {
  ctx.dir = makeTempDir('voxdex-ui-resend-');
  await buildUi();
  ctx.svc = await startInProcess(path.join(ctx.dir, 'data'), { VOXDEX_ASR_THREADS: '1' });
  ctx.acme = (await ctx.svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  ctx.receiver = await startReceiver((_r, n) => (n === 1 ? 400 : 200));
  ctx.browser = await launchChromium(DESKTOP);
  ctx.page = ctx.browser.context.pages()[0] ?? (await ctx.browser.context.newPage());
});

ui.after(async () => {
  await ctx.receiver?.close();
  await ctx.browser?.close();
  await ctx.svc?.close();
  removeDir(ctx.dir);
});

ui('a callback refused with 400 is shown as given up; the button sends it again and the row shows it delivered', async () => {
  const { page, svc, acme, receiver } = ctx;
  const wav = await makeWav(ctx.dir, { name: 'hello.wav', rate: 8000, text: 'hello' });
  const sent = await upload(svc.url, { file: wav, fields: { token: acme, callback: `${receiver.url}/hook` } });
  assert.is((await waitResult(svc.url, acme, sent.body.requestid)).status, 200);
  await page.goto(`${svc.url}/`);
  await page.getByLabel('Token').fill(acme);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const row = page.locator(`tr[data-requestid="${sent.body.requestid}"]`);
  await page.getByRole('link', { name: 'Jobs' }).click();
  await row.locator('.cb-failed').waitFor({ timeout: 30_000 });
  assert.match((await row.locator('.cb-failed').textContent()) ?? '', /^result not delivered \(gave up\) · 1 attempt · HTTP 400/);
  await row.getByRole('button', { name: 'Send callback again for hello.wav' }).click();
  await row.locator('.cb-delivered').waitFor({ timeout: 30_000 });
  assert.is(receiver.received.length, 2);
  assert.equal(receiver.received.map((r) => r.headers['x-voxdex-attempt']), ['1', '2']);
  assert.equal(await axeViolations(page), []);
});

ui.run();
