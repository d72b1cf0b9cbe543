/** The pure decisions of the job runner: whether and when a failed job is retried, how a job ends, which callback it sends. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decideRetry, JOB_RETRY, startsExhausted } from '../src/jobs/retry.js';
import { callbackOf, resultFileName, settlementOf } from '../src/jobs/runner.js';

const retry = suite('job retry decision');

retry('retries a retryable error after 4, 8, 16 and 32 s, then gives up at the fifth start', () => {
  assert.equal([1, 2, 3, 4, 5].map((n) => decideRetry('INDEX_UNAVAILABLE', n)), [
    { retry: true, delayMs: 4_000 },
    { retry: true, delayMs: 8_000 },
    { retry: true, delayMs: 16_000 },
    { retry: true, delayMs: 32_000 },
    { retry: false },
  ]);
  assert.equal(decideRetry('ASR_FAILED', 1), { retry: true, delayMs: 4_000 });
});

retry('never retries INTERNAL or an error of the request itself', () => {
  for (const code of ['INTERNAL', 'BAD_AUDIO', 'BAD_ARCHIVE', 'NO_AUDIO_MEMBERS', 'REQUEST_FAILED', 'CANCELLED'] as const) {
    assert.equal(decideRetry(code, 1), { retry: false }, code);
  }
});

retry('the policy is data: attempts and the backoff (capped, with jitter drawn from the given random)', () => {
  const policy = { attempts: 10, maxStarts: 12, backoff: { baseDelayMs: 1_000, factor: 3, maxDelayMs: 20_000, jitter: 0.5 } };
  assert.equal(decideRetry('OVERLOADED', 3, policy, () => 0), { retry: true, delayMs: 9_000 });
  assert.equal(decideRetry('OVERLOADED', 3, policy, () => 1), { retry: true, delayMs: 4_500 });
  assert.equal(decideRetry('OVERLOADED', 9, policy, () => 0), { retry: true, delayMs: 20_000 });
  assert.equal(decideRetry('OVERLOADED', 10, policy, () => 0), { retry: false });
});

retry('a job is given up when it is about to start a ninth time', () => {
  assert.is(JOB_RETRY.maxStarts, 8);
  assert.equal([1, 8, 9].map((n) => startsExhausted(n)), [false, false, true]);
});

retry.run();

const settle = suite('job settlement');
const job = { id: 'r1', kind: 'archive' as const, source: 'calls.zip', destination: { company: 'acme', org: 'sales', folder: 'calls' }, callback: 'https://hooks.example.com/r', callbackError: undefined };

settle('done when a result file was written; the result callback carries it', () => {
  const s = settlementOf(job, { files: [{ member: 'a.wav', document: {} as never }, { member: 'b.wav', error: { code: 'BAD_AUDIO', message: 'bad' } }], resultPath: '/d/jobs/r1/result.zip' });
  assert.equal(s, { state: 'done', resultPath: '/d/jobs/r1/result.zip' });
  assert.equal(callbackOf(job, s, 'sec'), {
    requestid: 'r1',
    company: 'acme',
    url: 'https://hooks.example.com/r',
    kind: 'result',
    body: '/d/jobs/r1/result.zip',
    contentType: 'application/zip',
    filename: 'r1.zip',
    secret: 'sec',
  });
});

settle('a transcript that does not carry its recording\'s name (text, srt, vtt) is sent under that name (issue 29)', () => {
  const one = { ...job, kind: 'audio' as const, source: 'call-0042.wav' };
  const sent = (ext: string) => callbackOf(one, { state: 'done', resultPath: `/d/jobs/r1/result.${ext}` }, 'sec')!;
  assert.equal(['srt', 'vtt', 'txt', 'json'].map((ext) => [sent(ext).filename, sent(ext).contentType]), [
    ['call-0042.srt', 'application/x-subrip; charset=utf-8'],
    ['call-0042.vtt', 'text/vtt; charset=utf-8'],
    ['call-0042.txt', 'text/plain; charset=utf-8'],
    ['r1.json', 'application/json; charset=utf-8'],
  ]);
  assert.is(resultFileName({ id: 'r1', kind: 'audio', source: 'dir/rec.MP3' }, 'srt'), 'rec.srt');
  assert.is(resultFileName({ id: 'r1', kind: 'audio', source: '.wav' }, 'srt'), 'r1.srt');
});

settle('failed with a summary when no file has a transcript; the error goes to callbackerror, else callback', () => {
  const s = settlementOf(job, { files: [{ member: 'a.wav', error: { code: 'BAD_AUDIO', message: 'truncated' } }, { member: 'b.wav', error: { code: 'NOT_AUDIO', message: 'a PDF' } }] });
  assert.equal(s, { state: 'failed', error: { code: 'REQUEST_FAILED', message: 'All 2 files failed: a.wav: truncated; b.wav: a PDF' } });
  const cb = callbackOf({ ...job, callbackError: 'https://hooks.example.com/err' }, s, 'sec')!;
  assert.equal([cb.url, cb.kind, cb.filename, String(cb.body)], [
    'https://hooks.example.com/err',
    'error',
    'r1.error.json',
    '{"requestid":"r1","state":"failed","error":{"code":"REQUEST_FAILED","message":"All 2 files failed: a.wav: truncated; b.wav: a PDF"}}',
  ]);
  assert.is(callbackOf(job, s, 'sec')!.url, 'https://hooks.example.com/r');
  assert.is(callbackOf({ ...job, callback: undefined }, s, 'sec'), undefined);
});

settle('a single audio file fails with its own error; an empty upload says so', () => {
  assert.equal(settlementOf({ kind: 'audio' }, { files: [{ member: 'a.wav', error: { code: 'BAD_AUDIO', message: 'truncated' } }] }), {
    state: 'failed',
    error: { code: 'BAD_AUDIO', message: 'truncated' },
  });
  assert.equal(settlementOf({ kind: 'archive' }, { files: [] }), { state: 'failed', error: { code: 'REQUEST_FAILED', message: 'The upload contained no audio files' } });
});

settle.run();
