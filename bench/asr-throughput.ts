/**
 * Throughput of voxdex's ASR stage against the engine run by itself, same audio, same model, same run:
 * - PocketSphinx models: against its own batch CLI (`pocketsphinx_batch`, Debian package `pocketsphinx`),
 *   same flags; its "TOTAL … wall" (model loading excluded);
 * - Moonshine (the default): against the model's official .ort files run directly by ONNX Runtime for
 *   Python (bench/lib/moonshine-peer.py; `--python` names an interpreter with the newest `onnxruntime`
 *   from PyPI, in a venv of its own: not a voxdex dependency; its version is printed), at 1 and at N
 *   intra-op threads, and by a minimal onnxruntime-node script (bench/lib/moonshine-peer.mjs). Whole
 *   files, greedy decoding; model loading excluded.
 *
 *   node --import tsx bench/asr-throughput.ts [--model en-us-moonshine[,en-us-moonshine-int8…]|en-us|en-us-8k]
 *        [--python /tmp/ort/bin/python] [--repeat 2] [--rounds 1]
 *
 * 1. Correctness first: the peer and every voxdex model transcribe the corpus; their words must agree
 *    (WER between them < 5 %).
 * 2. Then time voxdex's transcriber.transcribe() over every file at once (models loaded beforehand)
 *    with 1 and with N threads, each model of --model. Throughput = audio seconds per wall second;
 *    ratio = the reference peer's CPU (or wall) / voxdex's; "CPU s/audio s" is the cost per audio second.
 *    voxdex's Moonshine figures include what the peer does not do: segmentation, the safeguards and
 *    the forced alignment that gives word times.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelRegistry, loadModelRegistry, type ModelSpec } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { DecodedAudio } from '../src/types.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-tput-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// The corpus: real 16 kHz read speech (LibriVox, cards, goforward), as raw s16le files.
const sources = [
  ...['0870', '0880', '0890', '0920', '0930'].map((n) => path.join(DATA, 'librivox', `sense_and_sensibility_01_austen_64kb-${n}.wav`)),
  ...[1, 2, 3, 4, 5].map((n) => path.join(DATA, 'cards', `00${n}.wav`)),
];
const repeat = Number(arg('repeat') ?? 2);
const ids: string[] = [];
for (let r = 0; r < repeat; r++) {
  for (const [i, src] of sources.entries()) {
    const id = `f${r}-${i}`;
    execFileSync('sox', [src, '-t', 'raw', '-e', 'signed', '-b', '16', '-r', '16000', '-c', '1', path.join(tmp, `${id}.raw`)]);
    ids.push(id);
  }
  ids.push(`f${r}-go`);
  writeFileSync(path.join(tmp, `f${r}-go.raw`), readFileSync(path.join(DATA, 'goforward.raw')));
}
const pcm = new Map(ids.map((id) => [id, readFileSync(path.join(tmp, `${id}.raw`))]));
const audioSec = [...pcm.values()].reduce((s, b) => s + b.length / 2 / 16000, 0);

function audioOf(id: string): DecodedAudio {
  const b = pcm.get(id)!;
  const s = new Int16Array(b.buffer, b.byteOffset, b.length / 2);
  const ch = Float32Array.from(s, (v) => v / 32768);
  return { format: { encoding: 'pcm_s16', sampleRate: 16000, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / 16000, warnings: [] };
}

const config = loadConfig({});
const registry = loadModelRegistry(config.modelsFile);
const specs = (arg('model') ?? 'en-us').split(',').map((n) => registry.resolve(n, 16000));
const spec = specs[0]!;
const flags = Object.entries(spec.options).flat();
const isMoonshine = spec.engine === 'moonshine';
if (specs.some((m) => m.engine !== spec.engine)) throw new Error('--model: give models of one engine');
const python = arg('python');
// The peer runs the official .ort files as published, whatever voxdex's model loads (the folded graphs).
const peerDir = isMoonshine ? (registry.specs().find((s) => s.name === 'en-us-moonshine-ort')?.dir ?? spec.dir) : '';

// ---------------------------------------------------------------- peer: pocketsphinx_batch
const ctl = path.join(tmp, 'ctl');
writeFileSync(ctl, `${ids.join('\n')}\n`);
const peerArgs = ['-adcin', 'yes', '-cepdir', tmp, '-cepext', '.raw', '-ctl', ctl, '-hyp', path.join(tmp, 'peer.hyp'), '-logfn', path.join(tmp, 'peer.log'),
  '-hmm', spec.hmm, '-dict', spec.dict, '-lm', spec.lm, '-samprate', String(spec.sampleRate), ...flags];
interface Run {
  wall: number;
  cpu: number;
  hyps: Map<string, string>;
}

/** The peer: the Python script at `threads` intra-op threads, the onnxruntime-node script, or pocketsphinx_batch. */
function runPeer(kind: 'python' | 'node' = python ? 'python' : 'node', threads = 1): Run & { version?: string } {
  if (isMoonshine) {
    const lib = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib');
    const files = ids.map((id) => path.join(tmp, `${id}.raw`));
    const [cmd, argv] =
      kind === 'python' ? [python!, [path.join(lib, 'moonshine-peer.py'), peerDir, String(threads), ...files]] : [process.execPath, [path.join(lib, 'moonshine-peer.mjs'), peerDir, ...files]];
    const out = JSON.parse(execFileSync(cmd, argv, { maxBuffer: 64 << 20 }).toString()) as { hyps: Record<string, string>; cpu: number; wall: number; version?: string };
    return { wall: out.wall, cpu: out.cpu, hyps: new Map(Object.entries(out.hyps)), version: out.version };
  }
  execFileSync('pocketsphinx_batch', peerArgs, { stdio: 'ignore' });
  const log = readFileSync(path.join(tmp, 'peer.log'), 'utf8');
  const m = /TOTAL [\d.]+ seconds speech, ([\d.]+) seconds CPU, ([\d.]+) seconds wall/.exec(log);
  if (!m) throw new Error('pocketsphinx_batch printed no TOTAL line');
  const hyps = new Map<string, string>();
  for (const line of readFileSync(path.join(tmp, 'peer.hyp'), 'utf8').split('\n')) {
    const h = /^(.*) \((\S+) -?\d+\)$/.exec(line) ?? /^(.*)\((\S+)\)$/.exec(line);
    if (h) hyps.set(h[2]!, h[1]!.trim());
  }
  return { wall: Number(m[2]), cpu: Number(m[1]), hyps };
}

