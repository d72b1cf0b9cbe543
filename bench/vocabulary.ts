/**
 * Custom vocabulary (`vocab`): invented product names in sentences spoken by several synthetic voices
 * (espeak-ng, flite, festival; 16 kHz and through a phone line at 8 kHz mu-law), and names a real
 * voice says in the Asterisk prompts (Digium, Unistim, Waldo: words the model was never tuned on),
 * transcribed by the default model without and with the vocabulary, in the same run.
 *
 *   node --import tsx bench/vocabulary.ts [--threads 1] [--negatives 100] [--hyp] [--skip recall|negatives]
 *
 * - recall: occurrences of vocabulary phrases written exactly (case-insensitive) / occurrences said;
 * - false insertions: vocabulary phrases written on real speech that holds none of them (held-out
 *   Asterisk prompts m–z and the wideband set: real voices), per 1,000 reference words;
 * - WER on that real speech with and without the vocabulary (it should not move);
 * - CPU: the process's CPU seconds (process.cpuUsage: every ASR thread) spent transcribing without
 *   and with the vocabulary, over the same audio.
 * Correctness first: the sentences' words other than the vocabulary must come out (WER printed).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio } from '../src/types.js';
import { loadSet } from './lib/datasets.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (n: string) => {
  const i = process.argv.indexOf(`--${n}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

export const VOCAB = ['Zentrix', 'Quorvane', 'Blumetric', 'Kestrify', 'Velloria', 'Draxium', 'Omnivox', 'Lumora Cloud', 'Fernwick', 'Syntara', 'Paxilon', 'Trivendi'];
/** Names a real voice says (the Asterisk prompts' speaker): [prompt, name]. */
const REAL: Array<[string, string]> = [
  ['demo-abouttotry', 'Digium'],
  ['demo-instruct', 'Digium'],
  ['demo-nogo', 'Digium'],
  ['spy-unistim', 'Unistim'],
  ['basic-pbx-ivr-main', 'Waldo'],
];
const ALL_VOCAB = [...VOCAB, 'Digium', 'Unistim', 'Waldo'];
const ASTERISK = '/usr/share/asterisk/sounds/en_US_f_Allison';
const SENTENCES: Array<[string, string]> = [
  ['Zentrix', 'I would like to upgrade my Zentrix plan today.'],
  ['Quorvane', 'The Quorvane router keeps dropping the connection.'],
  ['Blumetric', 'Can you send me the Blumetric invoice again?'],
  ['Kestrify', 'We installed Kestrify on every laptop last week.'],
  ['Velloria', 'My Velloria account was charged twice this month.'],
  ['Draxium', 'The Draxium battery does not hold a charge.'],
  ['Omnivox', 'Please cancel the Omnivox subscription for my husband.'],
  ['Lumora Cloud', 'Our files are stored in Lumora Cloud now.'],
  ['Fernwick', 'I am calling about the Fernwick warranty.'],
  ['Syntara', 'The Syntara app crashes when I log in.'],
  ['Paxilon', 'Is the Paxilon service available in my area?'],
  ['Trivendi', 'I need to reset the password for Trivendi.'],
];
const VOICES: Array<{ name: string; synth: (text: string, out: string) => void }> = [
  { name: 'espeak-ng', synth: (t, o) => execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', o, t]) },
  { name: 'flite', synth: (t, o) => execFileSync('flite', ['-t', t, '-o', o]) },
  { name: 'festival', synth: (t, o) => execFileSync('text2wave', ['-eval', '(voice_kal_diphone)', '-o', o], { input: t }) },
];

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-vocab-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

async function clip(voice: (typeof VOICES)[number], text: string, i: number, tel: boolean): Promise<DecodedAudio> {
  const raw = path.join(tmp, `${voice.name}-${i}.wav`);
  voice.synth(text, raw);
  const out = path.join(tmp, `${voice.name}-${i}-${tel ? 'tel' : 'wb'}.wav`);
  execFileSync('sox', ['-V1', raw, ...(tel ? ['-r', '8000', '-e', 'u-law', '-b', '8'] : ['-r', '16000', '-e', 'signed', '-b', '16']), '-c', '1', out, ...(tel ? ['sinc', '300-3400'] : [])]);
  return decodeWav(out);
}

/** Occurrences of a phrase in written words (case-insensitive, punctuation ignored). */
function count(words: string[], phrase: string): number {
  const p = normalizeWords(phrase);
  let n = 0;
  for (let i = 0; i + p.length <= words.length; i++) if (p.every((w, j) => words[i + j] === w)) n++;
  return n;
}

const config = loadConfig({});
const threads = Number(arg('threads') ?? 1);
const t = createTranscriber({ config: { ...config, asrThreads: threads }, log: silentLogger, registry: loadModelRegistry(config.modelsFile) });
await t.ready();
const cpus = os.cpus();
console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`vocabulary (${VOCAB.length}): ${VOCAB.join(', ')}\n`);

