/**
 * Segmenters side by side on real speech (src/asr/segmenter.ts): the energy segmenter (the peer) and
 * the Silero VAD with the ASR's parameters, or variants of it, in the same run, through the whole ASR
 * path (transcriber → Moonshine → alignment).
 *
 *   nice node --import tsx bench/segmentation.ts [--split report|tune] [--segmenters energy,silero,silero:threshold=0.4:minSilenceMs=300]
 *        [--sets a,b] [--limit 40] [--threads 2] [--cache] [--no-asr] [--json FILE]
 *
 * --split tune: Asterisk prompts a–l (single files and calls of 9 with pauses, clean and with pink or
 *   room noise at 10 and 5 dB SNR) and the meeting excerpts trn00–04. --split report (the default): the
 *   held-out material — Asterisk m–z the same way, LibriVox's readers as files and as a call (16 kHz,
 *   telephone band, noisy), cards/goforward/ALSA (wideband), digit strings, meetings trn05–09.
 * Per set and segmenter: WER, utterances (count, median and longest, seconds), CPU of the segmenter
 * (ms per audio s) and of the ASR (CPU s per audio s), whether the live endpointer fed 100 ms pieces
 * cuts exactly as the batch segmenter does, and its decision latency (audio from the end of the speech
 * to the push that ended the utterance). Meetings (no transcripts): reference speech outside every
 * utterance (missed), utterance time outside the reference speech (non-speech), utterance count/lengths.
 * --cache: utterances with the same samples are decoded once (identical words: decoding is deterministic
 * per utterance, docs/asr.md); for tuning grids only — the ASR CPU figures are then meaningless.
 * CPU: process.cpuUsage (all threads of this process); the machine may be shared: compare within a run.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createAsrPool, type AsrPool, type DecodedSegment } from '../src/asr/pool.js';
import { energySegmenter, sileroSegmenter, type Segmenter } from '../src/asr/segmenter.js';
import { createTranscriber, type Transcriber } from '../src/asr/transcriber.js';
import { toChannelPcm } from '../src/audio/resample.js';
import type { Segment } from '../src/audio/segment.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { DecodedAudio } from '../src/types.js';
import type { UtteranceVadParams } from '../src/vad/utterances.js';
import { loadSet } from './lib/datasets.js';
import { asteriskCalls, audioOf, librivoxCall, meetings, mulaw, scoreSegmentation, telephone, withNoise, type Clip, type Meeting } from './lib/segmentation-sets.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const flag = (name: string) => process.argv.includes(`--${name}`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-seg-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const MODEL_RATE = 16000;
const MAX_UTTERANCE_SEC = 20;

interface Item {
  id: string;
  ref: string;
  audio: DecodedAudio;
  /** Calls: where each recording in it ends (seconds), for the live decision latency. */
  ends?: number[];
}
type WerSet = { name: string; kind: 'wer'; items: Item[] };
type MeetingSet = { name: string; kind: 'meetings'; items: Meeting[] };

/** `energy`, `silero`, or `silero:threshold=0.4:minSilenceMs=300`. */
function contender(spec: string): Segmenter & { label: string } {
  const [name, ...kv] = spec.split(':');
  if (name === 'energy') return { ...energySegmenter, label: 'energy' };
  if (name !== 'silero') throw new Error(`unknown segmenter ${spec}`);
  const params: Partial<UtteranceVadParams> = Object.fromEntries(kv.map((p) => [p.split('=')[0]!, Number(p.split('=')[1])]));
  return { ...sileroSegmenter(params), label: spec };
}

type Noisy = 'pink10' | 'pink5' | 'room10' | 'room5';
const NOISY: Noisy[] = ['pink10', 'pink5', 'room10', 'room5'];

