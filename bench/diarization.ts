/**
 * Diarization of mono calls built from real voices (test/fixtures/speaker-calls.ts: Asterisk's en_US
 * Allison, fr_CA June, it_IT Carlo, ru_RU IvrvoiceRU prompt voices and the LibriVox reader), 1-, 2- and
 * 3-speaker calls with turns of 1–15 s, short gaps and some overlap, at 16 kHz and at 8 kHz mu-law
 * telephone band. Held out: the prompts named m–z and seeds the tuning (prompts a–l) never saw
 * (`--tune` runs the a–l set instead).
 *
 *   node --import tsx bench/diarization.ts [--calls 1] [--seconds 60] [--tune] [--no-asr]
 *
 * 1. Correctness first: a two-speaker call must come out with two speakers and ≥ 90 % of its words right,
 *    and a one-speaker call with one, or the bench stops.
 * 2. Scores per band and per number of speakers: word attribution (each word's speaker at its middle,
 *    best one-to-one label mapping, extra labels are errors), speaker count right, DER (0.25 s collar),
 *    gender right per utterance; against two peers on the same calls: "one speaker" (everything S1) and a
 *    pitch clustering peer (median F0 per speech region, k-means in log F0 with the true k given).
 * 3. Cost: CPU s per audio s of the whole stage (encoder loaded beforehand) and of the ASR (Moonshine, the
 *    default model) on one call of the set, and the memory the encoder adds to a thread.
 */
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { diarizeRecording, type DiarizeResult } from '../src/speakers/diarize.js';
import { loadSpeakerEncoder } from '../src/speakers/encoder.js';
import { loadSileroVad } from '../src/vad/silero.js';
import { median, voicedF0 } from '../src/speakers/pitch.js';
import { speechRegions } from '../src/speakers/regions.js';
import { buildCall, utterancesOf, type Call } from '../test/fixtures/speaker-calls.js';
import { der, wordAttribution, type Labelled } from './lib/diarization-score.js';

const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const perMix = Number(arg('calls') ?? 1);
const seconds = Number(arg('seconds') ?? 60);
const tune = argv.includes('--tune');
const filter = (f: string) => f.includes('librivox') || (tune ? /\/[a-l][^/]*$/ : /\/[m-z][^/]*$/).test(f);
const seedBase = tune ? 100 : 7000;

const MIXES: string[][] = [
  ['allison', 'june'],
  ['allison', 'carlo'],
  ['june', 'ivrvoice-ru'],
  ['carlo', 'librivox'],
  ['allison', 'ivrvoice-ru'],
  ['june', 'carlo'],
  ['ivrvoice-ru', 'librivox'],
  ['allison'],
  ['carlo'],
  ['june'],
  ['ivrvoice-ru'],
  ['allison', 'june', 'carlo'],
  ['ivrvoice-ru', 'librivox', 'allison'],
  ['june', 'carlo', 'ivrvoice-ru'],
];

interface Row {
  band: string;
  n: number;
  attr: number;
  countRight: boolean;
  der: number;
  genderRight: number;
  genderTotal: number;
  peerOne: { attr: number; der: number };
  peerPitch: { attr: number; der: number };
  cpu: number;
  audio: number;
}

function hypWords(r: DiarizeResult): Labelled[] {
  return r.utterances.flatMap((u) => u.events.map((e) => ({ start: e.start, end: e.end, speaker: u.metadata.speaker ?? 'S1' })));
}

function lookup(words: Labelled[]): (t: number) => string | undefined {
  const byMid = new Map(words.map((w) => [((w.start + w.end) / 2).toFixed(4), w.speaker]));
  return (t) => byMid.get(t.toFixed(4));
}

/** Hypothesis segments for DER: each speaker's words merged across gaps under 0.3 s. */
function segments(words: Labelled[]): Labelled[] {
  const out: Labelled[] = [];
  const last = new Map<string, Labelled>();
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const l = last.get(w.speaker);
    if (l && w.start - l.end < 0.3) l.end = Math.max(l.end, w.end);
    else {
      const s = { ...w };
      out.push(s);
      last.set(w.speaker, s);
    }
  }
  return out;
}

