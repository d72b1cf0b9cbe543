/**
 * Privacy of the readable text: the ASR's written forms (a card number written "4539 1488 0343
 * 6467.") go through the real post-ASR stages with scrubtext; nothing of the card survives in the
 * document, any output (json, jsontop, text, srt, vtt, an archive's zip), the callback's body, or the
 * search index's files and answers, and no written form reaches any of them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processFile } from '../src/pipeline/process-file.js';
import type { Transcriber } from '../src/asr/transcriber.js';
import { buildMultipart } from '../src/callbacks/multipart-body.js';
import { loadConfig } from '../src/config.js';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import { silentLogger } from '../src/log.js';
import { OUTPUT_FORMATS, renderTranscript } from '../src/render/output.js';
import { parseSearchOptions } from '../src/search/search-options.js';
import { SqliteTranscriptIndex } from '../src/search/sqlite-index.js';
import { renderResultFile } from '../src/stages/result-file.js';
import type { DecodedAudio, StageContext, TranscribeResult, WordEvent } from '../src/types.js';
import { ASTERISK_PROMPT } from './fixtures/make-audio.js';

const p = suite('readable text privacy');
const ctx: StageContext = { jobId: 'r1', signal: new AbortController().signal, log: silentLogger, config: loadConfig({}) };

const CARD = '4539148803436467';
const CVV = '739';
const SPOKEN = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** Events of written words, each [written form, its spoken words], 0.35 s a spoken word, from `at`. */
function said(at: number, words: Array<[string, string]>): WordEvent[] {
  const out: WordEvent[] = [];
  for (const [written, spoken] of words) {
    spoken.split(' ').forEach((word, i) => {
      out.push({ word, start: at, end: at + 0.3, confidence: 0.9, written: i === 0 ? written : '' });
      at += 0.35;
    });
  }
  return out;
}
const digitsSaid = (d: string) => d.split('').map((x) => SPOKEN[Number(x)]!).join(' ');

/** The ASR as Moonshine's engine hands it over: spoken words carrying their written forms. */
function payingCaller(): Transcriber {
  const agent = said(0.5, [['Can', 'can'], ['I', 'i'], ['have', 'have'], ['the', 'the'], ['card', 'card'], ['number,', 'number'], ['please?', 'please']]);
  const card = said(3.5, [['Sure,', 'sure'], ["it's", "it's"], ...[0, 4, 8, 12].map((i): [string, string] => [`${CARD.slice(i, i + 4)}${i === 12 ? '.' : ''}`, digitsSaid(CARD.slice(i, i + 4))])]);
  const code = said(14, [['And', 'and'], ['the', 'the'], ['security', 'security'], ['code?', 'code']]);
  const answer = said(16, [[`${CVV}.`, digitsSaid(CVV)]]);
  const utt = (channel: number, events: WordEvent[], uttid: number) => ({ start: events[0]!.start, end: events[events.length - 1]!.end, confidence: 0.9, metadata: { channel, uttid }, events });
  return {
    async transcribe(audio: DecodedAudio): Promise<TranscribeResult> {
      return {
        model: 'fake',
        utterances: [utt(0, agent, 0), utt(0, card, 1), utt(0, code, 2), utt(0, answer, 3)],
        chaninfo: [{ channel: 0, audiosecs: audio.durationSec, speechsecs: 10 }],
        confidence: 0.9,
        audiosecs: audio.durationSec,
        nchannels: 1,
        notes: [],
      };
    },
  } as unknown as Transcriber;
}

/** What must not be found: the card and code as numerals in any grouping, and as words. */
const NEEDLES = [CARD, ...[0, 4, 8, 12].map((i) => CARD.slice(i, i + 4)), CVV, digitsSaid(CARD.slice(0, 4)), digitsSaid(CVV)];

/**
 * Text: every needle. Binary files (the index's pages): needles of 4 characters or more (3 digits turn
 * up by chance in 100 kB of binary about once in 150 runs).
 */
function assertClean(where: string, bytes: string | Buffer): void {
  const s = Buffer.isBuffer(bytes) ? bytes.toString('latin1') : bytes;
  for (const n of NEEDLES) if (!Buffer.isBuffer(bytes) || n.length >= 4) assert.not.ok(s.includes(n), `${where} holds "${n}"`);
  assert.not.ok(s.includes('written'), `${where} holds a written form`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = path.join(dir, n);
    return statSync(f).isDirectory() ? filesUnder(f) : [f];
  });
}

for (const numtrans of [true, false]) {
  p(`scrubtext with numtrans=${numtrans}: no card digit in the text, any output, the callback or the index`, async () => {
    const options = { ...defaultRequestOptions(), numtrans, scrubtext: true };
    const { document } = await processFile({ requestid: 'r1', audio: ASTERISK_PROMPT, source: 'call.wav', options }, { transcriber: payingCaller() }, ctx);
    // Fixed clock times: their digits must not be taken for the card's.
    Object.assign(document, { started: '2025-01-01T00:00:00.000Z', donedate: '2025-01-01T00:00:01.000Z' });
    // The text is there, readable, redacted like the events.
    assert.is(document.utterances[0]!.text, 'Can I have the card number, please?');
    assert.ok(document.utterances[1]!.text!.startsWith("Sure, it's #"), document.utterances[1]!.text);
    assertClean('the document', JSON.stringify(document));
    for (const output of OUTPUT_FORMATS) {
      const rendered = renderTranscript(document, output);
      assertClean(output, rendered);
      const callback = buildMultipart({ requestid: 'r1' }, { name: 'file', filename: 'call.json', contentType: 'application/json', data: Buffer.from(rendered) }, 'boundary');
      assertClean(`${output} callback`, callback.body.toString('utf8'));
    }
    assertClean('the archive result', await renderResultFile('archive', 'text', [{ member: 'call.wav', document }]));
    // (zip entries are deflated: the text inside was checked as the text output above)

    const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-readable-'));
    try {
      const index = new SqliteTranscriptIndex({ file: path.join(dir, 'search.sqlite') });
      await index.init();
      await index.index([{ tid: 't1', company: 'acme', org: 'sales', folder: 'calls', datetime: '2025-01-01T00:00:00Z', document }]);
      const query = parseSearchOptions({ terms: 'card' }).query;
      const found = await index.search({ company: 'acme', org: 'sales' }, query);
      assert.is(found.total, 1);
      assertClean('the search answer', JSON.stringify(found));
      assertClean('the search details', JSON.stringify(await index.details({ company: 'acme', org: 'sales' }, query)));
      await index.close();
      for (const f of filesUnder(dir)) assertClean(f, readFileSync(f));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

p.run();