/** The calls as they are (unless `clean` is false) and with each noise in `noisy`; 8 kHz ones through mu-law. */
async function callSets(prefix: string, base: Array<Clip & { speechRms: number }>, noisy: Noisy[], clean = true): Promise<WerSet[]> {
  const wrap = (xs: Clip[]) => xs.map((c) => ({ id: c.id, ref: c.ref, audio: audioOf(c.rate === 8000 ? mulaw(c.samples) : c.samples, c.rate), ends: c.ends }));
  const sets: WerSet[] = clean ? [{ name: prefix, kind: 'wer', items: wrap(base) }] : [];
  for (const n of noisy) {
    const kind = n.startsWith('pink') ? 'pink' : 'room';
    const snr = Number(n.replace(/\D+/, ''));
    sets.push({ name: `${prefix}-${n}`, kind: 'wer', items: wrap(await Promise.all(base.map((c) => withNoise(c, kind, snr)))) });
  }
  return sets;
}

async function fileSet(name: string, limit: number): Promise<WerSet> {
  const set = loadSet(name, tmp, limit);
  return { name, kind: 'wer', items: await Promise.all(set.items.map(async (i) => ({ id: i.id, ref: i.ref, audio: await i.load() }))) };
}

async function buildSets(split: string, limit: number): Promise<Array<WerSet | MeetingSet>> {
  if (split === 'tune') {
    return [
      await fileSet('ast-al', limit),
      ...(await callSets('ast-al-calls', await asteriskCalls('al', 3), NOISY)),
      ...(await callSets('ast-al-legs', await asteriskCalls('al', 2, 'leg'), ['pink10', 'room10'], false)),
      { name: 'meetings-tune', kind: 'meetings', items: await meetings(['trn00', 'trn01', 'trn02', 'trn03', 'trn04'], false, tmp) },
      { name: 'meetings-tune-tel', kind: 'meetings', items: await meetings(['trn00', 'trn01', 'trn02', 'trn03', 'trn04'], true, tmp) },
    ];
  }
  const lv = await librivoxCall();
  return [
    await fileSet('ast-mz', limit),
    ...(await callSets('ast-mz-calls', await asteriskCalls('mz', 3), NOISY)),
    ...(await callSets('ast-mz-legs', await asteriskCalls('mz', 2, 'leg'), ['pink10', 'room10'], false)),
    await fileSet('wideband', 0),
    ...(await callSets('librivox-call', [lv], NOISY)),
    { name: 'librivox-call-tel', kind: 'wer', items: [{ id: 'librivox-call-tel', ref: lv.ref, audio: audioOf(await telephone(lv.samples, lv.rate, tmp), 8000), ends: lv.ends }] },
    await fileSet('digits', 0),
    { name: 'meetings', kind: 'meetings', items: await meetings(['trn05', 'trn06', 'trn07', 'trn08', 'trn09'], false, tmp) },
    { name: 'meetings-tel', kind: 'meetings', items: await meetings(['trn05', 'trn06', 'trn07', 'trn08', 'trn09'], true, tmp) },
  ];
}

/** The pool with each utterance's words kept by its samples' hash (tuning grids). */
function cachingPool(pool: AsrPool): AsrPool {
  const cache = new Map<string, DecodedSegment>();
  const key = (m: string, x: Int16Array) => `${m}:${createHash('sha1').update(x).digest('hex')}`;
  return Object.assign(Object.create(pool) as AsrPool, {
    async decodeBatch(model: Parameters<AsrPool['decodeBatch']>[0], samples: Int16Array[], abort: Int32Array, opts?: Parameters<AsrPool['decodeBatch']>[3]) {
      const keys = samples.map((x) => key(model.name, x));
      const todo = samples.flatMap((x, i) => (cache.has(keys[i]!) ? [] : [{ x, i }]));
      if (todo.length) {
        const outs = await pool.decodeBatch(model, todo.map((t) => t.x), abort, opts);
        todo.forEach((t, k) => cache.set(keys[t.i]!, outs[k]!));
      }
      return keys.map((k) => cache.get(k)!);
    },
  });
}

const cpuSec = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};

