/**
 * Custom vocabulary (`vocab`): invented product names in call-centre sentences read by synthetic
 * voices (16 kHz, and through a phone line at 8 kHz mu-law) and names a real voice says (the
 * Asterisk prompts), transcribed by the default model three ways in the same run:
 *   none      no vocabulary;
 *   beam      the peer: the beam over phrase starts and the near-miss rewrite (the verified pass off);
 *   verified  the same plus the acoustically verified pass (src/asr/moonshine/phrase-verify.ts).
 * Tuning and held-out halves are reported apart: the tuning names/voices/prompts are those the
 * settings were chosen on (bench/vocabulary-tune.ts); the held-out ones were never looked at while tuning.
 *
 *   node --import tsx bench/vocabulary.ts [--negatives 100] [--hyp] [--skip tuning,held-out,real,negatives] [--penalty nats]
 *
 * - recall: sentences whose phrase is written (case-insensitive, punctuation aside) / sentences;
 * - false insertions: vocabulary phrases written on real speech that holds none of them (Asterisk
 *   prompts m–z and the 5-voice wideband set), per 1,000 reference words; WER on that speech;
 * - CPU: this process's CPU seconds (process.cpuUsage; the engine runs in this thread) per configuration.
 * --penalty: the verified pass's penalty (nats) instead of VERIFY_TUNING's, for trying another setting.
 * Every request carries the whole vocabulary (27 phrases: both halves' names and the real ones).
 * Utterances are cut as the transcriber cuts them (segmentSamples, 20 s at most).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toNativeDesc } from '../src/asr/binding.js';
import type { PocketSphinxDesc } from '../src/asr/engines/engine.js';
import { loadMoonshineEngine } from '../src/asr/engines/moonshine.js';
import { loadPocketSphinx, type PocketSphinxEngine } from '../src/asr/engines/pocketsphinx.js';
import { loadModelRegistry } from '../src/asr/models.js';
import type { VerifyTuning } from '../src/asr/moonshine/phrase-verify.js';
import { toChannelPcm } from '../src/audio/resample.js';
import { segmentSamples } from '../src/audio/segment.js';
import { loadConfig } from '../src/config.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio } from '../src/types.js';
import { ASTERISK, loadSet } from './lib/datasets.js';
import { HELDOUT_SENTENCES, HELDOUT_VOICES, REAL_NAMES, synthesize, TUNE_SENTENCES, TUNE_VOICES, type Voice } from './lib/vocab-sets.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const hyp = process.argv.includes('--hyp');
/** Parts left out (comma-separated): tuning, held-out (synthetic halves), real (Asterisk names), negatives. */
const skip = new Set((arg('skip') ?? '').split(',').filter(Boolean));
const VOCAB = [...new Set([...TUNE_SENTENCES.map(([n]) => n), ...HELDOUT_SENTENCES.map(([n]) => n), ...REAL_NAMES.map((r) => r.name)])];
const CONFIGS = ['none', 'beam', 'verified'] as const;
type Config = (typeof CONFIGS)[number];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-vocab-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const config = loadConfig({});
const registry = loadModelRegistry(config.modelsFile);
const spec = registry.resolve('en-us-moonshine', 16000);
const aligners = new Map<string, PocketSphinxEngine>();
/** Read by the engine on every request: the bench switches the verified pass per configuration. */
const tuning: Partial<VerifyTuning> = arg('penalty') !== undefined ? { penalty: Number(arg('penalty')) } : {};
const engine = await loadMoonshineEngine(
  { name: spec.name, engine: 'moonshine', sampleRate: 16000, dir: spec.dir, options: Object.entries(spec.options) },
  {
    aligner: (d: PocketSphinxDesc) => {
      const k = JSON.stringify(d);
      if (!aligners.has(k)) aligners.set(k, loadPocketSphinx(d));
      return aligners.get(k)!;
    },
    vocabPass: { tuning },
  },
);
const abort = new Int32Array(new SharedArrayBuffer(4));
const cpu: Record<Config, number> = { none: 0, beam: 0, verified: 0 };

/** The words each configuration writes for one recording (as the transcriber cuts it into utterances). */
async function transcribe(audio: DecodedAudio): Promise<Record<Config, string[]>> {
  const aligner = toNativeDesc(registry.aligner(spec, audio.format.sampleRate)!);
  const samples = toChannelPcm(audio, 16000)[0]!.samples;
  const segments = segmentSamples(samples, 16000, { maxUtteranceSec: Math.min(config.segment.maxUtteranceSec, spec.maxUtteranceSec ?? Infinity) });
  const out = {} as Record<Config, string[]>;
  for (const c of CONFIGS) {
    tuning.verify = c === 'verified';
    const t0 = process.cpuUsage();
    const words: string[] = [];
    for (const s of segments) {
      const r = await engine.decode({ samples: samples.slice(s.start, s.end), abort, aligner, vocab: c === 'none' ? undefined : VOCAB });
      words.push(...r.words.map((w) => w.word));
    }
    const used = process.cpuUsage(t0);
    cpu[c] += (used.user + used.system) / 1e6;
    out[c] = words;
  }
  return out;
}

