/**
 * Tuning the custom vocabulary's verified pass (src/asr/moonshine/phrase-verify.ts): the Moonshine
 * engine runs in this process with `measure` on, and every candidate span is reported with its
 * phone distance and its acoustic score difference Δ (phrase minus words heard, nats, two forced
 * alignments). Candidates where the sentence said that phrase are positives; all others (real speech
 * without the names, or another phrase) are negatives. Prints both distributions and, for penalties
 * and distances, the recall and insertions they would give. Tuning sets only: the synthetic voices of
 * bench/vocabulary.ts's tuning half and the Asterisk a–l prompts (real voice, tuning half).
 *
 *   node --import tsx bench/vocabulary-tune.ts [--negatives 100] [--dump]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toChannelPcm } from '../src/audio/resample.js';
import { toNativeDesc } from '../src/asr/binding.js';
import type { PocketSphinxDesc } from '../src/asr/engines/engine.js';
import { loadMoonshineEngine } from '../src/asr/engines/moonshine.js';
import { loadPocketSphinx, type PocketSphinxEngine } from '../src/asr/engines/pocketsphinx.js';
import { loadModelRegistry } from '../src/asr/models.js';
import type { VocabCheck } from '../src/asr/moonshine/vocab-pass.js';
import { loadConfig } from '../src/config.js';
import type { DecodedAudio } from '../src/types.js';
import { loadSet } from './lib/datasets.js';
import { normalizeWords } from './lib/wer.js';
import { VERIFY_TUNING } from '../src/asr/moonshine/phrase-verify.js';
import { synthesize, TUNE_NAMES, TUNE_SENTENCES, TUNE_VOICES } from './lib/vocab-sets.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-vtune-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const config = loadConfig({});
const registry = loadModelRegistry(config.modelsFile);
const spec = registry.resolve('en-us-moonshine', 16000);
const aligners = new Map<string, PocketSphinxEngine>();
const checks: VocabCheck[] = [];
const engine = await loadMoonshineEngine(
  { name: spec.name, engine: 'moonshine', sampleRate: 16000, dir: spec.dir, options: Object.entries(spec.options) },
  {
    // Path scores of two searches are comparable only when every senone is scored in every frame
    // (PocketSphinx normalises each frame by its best active senone) and nothing is pruned.
    aligner: (d: PocketSphinxDesc) => {
      const k = JSON.stringify(d);
      const options: Array<[string, string]> = [...d.options.filter(([f]) => !/beam$/.test(f)), ['-beam', '1e-300'], ['-pbeam', '1e-300'], ['-wbeam', '1e-300'], ['-compallsen', 'yes']];
      if (!aligners.has(k)) aligners.set(k, loadPocketSphinx({ ...d, options }));
      return aligners.get(k)!;
    },
    vocabPass: { tuning: { measure: true, maxDistance: Number(arg('distance') ?? 0.7), maxCandidates: 8, penalty: Number(arg('penalty') ?? VERIFY_TUNING.penalty) }, onCheck: (c) => checks.push(c) },
  },
);
const abort = new Int32Array(new SharedArrayBuffer(4));
async function run(audio: DecodedAudio, vocab: string[]): Promise<VocabCheck[]> {
  const aligner = registry.aligner(spec, audio.format.sampleRate)!;
  const samples = toChannelPcm(audio, 16000)[0]!.samples;
  checks.length = 0;
  await engine.decode({ samples, abort, aligner: toNativeDesc(aligner), vocab });
  return checks.slice();
}

type Row = { label: 'pos' | 'neg'; delta: number; distance: number; what: string; accepted: boolean };
const rows: Row[] = [];
const positives = { said: 0 };
/** A positive: a candidate for the phrase the sentence said, over words the sentence did not say (the misheard name). */
const record = (cs: VocabCheck[], said: string | undefined, sentence: string, where: string) => {
  const others = new Set(normalizeWords(sentence));
  for (const c of cs) {
    c.candidates.forEach((cand, k) => {
      const phrase = c.phrases[cand.phrase]!.join(' ');
      const span = c.words.slice(cand.at, cand.at + cand.length);
      const label = said !== undefined && phrase === said && !span.every((w) => others.has(w)) ? 'pos' : 'neg';
      rows.push({ label, delta: c.deltas![k]!, distance: cand.distance, what: `${where}: "${span.join(' ')}" → ${phrase}`, accepted: c.accepted.includes(cand) });
    });
  }
};

const quick = process.argv.includes('--quick');
for (const voice of quick ? TUNE_VOICES.slice(0, 1) : TUNE_VOICES) {
  for (const tel of quick ? [false] : [false, true]) {
    for (const [i, [name, sentence]] of TUNE_SENTENCES.entries()) {
      const audio = await synthesize(voice, sentence, tmp, `${i}`, tel);
      positives.said++;
      record(await run(audio, TUNE_NAMES), name, sentence.replace(name, ' '), `${voice.name}${tel ? ' tel' : ''}`);
    }
  }
}
for (const item of loadSet('ast-al', tmp, Number(arg('negatives') ?? 100)).items) {
  record(await run(await item.load(), TUNE_NAMES), undefined, item.ref, `ast-al/${item.id}`);
}

const pos = rows.filter((r) => r.label === 'pos');
const neg = rows.filter((r) => r.label === 'neg');
console.log(`node ${process.version}; ${os.cpus()[0]?.model}; ${positives.said} sentences with a name, ${pos.length} positive and ${neg.length} negative candidates`);
if (process.argv.includes('--dump')) for (const r of [...rows].sort((a, b) => b.delta - a.delta)) console.log(`${r.label} Δ ${r.delta.toFixed(1).padStart(7)} d ${r.distance.toFixed(2)} ${r.accepted ? 'A' : '-'} ${r.what}`);
for (const maxD of [0.3, 0.4, 0.5, 0.6, 0.7]) {
  for (const penalty of [-60, -50, -40, -30, -20, -10, 0]) {
    const tp = pos.filter((r) => r.distance <= maxD && r.delta > penalty).length;
    const fp = neg.filter((r) => r.distance <= maxD && r.delta > penalty).length;
    console.log(`distance ≤ ${maxD}, penalty ${penalty}: positives accepted ${tp}/${pos.filter((r) => r.distance <= maxD).length}, negatives accepted ${fp}/${neg.filter((r) => r.distance <= maxD).length}`);
  }
}