/** Peer: median F0 of each speech region (words merged over gaps ≤ 0.3 s), 1-D k-means on log F0 with the true k. */
function pitchPeer(call: Call, k: number): Labelled[] {
  const regions = speechRegions(call.words, call.seconds);
  const f0 = regions.map((r) => median(voicedF0(call.samples, call.sampleRate, [r])) ?? 150);
  const x = f0.map((f) => Math.log(f));
  const sorted = [...x].sort((a, b) => a - b);
  let cent = Array.from({ length: k }, (_, i) => sorted[Math.floor(((i + 0.5) * sorted.length) / k)]!);
  let lab = x.map(() => 0);
  for (let it = 0; it < 20; it++) {
    lab = x.map((v) => cent.reduce((b, c, j) => (Math.abs(v - c) < Math.abs(v - cent[b]!) ? j : b), 0));
    cent = cent.map((c, j) => {
      const m = x.filter((_, i) => lab[i] === j);
      return m.length ? m.reduce((a, b) => a + b, 0) / m.length : c;
    });
  }
  return call.words.map((w) => {
    const i = regions.findIndex((r) => w.start >= r.start - 1e-6 && w.end <= r.end + 1e-6);
    return { start: w.start, end: w.end, speaker: `P${lab[Math.max(0, i)]}` };
  });
}

function truthGenderAt(call: Call, u: { start: number; end: number }): string | undefined {
  const inside = call.words.filter((w) => w.start >= u.start - 1e-6 && w.end <= u.end + 1e-6);
  const count = new Map<string, number>();
  for (const w of inside) count.set(w.speaker, (count.get(w.speaker) ?? 0) + w.end - w.start);
  const top = [...count].sort((a, b) => b[1] - a[1])[0];
  return top ? call.genders[top[0]] : undefined;
}

const enc = { encoder: await loadSpeakerEncoder(), vad: await loadSileroVad() };
const rows: Row[] = [];
let firstTwo: Call | undefined;
for (const telephone of [false, true]) {
  for (const [m, voices] of MIXES.entries()) {
    for (let c = 0; c < perMix; c++) {
      const call = buildCall({ voices, seconds, seed: seedBase + m * 10 + c, telephone, filter });
      if (!telephone && voices.length === 2) firstTwo ??= call;
      const utterances = utterancesOf(call.words);
      const c0 = process.cpuUsage();
      const r = await diarizeRecording(enc, [{ channel: 0, sampleRate: call.sampleRate, samples: call.samples, utterances }], { diarize: true, gender: true });
      const cu = process.cpuUsage(c0);
      const hyp = hypWords(r);
      const attr = wordAttribution(call.words, lookup(hyp));
      const k = r.channels[0]!.speakers;
      if (rows.length === 0 || (voices.length <= 2 && c === 0 && m < 2 && !telephone)) {
        // correctness gate on the first calls
        if (voices.length === 2 && (k !== 2 || attr < 0.9)) throw new Error(`check failed: ${voices.join('+')}: ${k} speakers, ${(attr * 100).toFixed(1)} % of words`);
      }
      let gRight = 0;
      for (const u of r.utterances) if (u.metadata.gender && u.metadata.gender === truthGenderAt(call, u)) gRight++;
      const one = call.words.map((w) => ({ ...w, speaker: 'S1' }));
      const pitch = pitchPeer(call, voices.length);
      rows.push({
        band: telephone ? '8 kHz mu-law' : '16 kHz',
        n: voices.length,
        attr,
        countRight: k === voices.length,
        der: der(call.turns, segments(hyp), call.seconds).der,
        genderRight: gRight,
        genderTotal: r.utterances.length,
        peerOne: { attr: wordAttribution(call.words, lookup(one)), der: der(call.turns, segments(one), call.seconds).der },
        peerPitch: { attr: wordAttribution(call.words, lookup(pitch)), der: der(call.turns, segments(pitch), call.seconds).der },
        cpu: (cu.user + cu.system) / 1e6,
        audio: call.seconds,
      });
      const row = rows[rows.length - 1]!;
      console.error(`${row.band.padEnd(12)} ${voices.join('+').padEnd(28)} k=${k} attr ${(attr * 100).toFixed(1)} DER ${(row.der * 100).toFixed(1)} gender ${gRight}/${r.utterances.length}`);
    }
  }
}

