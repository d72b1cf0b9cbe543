/**
 * WER and real-time factor per test set, through the whole ASR path (resample → segment → pool),
 * on real speech from Debian packages. Every registry model is measured the same way.
 *
 *   node --import tsx bench/wer.ts [--model NAME] [--hmm DIR] [--dict FILE] [--lm FILE] [--opt -flag=value]...
 *        [--registry FILE] [--sets a,b,...] [--limit N] [--threads N] [--json FILE] [--hyp]
 *
 * --hmm/--dict/--lm/--opt override the named model's files/flags (e.g. an adapted model directory).
 * --limit N keeps at most N files per Asterisk set (evenly spaced, by name; 0 = all). Default 40.
 * Sets: librivox cards goforward tidigits asterisk-tune asterisk-heldout asterisk-{tune,heldout}-{mulaw,alaw}
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createModelRegistry, loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio } from '../src/types.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const DATA = '/usr/share/pocketsphinx/test/data';
const ASTERISK = '/usr/share/asterisk/sounds/en_US_f_Allison';
const ASTERISK_TEXT = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';

interface Item {
  id: string;
  ref: string;
  load(): Promise<DecodedAudio>;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === `--${name}` && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-wer-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

function rawAudio(file: string, rate: number): DecodedAudio {
  const b = readFileSync(file);
  const pcm = new Int16Array(b.buffer, b.byteOffset, Math.floor(b.length / 2));
  const ch = Float32Array.from(pcm, (v) => v / 32768);
  return { format: { encoding: 'pcm_s16', sampleRate: rate, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / rate, warnings: [] };
}

/** The same audio as a G.711 WAV made by sox, decoded by voxdex's own WAV decoder. */
async function g711(file: string, law: 'u-law' | 'a-law'): Promise<DecodedAudio> {
  const out = path.join(tmp, `${law}-${path.basename(file)}`);
  execFileSync('sox', [file, '-e', law, '-b', '8', out]);
  try {
    return await decodeWav(out);
  } finally {
    rmSync(out, { force: true });
  }
}

function transcriptionSet(dir: string, listFile: string): Item[] {
  // "<s> text </s> (id)" per line
  return readFileSync(path.join(dir, listFile), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const id = /\(([^)]+)\)\s*$/.exec(line)![1]!;
      const file = path.join(dir, `${id}.wav`);
      return { id, ref: line.replace(/\([^)]+\)\s*$/, ''), load: () => decodeWav(file) };
    });
}

function asteriskItems(split: 'tune' | 'heldout', encoding: 'pcm' | 'mulaw' | 'alaw', limit: number): Item[] {
  const lines = gunzipSync(readFileSync(ASTERISK_TEXT)).toString('utf8').split('\n');
  const all: Item[] = [];
  for (const line of lines) {
    const m = /^([^;:\s][^:]*):\s*(.+)$/.exec(line.trim());
    if (!m) continue;
    const [, name, text] = m as unknown as [string, string, string];
    if (text.includes('[')) continue; // non-speech entries
    const file = path.join(ASTERISK, `${name}.wav`);
    if (!existsSync(file)) continue;
    const first = name.toLowerCase()[0]!;
    const isTune = first < 'm';
    if ((split === 'tune') !== isTune) continue;
    const load = encoding === 'pcm' ? () => decodeWav(file) : () => g711(file, encoding === 'mulaw' ? 'u-law' : 'a-law');
    all.push({ id: name, ref: text, load });
  }
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  if (!limit || all.length <= limit) return all;
  return Array.from({ length: limit }, (_, i) => all[Math.floor((i * all.length) / limit)]!);
}

