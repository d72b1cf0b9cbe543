/**
 * Diarization, crosstalk and roles on real speech (docs/speakers.md, "Measured"). Sections (`--only a,b`):
 * - meetings: the real meeting excerpts (../shared/audio/meetings, AMI) at 8 kHz telephone band and 16 kHz
 *   with the ASR's words: word attribution against the RTTM turns, DER of the turns (0.25 s collar),
 *   speakers counted right (files with ≥ 10 s of speech), gender per utterance; tuned on trn00–03, 06–09,
 *   held out trn04 and trn05 (bench/lib/diarization-meetings.ts);
 * - calls: mono calls assembled from real voices (test/fixtures/speaker-calls.ts), 1–3 speakers, held-out
 *   prompts m–z (`--tune`: a–l), 16 kHz and 8 kHz mu-law;
 * - channels: one-voice channels with −20 dB crosstalk, false splits (20 channels);
 * - crosstalk: WER and insertions of a channel with the other voice at −10/−20/−30 dB, with and without the
 *   crosstalk step, and the speaker's own words it lost (real ASR);
 * - roles: the agent found on generated scripted calls and on real-voice calls through the ASR;
 * - cost: CPU per audio second of diarization beside the ASR's, same run.
 * Peers in the same run: "one speaker" and today's first pipeline (`method: 'words'`), and for the calls
 * pitch k-means with the true number of speakers.
 *
 * `--fresh`: the meeting excerpts transcribed again (not from the cache), so the ASR's CPU on the same audio
 * is measured in the same run.
 *
 *   nice node --import tsx bench/diarization.ts [--only meetings,calls,channels,crosstalk,roles] [--calls 1] [--tune] [--fresh]
 */
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { diarizeRecording, type DiarizeResult } from '../src/speakers/diarize.js';
import { loadSpeakerEncoder } from '../src/speakers/encoder.js';
import { median, voicedF0 } from '../src/speakers/pitch.js';
import { speechRegions } from '../src/speakers/regions.js';
import { loadSileroVad } from '../src/vad/silero.js';
import { buildCall, utterancesOf, type Call } from '../test/fixtures/speaker-calls.js';
import { crosstalkWer, falseSplits } from './lib/diarization-channels.js';
import { benchMeeting, HELD_OUT, wordSegments, type MeetingRow } from './lib/diarization-meetings.js';
import { der, wordAttribution, type Labelled } from './lib/diarization-score.js';
import { closeMeetingAsr, loadMeetings } from './lib/meetings.js';
import { generatedRoles, realVoiceRoles } from './lib/roles-bench.js';

const argv = process.argv.slice(2);
const arg = (n: string) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const only = new Set((arg('only') ?? 'meetings,calls,channels,crosstalk,roles').split(','));
const perMix = Number(arg('calls') ?? 1);
const tune = argv.includes('--tune');
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${argv.join(' ')}`);
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length}, ${os.platform()} ${os.release()}; CPU measured with process.cpuUsage`);
const models = { encoder: await loadSpeakerEncoder(), vad: await loadSileroVad() };
const config = loadConfig({});
const asr = createTranscriber({ config: { ...config, asrThreads: 1 }, log: silentLogger, registry: loadModelRegistry(config.modelsFile) });
let diarCpu = 0;
let diarAudio = 0;

let asrCpuPerSec: number | undefined;