/** The segments of a mono recording, and the segmenter's CPU seconds. */
async function segmentTimed(s: Segmenter, audio: DecodedAudio): Promise<{ segments: Segment[]; cpu: number }> {
  const [pcm] = toChannelPcm(audio, MODEL_RATE);
  const c0 = process.cpuUsage();
  const segments = await s.segment({ source: audio.channels[0]!, sourceRate: audio.format.sampleRate, pcm: pcm!.samples, rate: MODEL_RATE }, { maxUtteranceSec: MAX_UTTERANCE_SEC });
  return { segments, cpu: cpuSec(process.cpuUsage(c0)) };
}

/**
 * The live endpointer fed 100 ms pieces: its segments (at the model's rate, as the batch maps them),
 * and for each recording end in `ends` the audio received when the utterance holding it was decided,
 * past that end (s): the endpointing latency.
 */
async function liveCut(s: Segmenter, audio: DecodedAudio, ends: number[] = []): Promise<{ segments: Segment[]; latency: number[] }> {
  const rate = audio.format.sampleRate;
  const x = audio.channels[0]!;
  const ep = s.endpointer({ sampleRate: rate, maxUtteranceSec: MAX_UTTERANCE_SEC });
  const found: Segment[] = [];
  const latency: number[] = [];
  const piece = rate / 10;
  for (let i = 0; i < x.length; i += piece) {
    const got = await ep.push(x.subarray(i, i + piece));
    const decided = Math.min(x.length, i + piece) / rate;
    for (const g of got.segments) {
      found.push(g);
      for (const e of ends) if (g.start / rate <= e && e <= g.end / rate) latency.push(decided - e);
    }
  }
  found.push(...(await ep.flush()));
  const at = (n: number) => Math.round((n * MODEL_RATE) / rate);
  return { segments: found.map((g) => ({ start: at(g.start), end: at(g.end), speechStart: at(g.speechStart), speechEnd: at(g.speechEnd) })), latency };
}

const sameCut = (a: Segment[], b: Segment[]) => a.length === b.length && a.every((g, i) => g.start === b[i]!.start && g.end === b[i]!.end);

