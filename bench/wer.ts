/**
 * WER and CPU per audio second of every registry model, side by side, on the same real speech in the
 * same run, through the whole ASR path (resample → segment → pool → alignment where the engine needs it).
 *
 *   node --import tsx bench/wer.ts [--models a,b] [--sets s1,s2] [--limit 40] [--threads N] [--json FILE] [--hyp]
 *        [--model NAME --hmm DIR --dict FILE --lm FILE --opt -flag=value ...]   (one PocketSphinx model, overridden)
 *
 * Sets (bench/lib/datasets.ts): ast-al ast-al-mulaw ast-al-alaw (Asterisk prompts a–l: the telephony
 * model's tuning half), ast-mz ast-mz-mulaw ast-mz-alaw (held out), wideband (LibriVox, cards,
 * goforward, something, tidigits, ALSA announcements: 16 kHz), wb-tel (the same through a phone line:
 * 300–3400 Hz, 8 kHz mu-law), digits (TIDIGITS + 7-digit strings of real digit recordings), tuxpaint
 * (Tux Paint's spoken descriptions: voices nothing here was tuned on), meetings and meetings-tel (the shared
 * real meetings at 16 kHz and through a phone line: no transcripts, so no WER; only the words each model
 * writes differently from the first model are counted). --limit N keeps N files per
 * Asterisk set (evenly spaced by name; 0 = all).
 * Also prints per model the median confidence of right and of wrong words, and the safeguard events.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createModelRegistry, loadModelRegistry, type ModelSpec } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { loadSet, SET_NAMES } from './lib/datasets.js';
import { correctWords, normalizeWords, wordDistance } from './lib/wer.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const args = (name: string) => process.argv.flatMap((a, i) => (a === `--${name}` && process.argv[i + 1] ? [process.argv[i + 1]!] : []));

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-wer-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

interface Tally {
  errors: number;
  words: number;
  audio: number;
  cpu: number;
}
const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main() {
  const limit = Number(arg('limit') ?? 40);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  let registry = loadModelRegistry(arg('registry') ?? config.modelsFile);
  let models: ModelSpec[] = (arg('models') ?? arg('model'))?.split(',').map((n) => registry.resolve(n, 16000)) ?? registry.specs().filter(registry.isAvailable);
  if (arg('hmm') || arg('dict') || arg('lm') || args('opt').length) {
    // One PocketSphinx model with its files or flags overridden (tuning runs).
    if (models.length !== 1 || models[0]!.engine !== 'pocketsphinx') throw new Error('--hmm/--dict/--lm/--opt need exactly one PocketSphinx --model');
    const m = models[0]!;
    const options = { ...m.options };
    for (const o of args('opt')) options[o.slice(0, o.indexOf('='))] = o.slice(o.indexOf('=') + 1);
    const file = (n: string, fallback: string) => (arg(n) === undefined ? fallback : path.resolve(arg(n)!));
    const tuned = { ...m, hmm: file('hmm', m.hmm), dict: file('dict', m.dict), lm: file('lm', m.lm), options };
    registry = createModelRegistry({ default: tuned.name, models: [tuned] }, 'bench', '/');
    models = [tuned];
  }
  const transcriber = createTranscriber({ config, log: silentLogger, registry });
  await transcriber.ready();

  const cpu = os.cpus();
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpu[0]?.model} × ${cpu.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`models: ${models.map((m) => `${m.name} (${m.engine})`).join(', ')}; WER % (CPU s per audio s)\n`);

  const chosen = (arg('sets') ?? SET_NAMES.join(',')).split(',');
  const conf = new Map(models.map((m) => [m.name, { right: [] as number[], wrong: [] as number[] }]));
  const notes = new Map(models.map((m) => [m.name, new Map<string, number>()]));
  const differing = new Map(models.map((m) => [m.name, [] as string[]]));
  const compared = new Map<string, number>();
  // Word edits between each model's words and the first model's, over the first model's word count.
  const drift = new Map(models.map((m) => [m.name, { edits: 0, words: 0 }]));
  const rows: Array<Record<string, unknown>> = [];
  console.log(['set', 'files', 'words', ...models.map((m) => m.name)].join('\t'));
  for (const name of chosen) {
    const set = loadSet(name, tmp, limit);
    const tallies = new Map<string, Tally>(models.map((m) => [m.name, { errors: 0, words: 0, audio: 0, cpu: 0 }]));
    let words = 0;
    for (const item of set.items) {
      const audio = await item.load(); // the same audio for every model
      let firstHyp: string | undefined;
      const ref = normalizeWords(item.ref);
      words += ref.length;
      for (const m of models) {
        const c0 = process.cpuUsage();
        const r = await transcriber.transcribe(audio, { model: m.name, source: item.id });
        const c = process.cpuUsage(c0);
        const events = r.utterances.flatMap((u) => u.events);
        const hypWords = normalizeWords(events.map((e) => e.word).join(' '));
        // Same words as the first model, word for word (spelling included)?
        const exact = events.map((e) => e.word).join(' ');
        if (m === models[0]) firstHyp = exact;
        else {
          if (exact !== firstHyp) differing.get(m.name)!.push(`${name}/${item.id}`);
          const firstWords = normalizeWords(firstHyp ?? '');
          drift.get(m.name)!.edits += wordDistance(firstWords, hypWords);
          drift.get(m.name)!.words += firstWords.length;
        }
        compared.set(m.name, (compared.get(m.name) ?? 0) + 1);        const t = tallies.get(m.name)!;
        const e = wordDistance(ref, hypWords);
        t.errors += e;
        t.words += ref.length;
        t.audio += audio.durationSec;
        t.cpu += (c.user + c.system) / 1e6;
        for (const n of r.notes) notes.get(m.name)!.set(n.replace(/-\d+$/, ''), (notes.get(m.name)!.get(n.replace(/-\d+$/, '')) ?? 0) + 1);
        // Confidence of right vs wrong words (events whose normalized form is one word).
        const ok = correctWords(ref, hypWords);
        let k = 0;
        for (const ev of events) {
          const nw = normalizeWords(ev.word);
          if (nw.length !== 1) {
            k += nw.length;
            continue;
          }
          (ok[k++] ? conf.get(m.name)!.right : conf.get(m.name)!.wrong).push(ev.confidence);
        }
        if (process.argv.includes('--hyp') && e > 0) console.log(`  ${m.name} ${item.id}: ${e}/${ref.length}\n    ref: ${ref.join(' ')}\n    hyp: ${hypWords.join(' ')}`);
      }
    }
    const cells = models.map((m) => {
      const t = tallies.get(m.name)!;
      return `${t.words ? `${((100 * t.errors) / t.words).toFixed(1)} %` : '—'} (${t.audio ? (t.cpu / t.audio).toFixed(2) : '—'})`;
    });
    console.log([name, set.items.length, words, ...cells].join('\t') + (set.missing ? `\t(${set.missing})` : ''));
    rows.push({ set: name, files: set.items.length, words, ...Object.fromEntries(models.map((m) => [m.name, tallies.get(m.name)])) });
  }
  console.log('\nconfidence medians (right words / wrong words; count):');
  for (const m of models) {
    const c = conf.get(m.name)!;
    console.log(`  ${m.name}: ${median(c.right).toFixed(3)} (${c.right.length}) / ${median(c.wrong).toFixed(3)} (${c.wrong.length})`);
  }
  for (const m of models.slice(1)) {
    const d = differing.get(m.name)!;
    console.log(`words identical to ${models[0]!.name}: ${m.name} on ${compared.get(m.name)! - d.length} of ${compared.get(m.name)} files${d.length ? ` (differs: ${d.join(', ')})` : ''}`);
    const w = drift.get(m.name)!;
    console.log(`  word edits from ${models[0]!.name}'s words: ${w.edits} of ${w.words} (${w.words ? ((100 * w.edits) / w.words).toFixed(1) : '—'} %)`);
  }
  console.log('safeguard events:');
  for (const m of models) if (notes.get(m.name)!.size) console.log(`  ${m.name}: ${[...notes.get(m.name)!].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  await transcriber.close();
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify({ node: process.version, cpu: cpu[0]?.model, cores: cpu.length, models: models.map((m) => m.name), rows, conf: Object.fromEntries(conf) }, null, 2));
}

await main();
