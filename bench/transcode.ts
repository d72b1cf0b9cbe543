/**
 * Transcoding: real speech encoded here in every transcoded format (ffmpeg; AMR-NB by SoX) at
 * telephone settings (the Asterisk voice, 8 kHz) and wide-band settings (five real voices, 16 kHz),
 * transcribed by the default model; WER of each format beside the same speech as WAV (goal: within
 * 1 point). Then the cost of voxdex's transcode (decode stage: sandboxed ffmpeg, pipes, deinterleave)
 * beside `ffmpeg` run alone to the same PCM, both as CPU seconds of a whole child process tree
 * (/usr/bin/time; each side's start-up measured with no files and subtracted), goal ≤ 1.1×.
 *
 *   node --import tsx bench/transcode.ts [--telephone 40] [--reps 5] [--cpu-only]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { fileSource } from '../src/audio/byte-source.js';
import { ffmpegArgs } from '../src/audio/transcode.js';
import { mediaOfFile } from '../src/audio/media.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { playableWav } from '../src/redact/silence-audio.js';
import { decode } from '../src/stages/decode.js';
import { CODED_FORMATS, makeCoded, type CodedFormat } from '../test/fixtures/make-audio.js';
import { loadSet } from './lib/datasets.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (n: string, d: number) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const HERE = path.dirname(fileURLToPath(import.meta.url));
const config = loadConfig({});

/** `--decode FILE…`: decode each file with the decode stage (the child process whose CPU is measured). */
if (process.argv[2] === '--decode') {
  const ctx = { jobId: 'bench', signal: new AbortController().signal, log: silentLogger, config };
  for (const f of process.argv.slice(3)) await decode({ source: fileSource(f) }, ctx);
  process.exit(0);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-transcode-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const cpus = os.cpus();
console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length} cores; ${execFileSync('ffmpeg', ['-version']).toString().split('\n')[0]}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);

const SETS: Array<{ name: string; set: string; limit: number; rate: number; formats: CodedFormat[] }> = [
  { name: 'telephone (Asterisk m–z, 8 kHz)', set: 'ast-mz', limit: arg('telephone', 40), rate: 8000, formats: ['amr-nb', 'gsm-wav', 'mp3-32k', 'opus', 'm4a-aac'] },
  { name: 'wide band (5 real voices, 16 kHz)', set: 'wideband', limit: 0, rate: 16000, formats: ['mp3-32k', 'flac', 'vorbis', 'opus', 'm4a-aac', 'webm'] },
];
const cpuOnly = process.argv.includes('--cpu-only');
const t = createTranscriber({ config: { ...config, asrThreads: 1 }, log: silentLogger, registry: loadModelRegistry(config.modelsFile) });
await t.ready();
const ctx = { jobId: 'bench', signal: new AbortController().signal, log: silentLogger, config };
const words = async (file: string) => {
  const audio = await decode({ source: fileSource(file) }, ctx);
  const r = await t.transcribe(audio, { source: path.basename(file) });
  return normalizeWords(r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' '));
};
const coded: string[] = [];
for (const s of SETS) {
  const items = loadSet(s.set, tmp, s.limit).items;
  const errors = new Map<string, number>();
  let refWords = 0;
  for (const [i, item] of items.entries()) {
    const wav = path.join(tmp, `${s.set}-${i}.wav`);
    const audio = await item.load();
    writeFileSync(wav, playableWav(audio));
    const ref = normalizeWords(item.ref);
    refWords += ref.length;
    if (!cpuOnly) errors.set('wav', (errors.get('wav') ?? 0) + wordDistance(ref, await words(wav)));
    for (const f of s.formats) {
      // Telephone settings: every format made at the recording's 8 kHz (AMR-NB and GSM are 8 kHz anyway).
      const file = await makeCoded(tmp, wav, f, `${s.set}-${i}-${f}.${CODED_FORMATS[f].ext}`, s.rate);
      coded.push(file);
      if (!cpuOnly) errors.set(f, (errors.get(f) ?? 0) + wordDistance(ref, await words(file)));
    }
  }
  if (cpuOnly) continue;
  const wer = (f: string) => (100 * errors.get(f)!) / refWords;
  console.log(`${s.name}: ${items.length} files, ${refWords} words`);
  console.log(`  WAV ${wer('wav').toFixed(1)} %`);
  for (const f of s.formats) console.log(`  ${f.padEnd(8)} ${wer(f).toFixed(1)} % (${(wer(f) - wer('wav')) >= 0 ? '+' : ''}${(wer(f) - wer('wav')).toFixed(1)} points; goal within 1)`);
}
await t.close();

/** CPU seconds (user + system) of a command and every process it started. */
function cpuOf(cmd: string[]): number {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...cmd], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stderr}`);
  const out = r.stderr.toString().trim().split('\n').pop()!;
  const [u, s] = out.split(' ').map(Number);
  return u! + s!;
}
const reps = arg('reps', 5);
const script = path.join(HERE, 'transcode.ts');
const voxdexRun = (files: string[]) => cpuOf([process.execPath, '--import', 'tsx', script, '--decode', ...files]);
const peerArgs = (f: string) => {
  const m = mediaOfFile(f, config.transcode);
  const args = ffmpegArgs(m.kind === 'coded' ? m.demuxer : 'wav').map((a) => (a === 'pipe:0' ? f : a));
  args[args.indexOf('-protocol_whitelist') + 1] = 'file,pipe';
  return args;
};
const script2 = path.join(tmp, 'peer.sh');
writeFileSync(script2, `${coded.map((f) => `ffmpeg ${peerArgs(f).map((a) => `'${a}'`).join(' ')} > /dev/null`).join('\n')}\n`);
const empty = path.join(tmp, 'empty.sh');
writeFileSync(empty, 'true\n');
const v: number[] = [];
const p: number[] = [];
for (let r = 0; r < reps; r++) {
  v.push(voxdexRun(coded) - voxdexRun([]));
  p.push(cpuOf(['sh', script2]) - cpuOf(['sh', empty]));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\ntranscode CPU, ${coded.length} files, median of ${reps} (each side's start-up subtracted):`);
console.log(`  voxdex decode stage (prlimit + ffmpeg + pipes + deinterleave): ${median(v).toFixed(2)} s`);
console.log(`  ffmpeg alone, same arguments, reading the file itself:         ${median(p).toFixed(2)} s`);
console.log(`  ratio ${(median(v) / median(p)).toFixed(2)}× (goal ≤ 1.1×)`);