/** Occurrences of a phrase in written words (case-insensitive, punctuation ignored). */
function count(words: string[], phrase: string): number {
  const p = normalizeWords(phrase);
  let n = 0;
  for (let i = 0; i + p.length <= words.length; i++) if (p.every((w, j) => words[i + j] === w)) n++;
  return n;
}
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`;
const found = () => ({ none: 0, beam: 0, verified: 0, said: 0 });
type Found = ReturnType<typeof found>;
const row = (label: string, f: Found) => `| ${label} | ${f.said} | ${CONFIGS.map((c) => `${pct(f[c], f.said)} (${f[c]})`).join(' | ')} |`;

console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
console.log(`node ${process.version}; ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`vocabulary (${VOCAB.length}): ${VOCAB.join(', ')}\n`);
console.log(`| set | said | none | beam (peer) | verified |\n|---|---|---|---|---|`);

async function recallOn(voices: Voice[], sentences: Array<[string, string]>, half: string): Promise<Found> {
  const total = found();
  for (const voice of voices) {
    for (const tel of [false, true]) {
      const f = found();
      for (const [i, [name, sentence]] of sentences.entries()) {
        const words = await transcribe(await synthesize(voice, sentence, tmp, `${half}-${i}`, tel));
        f.said++;
        for (const c of CONFIGS) f[c] += Math.min(1, count(normalizeWords(words[c].join(' ')), name));
        if (hyp) console.log(`  ${voice.name}${tel ? ' tel' : ''} ${i}: ${CONFIGS.map((c) => `${c}: ${words[c].join(' ')}`).join('\n      ')}`);
      }
      console.log(row(`${half}: ${voice.name}, ${tel ? '8 kHz mu-law phone line' : '16 kHz'}`, f));
      for (const k of ['none', 'beam', 'verified', 'said'] as const) total[k] += f[k];
    }
  }
  console.log(row(`**${half}, all voices**`, total));
  return total;
}

if (!skip.has('tuning')) await recallOn(TUNE_VOICES, TUNE_SENTENCES, 'tuning');
if (!skip.has('held-out')) await recallOn(HELDOUT_VOICES, HELDOUT_SENTENCES, 'held-out');
if (!skip.has('real')) {
  for (const tune of [true, false]) {
    const f = found();
    for (const r of REAL_NAMES.filter((x) => x.tune === tune)) {
      const words = await transcribe(await decodeWav(path.join(ASTERISK, `${r.prompt}.wav`)));
      f.said++;
      for (const c of CONFIGS) f[c] += Math.min(1, count(normalizeWords(words[c].join(' ')), r.name));
      if (hyp) console.log(`  ${r.prompt}: ${CONFIGS.map((c) => `${c}: ${words[c].join(' ')}`).join('\n      ')}`);
    }
    console.log(row(`real voice (Asterisk, 8 kHz), ${tune ? 'tuning' : 'held-out'}: ${REAL_NAMES.filter((x) => x.tune === tune).map((x) => `${x.name} in ${x.prompt}`).join(', ')}`, f));
  }
}

// ---- false insertions and WER on real speech without any vocabulary phrase
if (!skip.has('negatives')) {
  const neg = { words: 0, files: 0, err: { none: 0, beam: 0, verified: 0 }, inserted: { none: 0, beam: 0, verified: 0 } };
  const names = new Set(REAL_NAMES.map((r) => r.prompt));
  for (const set of ['ast-mz', 'wideband']) {
    for (const item of loadSet(set, tmp, Number(arg('negatives') ?? 100)).items) {
      if (names.has(item.id)) continue; // prompts that say a name are recall items
      const words = await transcribe(await item.load());
      const ref = normalizeWords(item.ref);
      neg.files++;
      neg.words += ref.length;
      for (const c of CONFIGS) {
        const h = normalizeWords(words[c].join(' '));
        neg.err[c] += wordDistance(ref, h);
        for (const v of VOCAB) neg.inserted[c] += Math.max(0, count(h, v) - count(ref, v));
      }
      if (hyp && words.beam.join(' ') !== words.verified.join(' ')) console.log(`  ${set}/${item.id}: beam: ${words.beam.join(' ')}\n      verified: ${words.verified.join(' ')}`);
    }
  }
  console.log(`\nreal speech without the names (Asterisk m–z + wideband: ${neg.files} files, ${neg.words} words):`);
  for (const c of CONFIGS) {
    console.log(`  ${c}: false insertions ${neg.inserted[c]} (${((1000 * neg.inserted[c]) / Math.max(1, neg.words)).toFixed(2)} per 1,000 words), WER ${pct(neg.err[c], neg.words)}`);
  }
}
console.log(`\nCPU seconds (this thread, all of the above): ${CONFIGS.map((c) => `${c} ${cpu[c].toFixed(1)}`).join(', ')}; beam ${(cpu.beam / cpu.none).toFixed(2)}×, verified ${(cpu.verified / cpu.none).toFixed(2)}× decoding without a vocabulary`);
