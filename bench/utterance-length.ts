/**
 * Which longest utterance suits the default model: real read speech joined without pauses (so the
 * segmenter cannot split it at silences) is transcribed with the utterance limit set from 5 to 64 s;
 * longer speech is cut at its quietest 200 ms. WER and CPU per audio second for each limit.
 *
 *   node --import tsx bench/utterance-length.ts [--model en-us-moonshine] [--limits 5,10,15,20,25,30,45,64]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createAsrPool } from '../src/asr/pool.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import { DATA } from './lib/datasets.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-uttlen-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const lv = path.join(DATA, 'librivox');
const ids = readFileSync(path.join(lv, 'fileids'), 'utf8').split('\n').filter(Boolean);
const refs = readFileSync(path.join(lv, 'transcription'), 'utf8').split('\n').filter(Boolean).map((l) => l.replace(/\([^)]+\)\s*$/, ''));
// Each segment with its leading and trailing silence trimmed, then all joined: ~30 s of continuous speech.
const trimmed = ids.map((id, i) => {
  const out = path.join(tmp, `t${i}.wav`);
  execFileSync('sox', ['-V1', path.join(lv, `${id}.wav`), out, 'silence', '1', '0.05', '1%', 'reverse', 'silence', '1', '0.05', '1%', 'reverse']);
  return out;
});
const joined = path.join(tmp, 'joined.wav');
execFileSync('sox', ['-V1', ...trimmed, joined]);
const tel = path.join(tmp, 'joined-tel.wav');
execFileSync('sox', ['-V1', joined, '-r', '8000', '-e', 'u-law', '-b', '8', tel, 'sinc', '300-3400']);
const ref = normalizeWords(refs.join(' '));

const limits = (arg('limits') ?? '5,10,15,20,25,30,45,64').split(',').map(Number);
const model = arg('model') ?? 'en-us-moonshine';
const base = loadConfig({});
const registry = loadModelRegistry(base.modelsFile);
const pool = createAsrPool({ threads: os.availableParallelism() });
console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
console.log(`node ${process.version}; ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`LibriVox ×5 joined without pauses: ${ref.length} words; model ${model}\n`);
console.log('limit s\tutterances\tWER 16 kHz\tWER telephone\tCPU s / audio s');
for (const limit of limits) {
  const config = { ...base, segment: { ...base.segment, maxUtteranceSec: limit } };
  const t = createTranscriber({ config, log: silentLogger, registry, pool });
  const cells: string[] = [];
  let utts = 0;
  let cpu = 0;
  let audioSec = 0;
  for (const f of [joined, tel]) {
    const audio = await decodeWav(f);
    const c0 = process.cpuUsage();
    const r = await t.transcribe(audio, { model, source: f });
    const c = process.cpuUsage(c0);
    cpu += (c.user + c.system) / 1e6;
    audioSec += audio.durationSec;
    utts = Math.max(utts, r.utterances.length);
    const hyp = normalizeWords(r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' '));
    cells.push(`${((100 * wordDistance(ref, hyp)) / ref.length).toFixed(1)} %`);
  }
  console.log([limit, utts, ...cells, (cpu / audioSec).toFixed(2)].join('\t'));
}
await pool.close();
