/**
 * Decode + resample benchmark: a 10-minute 8 kHz stereo mu-law call → 16 kHz 16-bit, both channels.
 * voxdex (decodeWav → toChannelPcm: resample + 16-bit, in process) against SoX (`sox in.wav -r 16000 -e signed
 * -b 16 out.wav`) on the same input in the same run. Outputs are compared first (SNR per channel),
 * then each is timed REPS times (alternating) and the medians compared.
 *
 *   node --import tsx bench/decode.ts [seconds=600] [reps=7]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeWav, decodeWavBuffer } from '../src/stages/decode.js';
import { toChannelPcm } from '../src/audio/resample.js';
import { makeCall, makeTempDir, removeDir } from '../test/fixtures/make-audio.js';

const seconds = Number(process.argv[2] ?? 600);
const reps = Number(process.argv[3] ?? 7);
const dir = makeTempDir('voxdex-bench-decode-');

/** What the service does: decode, then toChannelPcm (resample + 16-bit, fused for 2×). */
async function voxdex(file: string): Promise<Int16Array[]> {
  const audio = await decodeWav(file);
  return toChannelPcm(audio, 16000).map((c) => c.samples);
}

const SOX_ARGS = (file: string, out: string) => [file, '-r', '16000', '-e', 'signed', '-b', '16', out];
const TIME = '/usr/bin/time';
const haveTime = existsSync(TIME);

/** Runs sox; returns its CPU time (user + system, ms) when /usr/bin/time is there. */
function sox(file: string, out: string): number {
  if (!haveTime) {
    execFileSync('sox', SOX_ARGS(file, out), { stdio: ['ignore', 'ignore', 'pipe'] });
    return NaN;
  }
  const r = spawnSync(TIME, ['-f', 'cpu %U %S', 'sox', ...SOX_ARGS(file, out)], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sox failed: ${r.stderr}`);
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  return m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

function snrDb(ours: Int16Array, ref: Float32Array): number {
  const n = Math.min(ours.length, ref.length);
  let e = 0;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const r = ref[i]! * 32768;
    e += (ours[i]! - r) ** 2;
    s += r * r;
  }
  return 10 * Math.log10(s / e);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const input = await makeCall(dir, { seconds, rate: 8000, encoding: 'mulaw', name: 'call.wav' });
  const soxOut = path.join(dir, 'sox-16k.wav');
  const soxCmd = `sox ${input} -r 16000 -e signed -b 16 ${soxOut}`;

  // 1. correctness: same length, SNR of voxdex against SoX per channel
  const ours = await voxdex(input);
  sox(input, soxOut);
  const ref = decodeWavBuffer(readFileSync(soxOut));
  if (ref.format.sampleRate !== 16000 || ref.channels.length !== 2) throw new Error('sox output is not 16 kHz stereo');
  const snr = ours.map((ch, i) => snrDb(ch, ref.channels[i]!));
  const lengths = `${ours[0]!.length} vs ${ref.channels[0]!.length} frames`;
  if (Math.abs(ours[0]!.length - ref.channels[0]!.length) > 2 || snr.some((x) => !(x > 40))) {
    throw new Error(`outputs disagree: ${lengths}, SNR ${snr.map((x) => x.toFixed(1)).join(' / ')} dB`);
  }

  // 2. timing, alternating, after one warm-up each
  const tv: number[] = [];
  const ts: number[] = [];
  const cv: number[] = [];
  const cs: number[] = [];
  const parts = { decode: [] as number[], resample: [] as number[] };
  for (let r = 0; r < reps; r++) {
    let t = performance.now();
    const c = process.cpuUsage();
    await voxdex(input);
    tv.push(performance.now() - t);
    cv.push(cpuMs(c));
    t = performance.now();
    cs.push(sox(input, soxOut));
    ts.push(performance.now() - t);
    t = performance.now();
    const audio = await decodeWav(input);
    parts.decode.push(performance.now() - t);
    t = performance.now();
    toChannelPcm(audio, 16000);
    parts.resample.push(performance.now() - t);
  }

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`bench/decode.ts — ${seconds} s 8 kHz stereo mu-law call → 16 kHz 16-bit, both channels`);
  console.log(`node ${process.version}, ${cpu}, ${os.cpus().length} cores, ${os.platform()} ${os.release()}`);
  console.log(`input: ${input} (${readFileSync(input).length} bytes)`);
  console.log(`voxdex: decodeWav → toChannelPcm(audio, 16000) (resample + 16-bit per channel), in process`);
  console.log(`sox:    ${soxCmd}  (${execFileSync('sox', ['--version']).toString().trim()})`);
  console.log(`check:  ${lengths}; SNR voxdex vs sox: ${snr.map((x) => `${x.toFixed(1)} dB`).join(', ')} (left, right)`);
  console.log(`load average: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log(`median wall of ${reps}: voxdex ${median(tv).toFixed(0)} ms (decode ${median(parts.decode).toFixed(0)} + toChannelPcm ${median(parts.resample).toFixed(0)}), sox ${median(ts).toFixed(0)} ms; ratio sox/voxdex ${(median(ts) / median(tv)).toFixed(2)}×`);
  if (haveTime) console.log(`median CPU  of ${reps}: voxdex ${median(cv).toFixed(0)} ms, sox ${median(cs).toFixed(0)} ms; ratio sox/voxdex ${(median(cs) / median(cv)).toFixed(2)}× (>1: voxdex faster)`);
  console.log(`realtime factor voxdex (wall): ${(seconds / (median(tv) / 1000)).toFixed(0)}×`);
  console.log(`all runs wall ms — voxdex: ${tv.map((x) => x.toFixed(0)).join(' ')} | sox: ${ts.map((x) => x.toFixed(0)).join(' ')}`);
} finally {
  removeDir(dir);
}
