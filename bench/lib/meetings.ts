/**
 * The real meeting excerpts (test/fixtures/meetings.ts) as the diarization bench uses them: each at 16 kHz
 * and in the telephone band (sox: 8 kHz mu-law, 300–3400 Hz, as calls arrive), transcribed once by the
 * default ASR (Moonshine, `auto`) for its words, cached in .cache/bench/meetings/ (keyed by the audio's
 * sha256 and the model), and scored against the RTTM turns.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadModelRegistry } from '../../src/asr/models.js';
import { createTranscriber, type Transcriber } from '../../src/asr/transcriber.js';
import { loadConfig, PACKAGE_ROOT } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { decodeWavBuffer } from '../../src/stages/decode.js';
import type { DecodedAudio, TranscribeResult } from '../../src/types.js';
import { MEETING_IDS, meetingBytes, meetingTurns, type Band, type Turn } from '../../test/fixtures/meetings.js';


export interface Meeting {
  id: string;
  band: Band;
  audio: DecodedAudio;
  turns: Turn[];
  /** The ASR's result on this audio. */
  asr: TranscribeResult;
  /** ASR CPU seconds when it was transcribed in this run (undefined when read from the cache). */
  asrCpu?: number;
}

const CACHE = path.join(PACKAGE_ROOT, '.cache', 'bench', 'meetings');

let transcriber: Transcriber | undefined;
async function asrOf(audio: DecodedAudio): Promise<{ result: TranscribeResult; cpu: number }> {
  if (!transcriber) {
    const config = loadConfig({});
    transcriber = createTranscriber({ config: { ...config, asrThreads: 1 }, log: silentLogger, registry: loadModelRegistry(config.modelsFile) });
    await transcriber.ready();
  }
  const c0 = process.cpuUsage();
  const result = await transcriber.transcribe(audio, { model: 'auto', source: 'bench' });
  const c = process.cpuUsage(c0);
  return { result, cpu: (c.user + c.system) / 1e6 };
}

export async function closeMeetingAsr(): Promise<void> {
  await transcriber?.close();
  transcriber = undefined;
}

/** Every excerpt in `bands`, with its ASR words (from the cache unless `fresh`). */
export async function loadMeetings(bands: Band[] = ['8k', '16k'], o: { ids?: readonly string[]; fresh?: boolean } = {}): Promise<Meeting[]> {
  const turns = meetingTurns();
  const out: Meeting[] = [];
  mkdirSync(CACHE, { recursive: true });
  for (const band of bands)
    for (const id of o.ids ?? MEETING_IDS) {
      const bytes = meetingBytes(id, band);
      const audio = decodeWavBuffer(bytes);
      const key = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
      const file = path.join(CACHE, `${id}-${band}-${key}.json`);
      let asr: TranscribeResult;
      let asrCpu: number | undefined;
      if (!o.fresh && existsSync(file)) asr = JSON.parse(readFileSync(file, 'utf8')) as TranscribeResult;
      else {
        const r = await asrOf(audio);
        asr = r.result;
        asrCpu = r.cpu;
        writeFileSync(file, JSON.stringify(asr));
      }
      out.push({ id, band, audio, turns: turns.get(id) ?? [], asr, ...(asrCpu !== undefined ? { asrCpu } : {}) });
    }
  return out;
}