function sets(limit: number): Record<string, () => Item[]> {
  const s: Record<string, () => Item[]> = {
    librivox: () => {
      const dir = path.join(DATA, 'librivox');
      const ids = readFileSync(path.join(dir, 'fileids'), 'utf8').split('\n').filter(Boolean);
      const refs = readFileSync(path.join(dir, 'transcription'), 'utf8').split('\n').filter(Boolean);
      return ids.map((id, i) => ({ id, ref: refs[i]!.replace(/\([^)]+\)\s*$/, ''), load: async () => decodeWav(path.join(dir, `${id}.wav`)) }));
    },
    cards: () => transcriptionSet(path.join(DATA, 'cards'), 'cards.transcription'),
    goforward: () => [{ id: 'goforward', ref: 'go forward ten meters', load: async () => rawAudio(path.join(DATA, 'goforward.raw'), 16000) }],
    tidigits: () => [{ id: 'dhd.2934z', ref: 'two nine three four zero', load: async () => rawAudio(path.join(DATA, 'tidigits', 'dhd.2934z.raw'), 16000) }],
  };
  for (const split of ['tune', 'heldout'] as const) {
    s[`asterisk-${split}`] = () => asteriskItems(split, 'pcm', limit);
    s[`asterisk-${split}-mulaw`] = () => asteriskItems(split, 'mulaw', limit);
    s[`asterisk-${split}-alaw`] = () => asteriskItems(split, 'alaw', limit);
  }
  return s;
}

const DEFAULT_SETS = 'librivox,cards,goforward,tidigits,asterisk-tune,asterisk-heldout,asterisk-heldout-mulaw,asterisk-heldout-alaw';

async function main() {
  const modelName = arg('model') ?? 'en-us';
  const limit = Number(arg('limit') ?? 40);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  const base = loadModelRegistry(arg('registry') ?? config.modelsFile);
  const spec = base.resolve(modelName, 16000);
  const options = { ...spec.options };
  for (const o of args('opt')) {
    const eq = o.indexOf('=');
    options[o.slice(0, eq)] = o.slice(eq + 1);
  }
  const file = (name: string, fallback: string) => (arg(name) === undefined ? fallback : path.resolve(arg(name)!));
  const tuned = { ...spec, hmm: file('hmm', spec.hmm), dict: file('dict', spec.dict), lm: file('lm', spec.lm), options };
  const registry = createModelRegistry({ default: tuned.name, models: [tuned] }, 'bench', '/');
  const transcriber = createTranscriber({ config, log: silentLogger, registry });
  await transcriber.ready();

  const cpu = os.cpus();
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpu[0]?.model} × ${cpu.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`model ${tuned.name}: hmm=${tuned.hmm} dict=${tuned.dict} lm=${tuned.lm} options=${JSON.stringify(tuned.options)}\n`);

  const all = sets(limit);
  const chosen = (arg('sets') ?? DEFAULT_SETS).split(',');
  const rows: Array<Record<string, string | number>> = [];
  const header = ['set', 'files', 'words', 'errors', 'WER', 'audio s', 'wall s', 'RTF wall', 'RTF cpu'];
  console.log(header.join('\t'));
  for (const name of chosen) {
    const make = all[name];
    if (!make) throw new Error(`unknown set ${name}; sets: ${Object.keys(all).join(', ')}`);
    const items = make();
    let errors = 0;
    let words = 0;
    let audioSec = 0;
    let wall = 0;
    let cpuSec = 0;
    // Files one after another; each file's utterances spread over the pool's threads.
    for (const item of items) {
      const audio = await item.load();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await transcriber.transcribe(audio, { model: tuned.name, source: item.id });
      wall += (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      cpuSec += (c.user + c.system) / 1e6;
      audioSec += audio.durationSec;
      const hyp = r.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' ');
      const ref = normalizeWords(item.ref);
      const e = wordDistance(ref, normalizeWords(hyp));
      errors += e;
      words += ref.length;
      if (process.argv.includes('--hyp')) console.log(`  ${item.id}: ${e}/${ref.length}\n    ref: ${ref.join(' ')}\n    hyp: ${hyp}`);
    }
    const row = {
      set: name,
      files: items.length,
      words,
      errors,
      WER: words ? +((100 * errors) / words).toFixed(1) : 0,
      audioSec: +audioSec.toFixed(1),
      wallSec: +wall.toFixed(1),
      rtfWall: +(wall / audioSec).toFixed(3),
      rtfCpu: +(cpuSec / audioSec).toFixed(3),
    };
    rows.push(row);
    console.log(Object.values(row).map((v, i) => (i === 4 ? `${v} %` : v)).join('\t'));
  }
  await transcriber.close();
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify({ model: tuned, node: process.version, cpu: cpu[0]?.model, cores: cpu.length, rows }, null, 2));
}

await main();