const cpu = { without: 0, with: 0 };
const transcribe = async (audio: DecodedAudio, vocab?: string[]) => {
  const c0 = process.cpuUsage();
  const r = await t.transcribe(audio, { source: 'bench', vocab });
  const c = process.cpuUsage(c0);
  cpu[vocab ? 'with' : 'without'] += (c.user + c.system) / 1e6;
  return r.utterances.flatMap((u) => u.events.map((e) => e.word));
};

// ---- recall on sentences that hold a vocabulary phrase
const recall = { without: 0, with: 0, said: 0, exactSpelling: 0 };
const rest = { without: 0, with: 0, words: 0 };
const skip = arg('skip');
for (const voice of skip === 'recall' ? [] : VOICES) {
  for (const tel of [false, true]) {
    for (const [i, [term, sentence]] of SENTENCES.entries()) {
      const audio = await clip(voice, sentence, i, tel);
      const a = await transcribe(audio);
      const b = await transcribe(audio, ALL_VOCAB);
      const na = normalizeWords(a.join(' '));
      const nb = normalizeWords(b.join(' '));
      recall.said++;
      recall.without += Math.min(1, count(na, term));
      recall.with += Math.min(1, count(nb, term));
      if (b.join(' ').includes(term)) recall.exactSpelling++;
      // The sentence's other words: WER without the term on both sides.
      const ref = normalizeWords(sentence.replace(term, ' '));
      const strip = (ws: string[]) => normalizeWords(ws.join(' ').replace(new RegExp(term, 'i'), ' '));
      rest.words += ref.length;
      rest.without += wordDistance(ref, strip(na));
      rest.with += wordDistance(ref, strip(nb));
      if (process.argv.includes('--hyp')) console.log(`  ${voice.name}${tel ? ' tel' : ''} ${i}: without: ${a.join(' ')}\n      with:    ${b.join(' ')}`);
    }
  }
}
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`;
console.log(`recall (${recall.said} sentences: ${VOICES.map((v) => v.name).join(', ')}; 16 kHz and 8 kHz mu-law):`);
console.log(`  without vocabulary ${pct(recall.without, recall.said)}, with ${pct(recall.with, recall.said)} (written as spelled: ${recall.exactSpelling})`);
console.log(`  WER of the sentences' other words: without ${pct(rest.without, rest.words)}, with ${pct(rest.with, rest.words)} (${rest.words} words)`);

// ---- recall on a real voice saying names (the Asterisk prompts), 8 kHz as recorded
const real = { without: 0, with: 0, said: 0 };
for (const [prompt, term] of skip === 'recall' ? [] : REAL) {
  const audio = await decodeWav(path.join(ASTERISK, `${prompt}.wav`));
  const a = normalizeWords((await transcribe(audio)).join(' '));
  const words = await transcribe(audio, ALL_VOCAB);
  const b = normalizeWords(words.join(' '));
  real.said++;
  real.without += Math.min(1, count(a, term));
  real.with += Math.min(1, count(b, term));
  if (process.argv.includes('--hyp')) console.log(`  ${prompt}: without: ${a.join(' ')}\n      with:    ${words.join(' ')}`);
}
console.log(`recall on a real voice (${real.said} Asterisk prompts: ${REAL.map(([p, n]) => `${n} in ${p}`).join(', ')}):`);
console.log(`  without vocabulary ${pct(real.without, real.said)}, with ${pct(real.with, real.said)}`);

// ---- false insertions and WER on real speech without any vocabulary phrase
const neg = { words: 0, errWithout: 0, errWith: 0, inserted: 0, files: 0 };
const limit = Number(arg('negatives') ?? 100);
for (const set of skip === 'negatives' ? [] : ['ast-mz', 'wideband']) {
  for (const item of loadSet(set, tmp, limit).items) {
    const audio = await item.load();
    const ref = normalizeWords(item.ref);
    const a = normalizeWords((await transcribe(audio)).join(' '));
    const b = normalizeWords((await transcribe(audio, ALL_VOCAB)).join(' '));
    neg.files++;
    neg.words += ref.length;
    neg.errWithout += wordDistance(ref, a);
    neg.errWith += wordDistance(ref, b);
    for (const v of ALL_VOCAB) neg.inserted += Math.max(0, count(b, v) - count(ref, v));
    if (process.argv.includes('--hyp') && a.join(' ') !== b.join(' ')) console.log(`  ${set}/${item.id}: without: ${a.join(' ')}\n      with:    ${b.join(' ')}`);
  }
}
console.log(`real speech without vocabulary words (Asterisk m–z + wideband: ${neg.files} files, ${neg.words} words):`);
console.log(`  false insertions ${neg.inserted} (${((1000 * neg.inserted) / Math.max(1, neg.words)).toFixed(2)} per 1,000 words); WER without ${pct(neg.errWithout, neg.words)}, with ${pct(neg.errWith, neg.words)}`);
console.log(`CPU seconds transcribing (all of the above, every ASR thread): without vocabulary ${cpu.without.toFixed(1)}, with ${cpu.with.toFixed(1)} (${(cpu.with / Math.max(1e-9, cpu.without)).toFixed(2)}×)`);
await t.close();
