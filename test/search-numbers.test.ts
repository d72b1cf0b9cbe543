/**
 * Numbers are searchable however they are typed: a real digit string transcribed by the default ASR
 * (spoken words, docs/asr.md "Numbers"), indexed in the real SQLite index, searched over real HTTP
 * with the number typed as digits, with separators, spaced, quoted, or as words.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { createHttpApp } from '../src/http/server.js';
import { tenancyAccess } from '../src/http/auth.js';
import { mountSearchRoutes } from '../src/http/search-routes.js';
import { silentLogger } from '../src/log.js';
import { formatQuery, parseTerms } from '../src/search/query.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { decodeWav } from '../src/stages/decode.js';
import { SqliteTenancy } from '../src/tenancy/sqlite-tenancy.js';
import type { DecodedAudio, TranscriptDocument } from '../src/types.js';
import { makeTranscript } from './conformance/transcript-corpus.js';

const ROOT = 'root-token-for-tests-0123456789abcdef';
const DIGITS = '/usr/share/asterisk/sounds/en_US_f_Allison/digits';
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-search-numbers-'));
const test = suite<{ base: string; token: string; spoken: string; close: () => Promise<void> }>('search numbers');

/** Real 8 kHz recordings of each digit, 0.3 s apart: a caller reading out a number. */
async function digitString(digits: string): Promise<DecodedAudio> {
  const parts: Float32Array[] = [];
  for (const d of digits) parts.push((await decodeWav(path.join(DIGITS, `${d}.wav`))).channels[0]!, new Float32Array(2400));
  const ch = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) ch.set(p, (o += p.length) - p.length);
  return { format: { encoding: 'pcm_s16', sampleRate: 8000, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / 8000, warnings: [] };
}

test.before(async (ctx) => {
  const transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '1' }), log: silentLogger });
  const r = await transcriber.transcribe(await digitString('5550142'), { source: 'callback.wav' });
  await transcriber.close();
  ctx.spoken = r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' ');
  const document: TranscriptDocument = {
    asr: 'voxdex', model: r.model, audiosecs: r.audiosecs, nchannels: r.nchannels, requestid: 'r1', source: 'callback.wav',
    chaninfo: r.chaninfo, utterances: r.utterances,
  };
  const tenancy = new SqliteTenancy(path.join(dir, 'tenancy.sqlite'), ROOT);
  ctx.token = tenancy.addCompany('acme', { org: 'sales', folder: 'f1' }).token;
  const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
  await index.init();
  await index.index([
    { tid: 'n01', company: 'acme', org: 'sales', folder: 'f1', datetime: '2024-05-01T10:00:00Z', document },
    makeTranscript({ tid: 'n02', datetime: '2024-05-02T10:00:00Z', duration: 9, model: 'en-us-moonshine', source: 'refund.wav', requestid: 'r2',
      metadata: {}, channels: [['the refund of twenty five dollars was sent in nineteen ninety nine']] }),
    makeTranscript({ tid: 'n03', datetime: '2024-05-03T10:00:00Z', duration: 9, model: 'en-us-moonshine', source: 'other.wav', requestid: 'r3',
      metadata: {}, channels: [['my account number is two five one one']] }),
    // Written with numerals, as numtrans writes transcripts (src/numbers/normalize.ts).
    makeTranscript({ tid: 'n04', datetime: '2024-05-04T10:00:00Z', duration: 9, model: 'en-us-moonshine', source: 'numerals.wav', requestid: 'r4',
      metadata: {}, channels: [['the total is $42.50 call me back on 5550199 at 8:45']] }),
  ]);
  const app = createHttpApp(silentLogger, (routes) => mountSearchRoutes(routes, { index, access: tenancyAccess(tenancy), log: silentLogger }));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  ctx.base = `http://127.0.0.1:${(app.server!.address() as AddressInfo).port}`;
  ctx.close = async () => {
    await new Promise((resolve) => app.server!.close(resolve));
    await index.close();
    tenancy.close();
  };
});
test.after(async (ctx) => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

const tids = async (base: string, token: string, terms: string): Promise<string[]> => {
  const res = await fetch(`${base}/search/acme/sales/f1?${new URLSearchParams({ token, terms, fields: 'tid' })}`, { headers: { accept: 'application/json' } });
  assert.is(res.status, 200, terms);
  return ((await res.json()) as Array<{ tid: string }>).map((r) => r.tid).sort();
};

test('the default ASR writes a digit string as spoken digit words', ({ spoken }) => {
  assert.is(spoken, 'five five five zero one four two');
});

test('a phone number is found however it is typed', async ({ base, token }) => {
  for (const typed of ['5550142', '555-0142', '"555 0142"', '(555)0142', '"five five five zero one four two"', '0142', '555.0142']) {
    assert.equal(await tids(base, token, typed), ['n01'], typed);
  }
  assert.equal(await tids(base, token, '5550143'), [], 'another number');
});

test('amounts and years are found as digits, with a currency sign, or as words', async ({ base, token }) => {
  for (const typed of ['$25', '"25 dollars"', '"twenty five"', '1999', '"refund of $25"', '"1999 refund"~8']) {
    assert.equal(await tids(base, token, typed), ['n02'], typed);
  }
  // Plain digits are also read digit by digit ("two five" in an account number); an amount is not.
  assert.equal(await tids(base, token, '25'), ['n02', 'n03']);
  assert.equal(await tids(base, token, '"2511"'), ['n03']);
});

test('numerals in a transcript are found however the number is typed or said', async ({ base, token }) => {
  for (const typed of ['42.50', '$42.50', '"forty two fifty"', '"forty two dollars and fifty cents"', '5550199', '555-0199', '"555 0199"',
    '"five five five oh one nine nine"', '"eight forty five"', '8:45']) {
    assert.equal(await tids(base, token, typed), ['n04'], typed);
  }
  assert.equal(await tids(base, token, '"forty two"'), [], 'a part of a number is another number');
});

test('the query parser keeps the numeral and adds its spoken forms', () => {
  assert.is(formatQuery(parseTerms('555-0142')!), '(5550142 | "five five five zero one four two")');
  assert.is(formatQuery(parseTerms('3rd')!), '(3rd | third)');
  assert.is(formatQuery(parseTerms('hello')!), 'hello');
  assert.is(formatQuery(parseTerms('"forty two fifty"')!), '("forty two fifty" | 4250)');
  assert.is(formatQuery(parseTerms('"555 0142"')!), '("555 0142" | "five hundred fifty five zero one four two" | "five five five zero one four two" | 5550142)');
  assert.is(formatQuery(parseTerms('12*')!), '12*');
});

test.run();