// ---------------------------------------------------------------- meetings
if (only.has('meetings')) {
  const meetings = await loadMeetings(['8k', '16k'], { fresh: argv.includes('--fresh') });
  await closeMeetingAsr();
  const asrCpu = meetings.reduce((n, m) => n + (m.asrCpu ?? 0), 0);
  if (asrCpu > 0) asrCpuPerSec = asrCpu / (30 * meetings.length);
  const rows: MeetingRow[] = [];
  for (const m of meetings) {
    const r = await benchMeeting(models, m);
    rows.push(...r);
    const p = r[0]!;
    diarCpu += p.cpu;
    diarAudio += 30;
    console.error(`${m.id} ${m.band}: ${r.map((x) => `${x.method} k=${x.speakers} attr ${pct(x.attribution)} DER ${pct(x.der)}`).join(' | ')} (ref ${p.refSpeakers}, countable ${p.refCountable})`);
  }
  console.log('\n## Real meeting excerpts (AMI), ASR words scored against the RTTM turns');
  console.log('| set | band | method | word attribution (words) | DER (pooled by speech time) | speakers right, all / countable (files ≥ 10 s of speech) | gender right | CPU s per audio s |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const set of ['tuning (trn00–03, 06–09)', 'held out (trn04, trn05)'])
    for (const band of ['8 kHz mu-law', '16 kHz'])
      for (const method of ['pipeline', 'first pipeline', 'one speaker'] as const) {
        const rs = rows.filter((r) => r.band === band && r.method === method && HELD_OUT.includes(r.id) === set.startsWith('held'));
        const scored = rs.filter((r) => r.words > 0);
        const long = rs.filter((r) => r.speech >= 10);
        const words = scored.reduce((n, r) => n + r.words, 0);
        const attr = scored.reduce((n, r) => n + r.attribution * r.words, 0) / Math.max(1, words);
        const g = rs.reduce((n, r) => n + r.genderRight, 0) / Math.max(1, rs.reduce((n, r) => n + r.genderTotal, 0));
        const derPooled = rs.reduce((n, r) => n + r.der * r.speech, 0) / Math.max(1e-9, rs.reduce((n, r) => n + r.speech, 0));
        console.log(`| ${set} | ${band} | ${method} | ${pct(attr)} (${words}) | ${pct(derPooled)} | ${long.filter((r) => r.speakers === r.refSpeakers).length}/${long.length} / ${long.filter((r) => r.speakers === r.refCountable).length}/${long.length} | ${method === 'one speaker' ? '–' : pct(g)} | ${(rs.reduce((n, r) => n + r.cpu, 0) / (30 * rs.length)).toFixed(4)} |`);
      }
}

// ---------------------------------------------------------------- assembled calls (the first bench's set)
const MIXES: string[][] = [
  ['allison', 'june'], ['allison', 'carlo'], ['june', 'ivrvoice-ru'], ['carlo', 'librivox'], ['allison', 'ivrvoice-ru'], ['june', 'carlo'], ['ivrvoice-ru', 'librivox'],
  ['allison'], ['carlo'], ['june'], ['ivrvoice-ru'], ['allison', 'june', 'carlo'], ['ivrvoice-ru', 'librivox', 'allison'], ['june', 'carlo', 'ivrvoice-ru'],
];
const hypWords = (r: DiarizeResult): Labelled[] => r.utterances.flatMap((u) => u.events.map((e) => ({ start: e.start, end: e.end, speaker: u.metadata.speaker ?? 'S1' })));
function lookup(words: Labelled[]): (t: number) => string | undefined {
  const byMid = new Map(words.map((w) => [((w.start + w.end) / 2).toFixed(4), w.speaker]));
  return (t) => byMid.get(t.toFixed(4));
}
/** Peer: median F0 of each speech region, 1-D k-means on log F0 with the true k. */
function pitchPeer(call: Call, k: number): Labelled[] {
  const regions = speechRegions(call.words, call.seconds);
  const x = regions.map((r) => Math.log(median(voicedF0(call.samples, call.sampleRate, [r])) ?? 150));
  const sorted = [...x].sort((a, b) => a - b);
  let cent = Array.from({ length: k }, (_, i) => sorted[Math.floor(((i + 0.5) * sorted.length) / k)]!);
  let lab = x.map(() => 0);
  for (let it = 0; it < 20; it++) {
    lab = x.map((v) => cent.reduce((b, c, j) => (Math.abs(v - c) < Math.abs(v - cent[b]!) ? j : b), 0));
    cent = cent.map((c, j) => avg(x.filter((_, i) => lab[i] === j)) || c);
  }
  return call.words.map((w) => ({ start: w.start, end: w.end, speaker: `P${lab[Math.max(0, regions.findIndex((r) => w.start >= r.start - 1e-6 && w.end <= r.end + 1e-6))]}` }));
}
const genderOfTruth = (call: Call, u: { start: number; end: number }) => {
  const count = new Map<string, number>();
  for (const w of call.words.filter((w) => w.start >= u.start - 1e-6 && w.end <= u.end + 1e-6)) count.set(w.speaker, (count.get(w.speaker) ?? 0) + w.end - w.start);
  const top = [...count].sort((a, b) => b[1] - a[1])[0];
  return top ? call.genders[top[0]] : undefined;
};

if (only.has('calls')) {
  const filter = (f: string) => f.includes('librivox') || (tune ? /\/[a-l][^/]*$/ : /\/[m-z][^/]*$/).test(f);
  type Row = { band: string; n: number; method: string; attr: number; right: boolean; der: number; g: number; gt: number };
  const rows: Row[] = [];
  for (const telephone of [false, true])
    for (const [m, voices] of MIXES.entries())
      for (let c = 0; c < perMix; c++) {
        const call = buildCall({ voices, seconds: 60, seed: (tune ? 100 : 7000) + m * 10 + c, telephone, filter });
        const band = telephone ? '8 kHz mu-law' : '16 kHz';
        const ch = { channel: 0, sampleRate: call.sampleRate, samples: call.samples, utterances: utterancesOf(call.words) };
        for (const method of ['pipeline', 'first pipeline'] as const) {
          const c0 = process.cpuUsage();
          const r = await diarizeRecording(models, [ch], { diarize: true, gender: true, ...(method === 'first pipeline' ? { method: 'words' as const } : {}) });
          const cu = process.cpuUsage(c0);
          if (method === 'pipeline') [diarCpu, diarAudio] = [diarCpu + (cu.user + cu.system) / 1e6, diarAudio + call.seconds];
          const hyp = hypWords(r);
          let g = 0;
          for (const u of r.utterances) if (u.metadata.gender && u.metadata.gender === genderOfTruth(call, u)) g++;
          rows.push({ band, n: voices.length, method, attr: wordAttribution(call.words, lookup(hyp)), right: r.channels[0]!.speakers === voices.length, der: der(call.turns, method === 'pipeline' ? r.turns : wordSegments(hyp), call.seconds).der, g, gt: r.utterances.length });
        }
        const one = call.words.map((w) => ({ ...w, speaker: 'S1' }));
        rows.push({ band, n: voices.length, method: 'one speaker', attr: wordAttribution(call.words, lookup(one)), right: voices.length === 1, der: der(call.turns, wordSegments(one), call.seconds).der, g: 0, gt: 0 });
        const pitch = pitchPeer(call, voices.length);
        rows.push({ band, n: voices.length, method: 'pitch k-means (true k)', attr: wordAttribution(call.words, lookup(pitch)), right: true, der: der(call.turns, wordSegments(pitch), call.seconds).der, g: 0, gt: 0 });
        console.error(`${band} ${voices.join('+')}: ${rows.slice(-4).map((r) => `${r.method} ${pct(r.attr)}`).join(' | ')}`);
      }
  console.log(`\n## Calls assembled from real voices (${tune ? 'tuning: prompts a–l' : 'held out: prompts m–z, new seeds'}), ${rows.length / 4} calls of about 60 s`);
  console.log('| band | speakers | method | word attribution (worst) | speakers counted right | DER | gender right |');
  console.log('|---|---|---|---|---|---|---|');
  for (const band of ['16 kHz', '8 kHz mu-law'])
    for (const n of [1, 2, 3])
      for (const method of ['pipeline', 'first pipeline', 'one speaker', 'pitch k-means (true k)']) {
        const rs = rows.filter((r) => r.band === band && r.n === n && r.method === method);
        const g = rs.reduce((a, r) => a + r.g, 0) / Math.max(1, rs.reduce((a, r) => a + r.gt, 0));
        console.log(`| ${band} | ${n} | ${method} | ${pct(avg(rs.map((r) => r.attr)))} (${pct(Math.min(...rs.map((r) => r.attr)))}) | ${method.startsWith('pitch') ? 'given' : `${rs.filter((r) => r.right).length}/${rs.length}`} | ${pct(avg(rs.map((r) => r.der)))} | ${rs[0]!.gt ? pct(g) : '–'} |`);
      }
}

// ---------------------------------------------------------------- channels: false splits
if (only.has('channels')) {
  console.log('\n## One voice per channel, −20 dB crosstalk from the others (7 stereo calls and a six-channel one, 60 s, held-out prompts)');
  console.log('| band | channels | split by the pipeline | split by the first pipeline | CPU s per audio s (crosstalk + diarization) |');
  console.log('|---|---|---|---|---|');
  for (const telephone of [true, false]) {
    const f = await falseSplits(models, -20, telephone);
    console.log(`| ${telephone ? '8 kHz mu-law' : '16 kHz'} | ${f.channels} | ${f.pipeline} | ${f.firstPipeline} | ${(f.cpu / f.audio).toFixed(4)} |`);
  }
}

// ---------------------------------------------------------------- crosstalk: WER with and without the step
if (only.has('crosstalk') || only.has('roles')) await asr.ready();
if (only.has('crosstalk')) {
  const calls = Number(arg('xtalk-calls') ?? 3);
  const c0 = process.cpuUsage();
  const rows = await crosstalkWer(asr, calls, true);
  const cu = process.cpuUsage(c0);
  asrCpuPerSec ??= (cu.user + cu.system) / 1e6 / (calls * 60 * 2 * 4); // two channels, four conditions (the step itself is a few ms)
  console.log(`\n## Crosstalk: the Allison channel (held-out prompts, text known) of ${calls} stereo calls of 60 s, 8 kHz mu-law, through the ASR`);
  console.log('| other voice on the channel | crosstalk step | WER | insertions | own right words lost |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${Number.isFinite(r.bleedDb) ? `${r.bleedDb} dB` : 'none (clean)'} | ${r.suppressed ? 'on' : 'off'} | ${pct(r.errors / r.refWords)} | ${r.insertions} | ${r.suppressed ? `${r.lost} of ${r.right + r.lost} (${pct(r.lost / Math.max(1, r.right + r.lost))})` : '–'} |`);
}

// ---------------------------------------------------------------- roles
if (only.has('roles')) {
  console.log('\n## Roles: the agent found');
  console.log('| calls | right | no decision | wrong |');
  console.log('|---|---|---|---|');
  for (const stereo of [true, false]) {
    const t = generatedRoles(400, stereo);
    console.log(`| generated scripted, ${stereo ? 'stereo' : 'diarized mono'} (${t.calls}) | ${pct(t.right / t.calls)} | ${t.none} | ${t.wrong} |`);
  }
  const real = await realVoiceRoles(asr, models, Number(arg('role-calls') ?? 8));
  for (const [name, t] of [['real voices through the ASR, stereo', real.stereo], ['real voices through the ASR, mono diarized', real.mono]] as const) console.log(`| ${name} (${t.calls}) | ${pct(t.right / t.calls)} | ${t.none} | ${t.wrong} |`);
}

// ---------------------------------------------------------------- cost
if (diarAudio > 0 || asrCpuPerSec) {
  const diar = diarAudio > 0 ? `diarization + gender ${(diarCpu / diarAudio).toFixed(4)} CPU s per audio s` : 'no diarization timed';
  console.log(`\nCPU: ${diar}${asrCpuPerSec ? `; ASR (Moonshine, auto, 1 thread; ${argv.includes('--fresh') && only.has('meetings') ? 'the meeting excerpts, both bands' : 'the crosstalk calls'}) ${asrCpuPerSec.toFixed(4)}${diarAudio > 0 ? `: diarization is ${pct(diarCpu / diarAudio / asrCpuPerSec)} of the ASR` : ''}` : ''}`);
}
await asr.close();
await models.encoder.release();
await models.vad.release();