// ---------------------------------------------------------------- voxdex
/** The shipped registry with `m` as the model `auto` picks, so that it and its aligners load before the clock starts. */
function registryFor(m: ModelSpec, align: boolean) {
  const raw = JSON.parse(readFileSync(config.modelsFile, 'utf8')) as { models: Array<{ name: string }> };
  raw.models = raw.models.map((x) => (x.name === m.name ? { ...x, auto: ['narrowband', 'wideband'], ...(align ? {} : { align: {} }) } : { ...x, auto: [] })); // no align: word times interpolated
  return createModelRegistry(raw, config.modelsFile);
}

async function runVoxdex(threads: number, m = spec, align = true): Promise<Run> {
  const reg = isMoonshine ? registryFor(m, align) : createModelRegistry({ default: m.name, models: [m] }, 'bench', '/');
  const t = createTranscriber({ config: { ...config, asrThreads: threads }, log: silentLogger, registry: reg });
  await t.ready();
  const audios = ids.map(audioOf);
  const c0 = process.cpuUsage(); // the whole process: main thread and every worker thread
  const t0 = performance.now();
  const results = await Promise.all(audios.map((a, i) => t.transcribe(a, { model: m.name, source: ids[i]! })));
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  await t.close();
  const hyps = new Map(results.map((r, i) => [ids[i]!, r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' ')]));
  return { wall, cpu, hyps };
}

function disagreement(a: Map<string, string>, b: Map<string, string>): number {
  let e = 0;
  let n = 0;
  for (const id of ids) {
    const ra = normalizeWords(a.get(id) ?? '');
    e += wordDistance(ra, normalizeWords(b.get(id) ?? ''));
    n += ra.length;
  }
  return n ? e / n : 0;
}

