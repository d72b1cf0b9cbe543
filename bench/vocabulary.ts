/**
 * Custom vocabulary (`vocab`): invented product names and jargon, in sentences spoken by several
 * synthetic voices (espeak-ng, flite, festival; 16 kHz and through a phone line at 8 kHz mu-law),
 * transcribed by the default model without and with the vocabulary, in the same run.
 *
 *   node --import tsx bench/vocabulary.ts [--threads 1] [--negatives 40] [--hyp] [--skip recall|negatives]
 *
 * - recall: occurrences of vocabulary phrases written exactly (case-insensitive) / occurrences said;
 * - false insertions: vocabulary phrases written on real speech that holds none of them (held-out
 *   Asterisk prompts m–z and the wideband set: real voices), per 1,000 reference words;
 * - WER on that real speech with and without the vocabulary (it should not move).
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

const transcribe = async (audio: DecodedAudio, vocab?: string[]) => {
  const r = await t.transcribe(audio, { source: 'bench', vocab });
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
      const b = await transcribe(audio, VOCAB);
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

// ---- false insertions and WER on real speech without any vocabulary phrase
const neg = { words: 0, errWithout: 0, errWith: 0, inserted: 0, files: 0 };
const limit = Number(arg('negatives') ?? 40);
for (const set of skip === 'negatives' ? [] : ['ast-mz', 'wideband']) {
  for (const item of loadSet(set, tmp, limit).items) {
    const audio = await item.load();
    const ref = normalizeWords(item.ref);
    const a = normalizeWords((await transcribe(audio)).join(' '));
    const b = normalizeWords((await transcribe(audio, VOCAB)).join(' '));
    neg.files++;
    neg.words += ref.length;
    neg.errWithout += wordDistance(ref, a);
    neg.errWith += wordDistance(ref, b);
    for (const v of VOCAB) neg.inserted += count(b, v) - count(ref, v);
    if (process.argv.includes('--hyp') && a.join(' ') !== b.join(' ')) console.log(`  ${set}/${item.id}: without: ${a.join(' ')}\n      with:    ${b.join(' ')}`);
  }
}
console.log(`real speech without vocabulary words (Asterisk m–z + wideband: ${neg.files} files, ${neg.words} words):`);
console.log(`  false insertions ${neg.inserted} (${((1000 * neg.inserted) / Math.max(1, neg.words)).toFixed(2)} per 1,000 words); WER without ${pct(neg.errWithout, neg.words)}, with ${pct(neg.errWith, neg.words)}`);
await t.close();
