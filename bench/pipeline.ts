/**
 * End-to-end throughput of the service against its own ASR stage, same calls, same run.
 *
 *   node --import tsx bench/pipeline.ts [--calls 6] [--seconds 30] [--threads N]
 *
 * Input: stereo 8 kHz mu-law "calls" made from real telephone speech (Asterisk prompts, one real
 * speaker per channel, different prompts on each side), built with sox.
 * Contenders:
 *   asr-stage — decodeWav + transcriber.transcribe() for every call at once (models loaded beforehand);
 *   service   — the whole path over HTTP: POST /transcribe (durable accept), scheduler, unpack, decode,
 *               transcribe, index, result file; timed from the first upload to the last 200 result.
 * Correctness first: the service's transcript of every call must be exactly the ASR stage's (same
 * model, same words, same times), else the run stops. Both load the models from a snapshot taken at
 * the start (models/build/* may be rebuilt while the bench runs, which alone would change words).
 * Throughput = audio seconds per wall second; ratio = service / asr-stage.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig, PACKAGE_ROOT } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { createService } from '../src/service.js';
import { decodeWav } from '../src/stages/decode.js';
import type { TranscriptDocument } from '../src/types.js';
import { getJson, upload } from '../test/e2e/harness.js';
import { wordDistance } from './lib/wer.js';

const arg = (n: string, def: number) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const CALLS = arg('calls', 6);
const SECONDS = arg('seconds', 30);
const THREADS = arg('threads', os.availableParallelism());
const SOUNDS = '/usr/share/asterisk/sounds/en_US_f_Allison';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-pipeline-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

console.log(`command: node --import tsx bench/pipeline.ts --calls ${CALLS} --seconds ${SECONDS} --threads ${THREADS}`);
console.log(`node ${process.version}; ${os.cpus()[0]?.model ?? 'unknown CPU'}; ${os.cpus().length} cores; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);

// ---- input: real telephone speech made into stereo calls ------------------------------------------
const prompts = readdirSync(SOUNDS)
  .filter((f) => f.endsWith('.wav'))
  .sort();
const calls: string[] = [];
for (let c = 0; c < CALLS; c++) {
  const side = (k: number) => {
    const picked = Array.from({ length: 12 }, (_, i) => path.join(SOUNDS, prompts[(c * 24 + k * 12 + i * 7) % prompts.length]!));
    const out = path.join(tmp, `side-${c}-${k}.wav`);
    execFileSync('sox', ['-V1', ...picked, '-r', '8000', '-c', '1', out, 'pad', '0', '0.5', 'trim', '0', String(SECONDS)]);
    return out;
  };
  const out = path.join(tmp, `call-${c}.wav`);
  execFileSync('sox', ['-V1', '-M', side(0), side(1), '-r', '8000', '-e', 'mu-law', '-b', '8', out, 'pad', '0', String(SECONDS), 'trim', '0', String(SECONDS)]);
  calls.push(out);
}
const audioSec = calls.length * SECONDS;
console.log(`input: ${calls.length} stereo mu-law calls × ${SECONDS} s = ${audioSec} s of audio`);

const words = (doc: Pick<TranscriptDocument, 'utterances'>) =>
  [...doc.utterances]
    .sort((a, b) => a.metadata.channel - b.metadata.channel || a.start - b.start)
    .flatMap((u) => u.events.map((e) => `${u.metadata.channel}:${e.word}@${e.start}-${e.end}`))
    .join(' ');
const modelsOf = (doc: Pick<TranscriptDocument, 'utterances'>) => [...new Set(doc.utterances.map((u) => u.metadata.model))].join(',');

// ---- models: a snapshot, so both contenders decode with the same files ----------------------------
const registryFile = path.join(PACKAGE_ROOT, 'models', 'registry.json');
const registry = JSON.parse(readFileSync(registryFile, 'utf8')) as { models: Array<{ name: string; hmm: string; dict: string; lm: string; dir?: string }> };
for (const m of registry.models) {
  for (const k of ['hmm', 'dict', 'lm', 'dir'] as const) {
    if (!m[k]) continue;
    const abs = path.resolve(PACKAGE_ROOT, m[k]);
    if (abs.startsWith(path.join(PACKAGE_ROOT, 'models') + path.sep)) {
      const copy = path.join(tmp, 'models', m.name, k);
      cpSync(abs, copy, { recursive: true });
      m[k] = copy;
    } else m[k] = abs;
  }
}
const snapshot = path.join(tmp, 'registry.json');
writeFileSync(snapshot, JSON.stringify(registry));

// ---- contender 1: the ASR stage alone -------------------------------------------------------------
const config = loadConfig({ VOXDEX_MODELS_FILE: snapshot, VOXDEX_DATA_DIR: path.join(tmp, 'data'), VOXDEX_PORT: '0', VOXDEX_ASR_THREADS: String(THREADS), VOXDEX_MIN_FREE_DISK_MIB: '0', VOXDEX_LOG_LEVEL: 'silent' });
const transcriber = createTranscriber({ config, log: silentLogger });
await transcriber.ready();
let t0 = performance.now();
const stage = await Promise.all(
  calls.map(async (file) => {
    const audio = await decodeWav(file);
    return transcriber.transcribe(audio, { model: 'auto', source: path.basename(file) });
  }),
);
const stageSec = (performance.now() - t0) / 1000;
await transcriber.close();

// ---- contender 2: the whole service over HTTP ------------------------------------------------------
const service = await createService(config, { log: silentLogger });
await service.ready;
const { token } = await service.tenancy.change((t) => t.addCompany('bench', { org: 'o', folder: 'f' }));
t0 = performance.now();
const ids = await Promise.all(
  calls.map(async (file) => {
    const r = await upload(service.url, { file, fields: { token } });
    if (r.status !== 200) throw new Error(`upload failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.requestid as string;
  }),
);
const docs: TranscriptDocument[] = [];
for (const id of ids) {
  for (;;) {
    const r = await getJson(`${service.url}/transcribe/${id}/result?token=${token}`);
    if (r.status === 200) {
      docs.push(r.body as TranscriptDocument);
      break;
    }
    if (r.status !== 202) throw new Error(`request ${id} failed: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
const serviceSec = (performance.now() - t0) / 1000;
await service.close();

// ---- correctness, then the figures ----------------------------------------------------------------
// Same audio, same model files: the words and their times must be identical, whatever thread, order
// or concurrency decoded them (docs/asr.md, "Determinism").
let distance = 0;
let nWords = 0;
let identical = 0;
for (const [i, doc] of docs.entries()) {
  if (modelsOf(doc) !== stage[i]!.model) throw new Error(`call ${i}: the service used model ${modelsOf(doc)}, the ASR stage ${stage[i]!.model}`);
  const a = words(stage[i]!).split(' ').filter(Boolean);
  const b = words(doc).split(' ').filter(Boolean);
  const d = wordDistance(a, b);
  if (d > 0) throw new Error(`call ${i}: the service's words/times differ from the ASR stage's in ${d} of ${a.length}:\n  stage:   ${a.join(' ')}\n  service: ${b.join(' ')}`);
  identical++;
  distance += d;
  nWords += a.length;
}
if (nWords === 0) throw new Error('the ASR stage recognised no words: check the models');
console.log(`correctness: ${docs.length}/${calls.length} transcripts; model ${stage[0]?.model}; ${identical} identical to the ASR stage (words and times); difference ${((100 * distance) / nWords).toFixed(1)} % of ${nWords} words`);
const rate = (s: number) => audioSec / s;
console.log(`asr-stage: ${stageSec.toFixed(2)} s wall, ${rate(stageSec).toFixed(2)} audio-s per wall-s`);
console.log(`service:   ${serviceSec.toFixed(2)} s wall, ${rate(serviceSec).toFixed(2)} audio-s per wall-s`);
console.log(`ratio service / asr-stage: ${(rate(serviceSec) / rate(stageSec)).toFixed(3)}`);
