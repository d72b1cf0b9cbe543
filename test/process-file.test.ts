/**
 * The one pipeline for one recording (src/pipeline/process-file.ts): decode → transcribe → the post-ASR
 * stages in order, with the request's options → the transcript document. A real WAV; the ASR is a
 * stand-in that returns fixed words, so what is checked is the composition.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processFile } from '../src/pipeline/process-file.js';
import type { FileWork, Stage } from '../src/types.js';
import type { Transcriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import { silentLogger } from '../src/log.js';
import type { DecodedAudio, StageContext, TranscribeResult } from '../src/types.js';
import { ASTERISK_PROMPT } from './fixtures/make-audio.js';

const pf = suite('processFile');

const ctx: StageContext = { jobId: 'r1', signal: new AbortController().signal, log: silentLogger, config: loadConfig({}) };

/** An ASR stand-in: one utterance per channel it is given, "word<channel>". */
function fakeTranscriber(seen: DecodedAudio[] = []): Transcriber {
  return {
    async transcribe(audio: DecodedAudio, opts: { source: string; onProgress?(f: number): void }): Promise<TranscribeResult> {
      seen.push(audio);
      opts.onProgress?.(1);
      return {
        model: 'fake',
        utterances: audio.channels.map((_, c) => ({
          start: 0.5,
          end: 1,
          confidence: 0.9,
          metadata: { channel: c, uttid: 0 },
          events: [{ word: `word${c}`, start: 0.5, end: 1, confidence: 0.9 }],
        })),
        chaninfo: audio.channels.map((_, c) => ({ channel: c, audiosecs: audio.durationSec, speechsecs: 0.5 })),
        confidence: 0.9,
        audiosecs: audio.durationSec,
        nchannels: audio.channels.length,
        notes: [],
      };
    },
  } as unknown as Transcriber;
}

pf('runs the table\'s stages in order on the ASR words with the request options; the document carries what they did', async () => {
  const order: string[] = [];
  const upper: Stage<FileWork, FileWork> = async (work) => {
    order.push(`upper diarize=${work.options.diarize}`);
    const utterances = work.result.utterances.map((u) => ({ ...u, events: u.events.map((e) => ({ ...e, word: e.word.toUpperCase() })) }));
    return { ...work, result: { ...work.result, utterances } };
  };
  const metrics: Stage<FileWork, FileWork> = async (work) => {
    order.push(`metrics saw ${work.result.utterances[0]!.events[0]!.word}`);
    const summary = { ...work.summary, metrics: { overtalksecs: 0, silencesecs: 1, longestsilencesecs: 1, talksecs: { '0': 0.5 }, wordsperminute: { '0': 120 } } };
    return { ...work, summary, warnings: [...work.warnings, 'metrics are approximate'] };
  };
  const progress: number[] = [];
  const { document, work } = await processFile(
    {
      requestid: 'r1',
      audio: ASTERISK_PROMPT,
      source: 'activated.wav',
      options: { ...defaultRequestOptions(), diarize: true },
      metadata: { agent: 'Ana' },
      warnings: ['parameters not implemented and ignored: gender'],
      progress: { transcribing: (f) => progress.push(f) },
    },
    { transcriber: fakeTranscriber(), stages: [{ name: 'upper', call: upper }, { name: 'metrics', call: metrics }] },
    ctx,
  );
  assert.equal(order, ['upper diarize=true', 'metrics saw WORD0']);
  assert.equal(document.utterances.map((u) => u.events.map((e) => e.word)), [['WORD0']]);
  assert.equal(document.utterances[0]!.metadata, { channel: 0, uttid: 0, source: 'activated.wav', model: 'fake' });
  assert.equal(document.metrics, { overtalksecs: 0, silencesecs: 1, longestsilencesecs: 1, talksecs: { '0': 0.5 }, wordsperminute: { '0': 120 } });
  assert.is(document.warning, 'parameters not implemented and ignored: gender; metrics are approximate');
  assert.equal(document.streamtags, { metadata: { agent: 'Ana' } });
  assert.is(document.requestid, 'r1');
  assert.is(work.audio.channels.length, 1);
  assert.equal(progress, [1]);
});

pf('with channels picked, the ASR gets only those and the document keeps the recording\'s channel numbers', async () => {
  const seen: DecodedAudio[] = [];
  // The prompt is mono: channel 0 is the only one; asking for 1 is refused naming the file.
  const { document, work } = await processFile(
    { requestid: 'r2', audio: ASTERISK_PROMPT, source: 'activated.wav', options: defaultRequestOptions(), channels: [0] },
    { transcriber: fakeTranscriber(seen), stages: [] },
    ctx,
  );
  assert.is(seen[0]!.channels.length, 1);
  assert.is(document.nchannels, 1);
  assert.is(work.audio.channels.length, 1);
  try {
    await processFile({ requestid: 'r3', audio: ASTERISK_PROMPT, source: 'activated.wav', options: defaultRequestOptions(), channels: [1] }, { transcriber: fakeTranscriber() }, ctx);
    assert.unreachable('channel 1 of a mono file');
  } catch (err) {
    assert.is((err as { code: string }).code, 'BAD_ARGUMENT');
    assert.is((err as Error).message, 'activated.wav has 1 channel (0-0); --channels asked for 1');
  }
});

pf.run();