// ---------------------------------------------------------------- report
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${argv.join(' ')}`);
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length}, ${os.platform()} ${os.release()}`);
console.log(`set: ${tune ? 'tuning (prompts a–l)' : 'held out (prompts m–z, new seeds)'}; ${rows.length} calls of about ${seconds} s`);
console.log('');
console.log('| band | speakers | calls | word attribution | speakers counted right | DER (0.25 s collar) | gender right | peer "one speaker": attribution / DER | peer pitch k-means (true k): attribution / DER |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const band of ['16 kHz', '8 kHz mu-law'])
  for (const n of [1, 2, 3]) {
    const rs = rows.filter((r) => r.band === band && r.n === n);
    if (!rs.length) continue;
    const g = rs.reduce((a, r) => a + r.genderRight, 0) / Math.max(1, rs.reduce((a, r) => a + r.genderTotal, 0));
    console.log(
      `| ${band} | ${n} | ${rs.length} | ${pct(avg(rs.map((r) => r.attr)))} (worst ${pct(Math.min(...rs.map((r) => r.attr)))}) | ${rs.filter((r) => r.countRight).length}/${rs.length} | ${pct(avg(rs.map((r) => r.der)))} | ${pct(g)} | ${pct(avg(rs.map((r) => r.peerOne.attr)))} / ${pct(avg(rs.map((r) => r.peerOne.der)))} | ${pct(avg(rs.map((r) => r.peerPitch.attr)))} / ${pct(avg(rs.map((r) => r.peerPitch.der)))} |`,
    );
  }

// ---------------------------------------------------------------- cost: ASR on one call, memory of the encoder
let asrCpuPerSec: number | undefined;
let realAsr: string | undefined;
if (!argv.includes('--no-asr') && firstTwo) {
  const config = loadConfig({});
  const t = createTranscriber({ config: { ...config, asrThreads: 1 }, log: silentLogger, registry: loadModelRegistry(config.modelsFile) });
  await t.ready();
  const audio = { format: { encoding: 'pcm_f32' as const, sampleRate: 16000, channels: 1, bitsPerSample: 32 }, channels: [firstTwo.samples], durationSec: firstTwo.seconds, warnings: [] };
  const c0 = process.cpuUsage();
  const res = await t.transcribe(audio, { model: 'auto', source: 'bench' });
  const cu = process.cpuUsage(c0);
  await t.close();
  asrCpuPerSec = (cu.user + cu.system) / 1e6 / firstTwo.seconds;
  // the same call diarized on the real recogniser's words
  const r = await diarizeRecording(enc, [{ channel: 0, sampleRate: 16000, samples: firstTwo.samples, utterances: res.utterances }], { diarize: true, gender: false });
  const truthAt = (t: number) => firstTwo!.words.find((w) => t >= w.start - 0.15 && t <= w.end + 0.15)?.speaker;
  const asrWords = hypWords(r).filter((w) => truthAt((w.start + w.end) / 2));
  const scored = asrWords.map((w) => ({ ...w, speaker: truthAt((w.start + w.end) / 2)! }));
  realAsr = `${r.channels[0]!.speakers} speakers; ${(wordAttribution(scored, lookup(asrWords)) * 100).toFixed(1)} % of ${asrWords.length} recognised words (of ${hypWords(r).length}) right`;
}
const rss0 = process.memoryUsage().rss;
const enc2 = { encoder: await loadSpeakerEncoder(), vad: enc.vad };
const probe = rows.length ? buildCall({ voices: ['allison', 'june'], seconds: 600, seed: 1, filter }) : undefined;
if (probe) await diarizeRecording(enc2, [{ channel: 0, sampleRate: probe.sampleRate, samples: probe.samples, utterances: utterancesOf(probe.words) }], { diarize: true, gender: true });
const encoderMiB = (process.memoryUsage().rss - rss0) / 2 ** 20;

const cpu = rows.reduce((a, r) => a + r.cpu, 0) / rows.reduce((a, r) => a + r.audio, 0);
console.log('');
console.log(`all calls: speakers counted right ${rows.filter((r) => r.countRight).length}/${rows.length}; gender right ${pct(rows.reduce((a, r) => a + r.genderRight, 0) / rows.reduce((a, r) => a + r.genderTotal, 0))} of utterances`);
console.log(`CPU: diarization + gender ${cpu.toFixed(4)} CPU s per audio s${asrCpuPerSec ? `; ASR (Moonshine, auto, 1 thread) ${asrCpuPerSec.toFixed(3)} on a ${firstTwo!.seconds.toFixed(0)} s call: ${pct(cpu / asrCpuPerSec)} of ASR` : ''}`);
if (realAsr) console.log(`real ASR words (the first 16 kHz two-speaker call through Moonshine, then diarized): ${realAsr}`);
console.log(`memory: the encoder (two ONNX Runtime sessions) and a 10-minute call's diarization add ${encoderMiB.toFixed(0)} MiB RSS to a thread`);
await enc.encoder.release();
await enc2.encoder.release();
await enc.vad.release();