const cpus = os.cpus();
const threads = os.availableParallelism();
console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
if (!isMoonshine) console.log(`peer:    pocketsphinx_batch ${peerArgs.map((a) => (a.startsWith(tmp) ? a.replace(tmp, '$TMP') : a)).join(' ')}`);
else {
  if (python) console.log(`peer:    ${python} bench/lib/moonshine-peer.py ${peerDir} {1,${threads}} $TMP/*.raw (ONNX Runtime for Python, sequential, all optimizations)`);
  console.log(`${python ? 'also' : 'peer'}:    node bench/lib/moonshine-peer.mjs ${peerDir} $TMP/*.raw (onnxruntime-node, 1 intra-op thread, memory arena on)`);
}
console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`corpus: ${ids.length} files, ${audioSec.toFixed(1)} s of 16 kHz speech; models ${specs.map((m) => m.name).join(', ')}\n`);

const peer = runPeer();
if (peer.version) console.log(`peer: onnxruntime ${peer.version} (Python)`);
const ones = new Map<string, Run>();
for (const m of specs) {
  const one = await runVoxdex(1, m);
  const d = disagreement(peer.hyps, one.hyps);
  console.log(`correctness: words differ between the peer and voxdex ${m.name} on ${(100 * d).toFixed(1)} % of the peer's words`);
  if (d > 0.05) {
    for (const id of ids) if (peer.hyps.get(id) !== one.hyps.get(id)) console.log(`  ${id}\n    peer:   ${peer.hyps.get(id)}\n    voxdex: ${one.hyps.get(id)}`);
    throw new Error('outputs disagree; not timing');
  }
  ones.set(m.name, one);
}

// Interleave the runs so background load hits every runner alike; keep each one's best.
const best = (a: Run, b: Run): Run => ({ wall: Math.min(a.wall, b.wall), cpu: Math.min(a.cpu, b.cpu), hyps: a.hyps });
const none: Run = { wall: Infinity, cpu: Infinity, hyps: new Map() };
let p: Run = peer;
let pMany = none;
let nodePeer = none;
const many = new Map<string, Run>(specs.map((m) => [m.name, none]));
const rounds = Number(arg('rounds') ?? 1);
for (let round = 0; round < rounds; round++) {
  if (isMoonshine && python) {
    pMany = best(pMany, runPeer('python', threads));
    nodePeer = best(nodePeer, runPeer('node'));
  }
  for (const m of specs) many.set(m.name, best(many.get(m.name)!, await runVoxdex(threads, m)));
  if (round > 0) {
    p = best(p, runPeer());
    for (const m of specs) ones.set(m.name, best(ones.get(m.name)!, await runVoxdex(1, m)));
  }
}
const fmt = (n: number, w = 8, d = 2) => n.toFixed(d).padStart(w);
console.log(`\n${'runner'.padEnd(44)}  wall s  audio s/wall s  ratio   CPU s  CPU s/audio s  CPU ratio`);
const row = (name: string, r: Run) =>
  console.log(`${name.padEnd(44)}${fmt(r.wall)}${fmt(audioSec / r.wall, 16)}${fmt(p.wall / r.wall, 7)}${fmt(r.cpu)}${fmt(r.cpu / audioSec, 15, 4)}${fmt(r.cpu / p.cpu, 11, 3)}`);
const peerName = !isMoonshine ? 'pocketsphinx_batch (1 process)' : python ? `ORT ${peer.version} Python, 1 thread` : 'minimal ORT script (1 process)';
row(peerName, p);
if (isMoonshine && python) {
  row(`ORT ${peer.version} Python, ${threads} threads`, pMany);
  row('onnxruntime-node script, 1 thread', nodePeer);
}
for (const m of specs) {
  row(`voxdex ${m.name}, 1 ASR thread`, ones.get(m.name)!);
  if (isMoonshine) row(`voxdex ${m.name}, 1 thread, no alignment`, await runVoxdex(1, m, false));
  row(`voxdex ${m.name}, ${threads} ASR threads`, many.get(m.name)!);
}
console.log(`\nwall ratio: throughput vs ${peerName} (expect ~1 with 1 thread, ~cores with all); CPU ratio: voxdex's CPU / that peer's (load-independent; lower is cheaper)`);
