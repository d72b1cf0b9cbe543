/**
 * Sentiment benchmark (issue 20): the labelled customer-service sentences of bench/lib/sentiment-set.ts
 * spoken by several synthetic voices (espeak-ng, flite, festival), as telephone audio (8 kHz mu-law
 * through sox), transcribed by the real ASR (src/asr/transcriber.ts, model auto) and labelled by
 * src/analytics/sentiment.ts. Reports the confusion between positive, neutral and negative
 * (Positive + Mostly Positive count as positive, likewise negative) per voice and in all, beside the
 * text-only accuracy (the sentences themselves, as ASR would write them: lower case, no punctuation)
 * and plain VADER on the written text (the peers).
 *   nice node --import tsx bench/sentiment.ts [--voices espeak,espeak-f,flite,festival] [--set tuned|heldout|both] [--rate 8000] [--threads 2]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vader from 'vader-sentiment';
import { labelFor, scoreWords, type Sentiment } from '../src/analytics/sentiment.js';

/** Plain VADER on the raw text, without the rules of src/analytics/sentiment.ts: the peer. */
function plainVader(text: string): Sentiment {
  const score = vader.SentimentIntensityAnalyzer.polarity_scores(text).compound;
  return { label: labelFor(score), score: Math.round(score * 1000) / 1000 };
}
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWavBuffer } from '../src/stages/decode.js';
import { HELD_OUT_SET, type Polarity, SENTIMENT_SET } from './lib/sentiment-set.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const VOICES: Record<string, (text: string, out: string) => void> = {
  espeak: (text, out) => execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', out, text]),
  'espeak-f': (text, out) => execFileSync('espeak-ng', ['-v', 'en-us+f3', '-s', '150', '-w', out, text]),
  flite: (text, out) => execFileSync('flite', ['-voice', 'slt', '-t', text, '-o', out]),
  festival: (text, out) => execFileSync('text2wave', ['-o', out], { input: text }),
};
const voices = arg('voices', 'espeak,flite,festival').split(',');
const which = arg('set', 'tuned');
const rate = Number(arg('rate', '8000'));
const threads = Number(arg('threads', '2'));
const set = [...(which !== 'heldout' ? SENTIMENT_SET.map((s) => ({ ...s, set: 'tuned' })) : []), ...(which !== 'tuned' ? HELD_OUT_SET.map((s) => ({ ...s, set: 'heldout' })) : [])];

const polarity = (label: string): Polarity => (label.includes('Positive') ? 'positive' : label.includes('Negative') ? 'negative' : 'neutral');
const CLASSES: Polarity[] = ['positive', 'neutral', 'negative'];
type Matrix = Record<Polarity, Record<Polarity, number>>;
const matrix = (): Matrix => ({ positive: { positive: 0, neutral: 0, negative: 0 }, neutral: { positive: 0, neutral: 0, negative: 0 }, negative: { positive: 0, neutral: 0, negative: 0 } });
const accuracy = (m: Matrix) => {
  const all = CLASSES.reduce((n, t) => n + CLASSES.reduce((k, p) => k + m[t][p], 0), 0);
  return `${((100 * CLASSES.reduce((n, c) => n + m[c][c], 0)) / all).toFixed(1)} % of ${all}`;
};
const show = (title: string, m: Matrix) => {
  console.log(`\n${title}: accuracy ${accuracy(m)}\n  true \\ predicted  positive  neutral  negative`);
  for (const t of CLASSES) console.log(`  ${t.padEnd(17)}${CLASSES.map((p) => String(m[t][p]).padStart(9)).join(' ')}`);
};

console.log(`command: node --import tsx bench/sentiment.ts ${process.argv.slice(2).join(' ')}`.trim());
console.log(`node ${process.version}, ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`${set.length} sentences (${which}) × voices ${voices.join(', ')}; audio ${rate} Hz ${rate <= 8000 ? 'mu-law' : 'PCM'}; ASR model auto, ${threads} threads`);

// Text only: the peers.
for (const s of ['tuned', 'heldout']) {
  const part = set.filter((x) => x.set === s);
  if (part.length === 0) continue;
  const rules = matrix();
  const plain = matrix();
  for (const { text, label } of part) {
    rules[label][polarity(scoreWords(text.toLowerCase().replace(/[^a-z' ]/g, '').split(' ')).label)]++;
    plain[label][polarity(plainVader(text).label)]++;
  }
  show(`text only, ${s} set, voxdex rules on ASR-style text`, rules);
  show(`text only, ${s} set, plain VADER on the written text (peer)`, plain);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-bench-sentiment-'));
const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
const transcriber = createTranscriber({ config, log: silentLogger });
await transcriber.ready();
try {
  const total = matrix();
  let errors = 0;
  let words = 0;
  let audioSec = 0;
  const c0 = process.cpuUsage();
  for (const voice of voices) {
    const m = matrix();
    const jobs = set.map(async ({ text, label }, i) => {
      const raw = path.join(tmp, `${voice}-${i}.raw.wav`);
      const wav = path.join(tmp, `${voice}-${i}.wav`);
      VOICES[voice]!(text, raw);
      execFileSync('sox', ['-V1', raw, '-r', String(rate), '-c', '1', ...(rate <= 8000 ? ['-e', 'mu-law', '-b', '8'] : ['-b', '16']), wav, 'pad', '0.3', '0.3']);
      const audio = decodeWavBuffer(readFileSync(wav));
      const r = await transcriber.transcribe(audio, { source: wav });
      const hyp = r.utterances.flatMap((u) => u.events.map((e) => e.word));
      return { text, label, hyp, secs: audio.durationSec };
    });
    for (const { text, label, hyp, secs } of await Promise.all(jobs)) {
      const predicted = polarity(scoreWords(hyp).label);
      m[label][predicted]++;
      total[label][predicted]++;
      const ref = normalizeWords(text);
      errors += wordDistance(ref, normalizeWords(hyp.join(' ')));
      words += ref.length;
      audioSec += secs;
      if (process.argv.includes('--verbose')) console.log(`${voice}\t${label}\t${predicted}\t${hyp.join(' ')}\t| ${text}`);
    }
    show(`speech, voice ${voice}`, m);
  }
  const cpu = process.cpuUsage(c0);
  show(`speech, all voices (ASR WER ${((100 * errors) / words).toFixed(1)} % on these sentences; ${audioSec.toFixed(0)} s of audio, ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU)`, total);
} finally {
  await transcriber.close();
  rmSync(tmp, { recursive: true, force: true });
}
