/**
 * The one conformance suite every ASR engine (src/asr/engines/) must pass, at the worker level where
 * it is loaded once and decodes one utterance of 16 kHz PCM: it loads, decodes real speech (an
 * Asterisk prompt, 3.2 s) into the prompt's words, keeps the words contract (times in ms increasing
 * within [0, duration], no overlap; confidence in [0, 1]; non-empty words), and stops with CANCELLED
 * within a second of the abort flag rising (raised from another thread, as the pool does).
 * Usage, in a test file:
 *   engineConformance('pocketsphinx', { load: () => loadPocketSphinx(desc), expected: /only person/ })
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { toChannelPcm } from '../../src/audio/resample.js';
import type { EngineRequest, WorkerEngine } from '../../src/asr/engines/engine.js';
import { decodeWav } from '../../src/stages/decode.js';

/** "You are currently the only person in this conference." (Allison, 8 kHz, 3.16 s). */
export const PROMPT = '/usr/share/asterisk/sounds/en_US_f_Allison/conf-onlyperson.wav';
const RATE = 16_000;

export interface EngineConformanceOptions {
  load: () => WorkerEngine | Promise<WorkerEngine>;
  /** What the engine's request needs besides samples and abort (e.g. Moonshine's aligner). */
  request?: Omit<EngineRequest, 'samples' | 'abort'>;
  /** The prompt's words as this engine writes them (lowercase, space-separated). */
  expected: RegExp;
}

const flag = () => new Int32Array(new SharedArrayBuffer(4));

/** Raises `abort` from another thread after `ms`; resolves to when (Date.now()). */
function raiseAfter(abort: Int32Array, ms: number): Promise<number> {
  const w = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     Atomics.store(workerData.abort, 0, 1);
     parentPort.postMessage(Date.now());`,
    { eval: true, workerData: { abort, ms } },
  );
  return new Promise((resolve, reject) => {
    w.once('message', (at: number) => void w.terminate().then(() => resolve(at)));
    w.once('error', reject);
  });
}

async function failure(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'no error';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

export function engineConformance(name: string, o: EngineConformanceOptions): void {
  const s = suite(`engine: ${name}`);
  let engine: WorkerEngine;
  let speech: Int16Array;
  s.before(async () => {
    speech = toChannelPcm(await decodeWav(PROMPT), RATE)[0]!.samples;
    engine = await o.load();
  });

  s('decodes real speech into the prompt’s words, keeping the words/times/confidence contract', async () => {
    const out = await engine.decode({ ...o.request, samples: speech, abort: flag() });
    const text = out.words.map((w) => w.word).join(' ');
    assert.match(text, o.expected);
    const durationMs = (speech.length / RATE) * 1000;
    let previousEnd = 0;
    for (const w of out.words) {
      const what = `${JSON.stringify(w)} in "${text}"`;
      assert.ok(typeof w.word === 'string' && w.word.trim() === w.word && w.word.length > 0, `a word is a non-empty token: ${what}`);
      assert.ok(w.start >= previousEnd && w.start < w.end && w.end <= durationMs, `times increase within [0, ${durationMs}] ms without overlap: ${what}`);
      assert.ok(w.confidence >= 0 && w.confidence <= 1, `confidence in [0, 1]: ${what}`);
      previousEnd = w.end;
    }
  });

  s('an abort flag already up is CANCELLED at once', async () => {
    const abort = flag();
    Atomics.store(abort, 0, 1);
    const t0 = Date.now();
    assert.is(await failure(() => engine.decode({ ...o.request, samples: speech, abort })), 'CANCELLED');
    assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  });

  s('stops with CANCELLED within a second of the abort flag rising mid-decode', async () => {
    // The prompt twice (6.3 s), so that the decode is still running when the flag rises. Moonshine
    // sees the flag between decoder steps: its encoder pass over the utterance cannot be interrupted
    // (ONNX Runtime's JS API cannot stop a run in flight), so that pass must stay under a second.
    const long = new Int16Array(speech.length * 2);
    long.set(speech);
    long.set(speech, speech.length);
    const abort = flag();
    const raised = raiseAfter(abort, 100);
    const code = await failure(() => engine.decode({ ...o.request, samples: long, abort }));
    const stopped = Date.now();
    assert.is(code, 'CANCELLED');
    assert.ok(stopped - (await raised) < 1000, `stopped ${stopped - (await raised)} ms after the flag rose`);
  });

  s.run();
}