async function main(): Promise<void> {
  const split = arg('split') ?? 'report';
  const limit = Number(arg('limit') ?? 40);
  const threads = Number(arg('threads') ?? 2);
  const asr = !flag('no-asr');
  const contenders = (arg('segmenters') ?? 'energy,silero').split(',').map(contender);
  const only = arg('sets')?.split(',');
  const cpus = os.cpus();
  console.log(`command: nice node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const sets = (await buildSets(split, limit)).filter((s) => !only || only.includes(s.name));

  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  const registry = loadModelRegistry(config.modelsFile);
  const realPool = createAsrPool({ threads });
  const pool = flag('cache') ? cachingPool(realPool) : realPool;
  const transcribers = new Map<string, Transcriber>(contenders.map((c) => [c.label, createTranscriber({ config, log: silentLogger, registry, pool, segmenter: c })]));
  if (asr) await Promise.all([...transcribers.values()].map((t) => t.ready()));
  else await Promise.all(contenders.map((c) => c.ready()));

  const json: Array<Record<string, unknown>> = [];
  console.log(`\nWER: set | segmenter | WER % (errors/words) | utterances (median / longest s) | segmenter ms per audio s | ASR CPU s per audio s | live cut = batch (files) | live: utterance decided after its recording's end, p50 / p95 s (ends)`);
  for (const set of sets.filter((s): s is WerSet => s.kind === 'wer')) {
    const audioSec = set.items.reduce((n, i) => n + i.audio.durationSec, 0);
    const words = set.items.reduce((n, i) => n + normalizeWords(i.ref).length, 0);
    for (const c of contenders) {
      let errors = 0, segCpu = 0, asrCpu = 0, same = 0;
      const lens: number[] = [];
      const latency: number[] = [];
      for (const item of set.items) {
        const { segments, cpu } = await segmentTimed(c, item.audio);
        segCpu += cpu;
        lens.push(...segments.map((g) => (g.end - g.start) / MODEL_RATE));
        const live = await liveCut(c, item.audio, item.ends);
        if (sameCut(live.segments, segments)) same++;
        latency.push(...live.latency);
        if (!asr) continue;
        const c0 = process.cpuUsage();
        const r = await transcribers.get(c.label)!.transcribe(item.audio, { source: item.id });
        asrCpu += cpuSec(process.cpuUsage(c0)) - cpu;
        const hyp = normalizeWords(r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' '));
        const e = wordDistance(normalizeWords(item.ref), hyp);
        errors += e;
        if (flag('hyp') && e > 0) console.log(`  ${c.label} ${item.id}: ${e}\n    ref: ${normalizeWords(item.ref).join(' ')}\n    hyp: ${hyp.join(' ')}`);
      }
      const row = {
        set: set.name,
        segmenter: c.label,
        wer: asr ? errors / words : undefined,
        errors,
        words,
        utterances: lens.length,
        medianSec: pct(lens, 0.5),
        longestSec: Math.max(0, ...lens),
        segMsPerSec: (1000 * segCpu) / audioSec,
        asrCpuPerSec: asr ? asrCpu / audioSec : undefined,
        liveSame: same,
        files: set.items.length,
        latencyP50: pct(latency, 0.5),
        latencyP95: pct(latency, 0.95),
      };
      json.push(row);
      console.log(
        `${set.name} | ${c.label} | ${asr ? `${((100 * errors) / words).toFixed(1)} (${errors}/${words})` : '—'} | ${lens.length} (${row.medianSec.toFixed(1)} / ${row.longestSec.toFixed(1)}) | ${row.segMsPerSec.toFixed(1)} | ${asr ? row.asrCpuPerSec!.toFixed(3) : '—'} | ${same}/${set.items.length} | ${latency.length ? `${row.latencyP50.toFixed(2)} / ${row.latencyP95.toFixed(2)} (${latency.length})` : '—'}`,
      );
    }
  }
  console.log(`\nMeetings (no transcripts): set | segmenter | reference speech s | missed % | utterance time s | non-speech % of it | utterances (median / longest s) | segmenter ms per audio s | live cut = batch`);
  for (const set of sets.filter((s): s is MeetingSet => s.kind === 'meetings')) {
    for (const c of contenders) {
      let speech = 0, missed = 0, inside = 0, nonSpeech = 0, segCpu = 0, audioSec = 0, same = 0;
      const lens: number[] = [];
      for (const m of set.items) {
        const audio = audioOf(m.samples, m.rate);
        const { segments, cpu } = await segmentTimed(c, audio);
        if (sameCut((await liveCut(c, audio)).segments, segments)) same++;
        segCpu += cpu;
        audioSec += audio.durationSec;
        const utts = segments.map((g) => ({ start: g.start / MODEL_RATE, end: g.end / MODEL_RATE }));
        lens.push(...utts.map((u) => u.end - u.start));
        const s = scoreSegmentation(utts, m.turns, audio.durationSec);
        speech += s.speech;
        missed += s.missed;
        inside += s.inside;
        nonSpeech += s.nonSpeech;
      }
      json.push({ set: set.name, segmenter: c.label, speech, missed, inside, nonSpeech, utterances: lens.length, medianSec: pct(lens, 0.5), longestSec: Math.max(0, ...lens), segMsPerSec: (1000 * segCpu) / audioSec, liveSame: same });
      console.log(
        `${set.name} | ${c.label} | ${speech.toFixed(1)} | ${((100 * missed) / speech).toFixed(1)} | ${inside.toFixed(1)} | ${((100 * nonSpeech) / Math.max(inside, 1e-9)).toFixed(1)} | ${lens.length} (${pct(lens, 0.5).toFixed(1)} / ${Math.max(0, ...lens).toFixed(1)}) | ${((1000 * segCpu) / audioSec).toFixed(1)} | ${same}/${set.items.length}`,
      );
    }
  }
  console.log(`\nload average at end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await Promise.all([...transcribers.values()].map((t) => t.close()));
  await realPool.close();
  const out = arg('json');
  if (out) writeFileSync(out, JSON.stringify({ node: process.version, cpu: cpus[0]?.model, cores: cpus.length, split, rows: json }, null, 2));
}

await main();
