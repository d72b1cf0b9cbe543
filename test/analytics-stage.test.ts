/** The analytics stage (sentiment per utterance, metrics over the call), the stage table's order, and the categorizer. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { categorizer } from '../src/analytics/categories.js';
import { silentLogger } from '../src/log.js';
import type { CategoryRecord } from '../src/store/category-store.js';
import type { FileWork, RequestOptions, StageContext } from '../src/types.js';
import { runStages } from '../src/pipeline/fold-stages.js';
import { stageTable } from '../src/pipeline/stage-table.js';
import { spoken } from './fixtures/spoken.js';

const test = suite('analytics-stage');
const ctx = { jobId: 'j', signal: new AbortController().signal, log: silentLogger, config: {} } as unknown as StageContext;
const options = (sentiment: boolean): RequestOptions => ({ numtrans: true, scrubtext: false, scrubaudio: false, redact: [], diarize: false, gender: false, sentiment, vocab: [] });

const utt = (channel: number, start: number, text: string) => spoken(channel, start, text, { step: 0.4 });

function work(sentiment: boolean): FileWork {
  return {
    requestid: 'r', source: 'call.wav', options: options(sentiment), warnings: [], started: '2026-01-01T00:00:00Z', summary: {},
    audio: { format: { encoding: 'pcm_s16', sampleRate: 8000, channels: 2, bitsPerSample: 16 }, channels: [], durationSec: 10, warnings: [] },
    result: { model: 'm', confidence: 0.9, audiosecs: 10, nchannels: 2, notes: [], chaninfo: [],
      utterances: [utt(0, 0, 'thank you for calling how can i help'), utt(1, 2, 'this is terrible i want to cancel'), utt(0, 8, 'okay')] },
  };
}

test('the stage table: redaction before the readable text, analytics and categories; categories last', () => {
  assert.equal(stageTable().map((s) => s.name), ['numbers', 'speakers', 'roles', 'silenced audio', 'redaction', 'readable text', 'analytics', 'categories']);
  assert.equal(stageTable().filter((s) => s.held).map((s) => s.name), ['redaction']);
});

const analyticsStage = (w: FileWork, c: StageContext) => runStages(w, stageTable().filter((s) => s.name === 'analytics'), c);

test('metrics always; sentiment only when asked', async () => {
  const off = await analyticsStage(work(false), ctx);
  assert.ok(off.summary.metrics);
  assert.is(off.summary.sentiment, undefined);
  assert.is(off.result.utterances[0]!.metadata.sentiment, undefined);
  assert.ok(off.summary.metrics!.overtalksecs > 0.5);
  const on = await analyticsStage(work(true), ctx);
  assert.equal(Object.keys(on.summary.sentiment!), ['0', '1']);
  assert.is(on.result.utterances[1]!.metadata.sentiment, 'Negative');
  assert.ok(on.summary.sentiment!['1']!.score < 0);
});

test('categorizer: the company\'s rules, org limits, compiled once per version', async () => {
  const rec = (name: string, terms: string, extra: Partial<CategoryRecord> = {}): CategoryRecord => ({
    company: 'acme', name, terms, version: 1, updated: '', deleted: false, backfill: { state: 'done', done: 0 }, ...extra,
  });
  let lists = 0;
  const categorize = categorizer({ list: async () => (lists++, [rec('cancel', 'cancel*'), rec('support', 'help', { org: 'support' }), rec('agent-help', 'help', { channel: 0 })]) });
  const doc = { asr: '', model: 'm', audiosecs: 10, nchannels: 2, requestid: 'r', source: 's', chaninfo: [], utterances: work(false).result.utterances };
  assert.equal(await categorize({ company: 'acme', org: 'sales' }, doc), ['agent-help', 'cancel']);
  assert.equal(await categorize({ company: 'acme', org: 'support' }, doc), ['agent-help', 'cancel', 'support']);
  assert.is(lists, 2);
});

test.run();
