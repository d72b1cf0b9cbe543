/**
 * Readability of transcripts: how well each utterance's `text` (src/readable/) puts sentence starts,
 * capitals, full stops, question marks and commas where a written reference has them, beside the peer
 * "today's output in sentence case with a final full stop" (each utterance's event words, first letter
 * capital, "." at the end), and the word error rate of both against the events' (same run, same audio).
 *
 *   node --import tsx bench/readability.ts [--sets ast-mz,ast-mz-joined,synthetic] [--limit 0] [--threads N] [--show]
 *
 * Sets: ast-mz (the Asterisk prompts m–z, held out: one real speaker, texts with case and punctuation),
 * ast-mz-joined (the same prompts that end a sentence, three at a time, their own silence trimmed and
 * joined by 0.2 s of silence, under the segmenter's 0.4 s pause: several sentences in one utterance, as
 * a fluent caller's turn has them), ast-al (a–l:
 * where the rules were chosen), synthetic (the m–z texts read by espeak-ng and flite through
 * a phone line, 8 kHz mu-law: other voices, synthetic, never alone), wideband (LibriVox readers and
 * the other 16 kHz recordings: other real voices; their references are lower case without
 * punctuation, so only the defects below are counted there), meetings (the ten real 30 s meeting
 * excerpts of ../shared/audio/meetings, 2–4 speakers talking freely: no text reference, defects only). Only prompts whose reference is
 * punctuated count (". , ? !": "niner", "minutes" carry no punctuation to score); entries that are not
 * speech ("[tones]", "(silence)") are left out. Scores: bench/lib/readability-score.ts. Contenders:
 *   text      the `text` voxdex writes (Moonshine's written form, numbers, redaction rules);
 *   peer      today's output (the events' words) in sentence case with a final full stop.
 * Defects, with no reference (bench/lib/readability-score.ts countDefects): sentences that start in
 * lower case, a lower-case "i", double commas, unbalanced quotes, "to-day" forms.
 * CPU: process.cpuUsage() of the whole run (ASR threads included) and of the readable stage alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { defaultRequestOptions } from '../src/jobs/request-options.js';
import { silentLogger } from '../src/log.js';
import { numbersStage } from '../src/numbers/stage.js';
import { readableStage } from '../src/readable/stage.js';
import { utteranceText } from '../src/readable/utterance-text.js';
import { decodeWav } from '../src/stages/decode.js';
import type { FileWork, StageContext, Utterance } from '../src/types.js';
import { ASTERISK, loadSet, type Item } from './lib/datasets.js';
import { MEETING_IDS, meetingWav } from '../test/fixtures/meetings.js';
import { countDefects, f1, noDefects, score, scoredWords, type Counts, type Defects, type Scores } from './lib/readability-score.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-readability-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const CONTENDERS = ['text', 'peer'] as const;
type Contender = (typeof CONTENDERS)[number];
type Tally = Scores & { errors: number; words: number; defects: Defects };
const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0 });
const tally = (): Tally => ({ start: zero(), capital: zero(), stop: zero(), question: zero(), comma: zero(), marks: zero(), errors: 0, words: 0, defects: noDefects() });

/** Written, punctuated prompts only: not "[tones]" nor "(10 seconds of silence)", nor a bare "niner". */
const scorable = (item: Item) => !/^[([]/.test(item.ref.trim()) && /[.,?!]/.test(item.ref);

/** The held-out prompts' texts read by synthetic voices through a phone line (8 kHz mu-law, 300–3400 Hz). */
function syntheticItems(limit: number): Item[] {
  const lines = gunzipSync(readFileSync('/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz')).toString('utf8').split('\n');
  const texts = lines.flatMap((l) => {
    const m = /^([m-z][^:\s]*):\s*(.+)$/.exec(l.trim());
    return m && !/[[(]/.test(m[2]!) && /\s/.test(m[2]!.trim()) && /[.,?!]/.test(m[2]!) ? [{ id: m[1]!, ref: m[2]!.trim() }] : [];
  });
  const picked = limit && texts.length > limit ? Array.from({ length: limit }, (_, i) => texts[Math.floor((i * texts.length) / limit)]!) : texts;
  const voices: Array<[string, (text: string, out: string) => void]> = [
    ['espeak', (text, out) => execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', out, text])],
    ['flite', (text, out) => execFileSync('flite', ['-t', text, '-o', out])],
  ];
  return picked.flatMap(({ id, ref }, k) => {
    const [voice, say] = voices[k % voices.length]!;
    return [{
      id: `${voice}/${id}`,
      ref,
      load: async () => {
        const raw = path.join(tmp, `${voice}-${k}.wav`);
        const tel = path.join(tmp, `${voice}-${k}-tel.wav`);
        say(ref, raw);
        execFileSync('sox', ['-V1', raw, '-r', '8000', '-e', 'u-law', '-b', '8', tel, 'sinc', '300-3400']);
        try {
          return await decodeWav(tel);
        } finally {
          rmSync(raw, { force: true });
          rmSync(tel, { force: true });
        }
      },
    }];
  });
}

/** Held-out prompts that end a sentence, three at a time, trimmed and joined by 0.2 s of silence into one 8 kHz recording. */
function joinedItems(limit: number): Item[] {
  const prompts = loadSet('ast-mz', tmp, 0).items.filter(scorable).filter((i) => /[.?!]["')]*$/.test(i.ref.trim()));
  const groups: Item[][] = [];
  for (let k = 0; k + 3 <= prompts.length; k += 3) groups.push(prompts.slice(k, k + 3));
  const picked = limit && groups.length > limit ? groups.filter((_, i) => i % Math.ceil(groups.length / limit) === 0) : groups;
  return picked.map((g, n) => ({
    id: g.map((i) => i.id).join('+'),
    ref: g.map((i) => i.ref.trim()).join(' '),
    load: async () => {
      const out = path.join(tmp, `joined-${n}.wav`);
      const gap = path.join(tmp, 'gap.wav');
      execFileSync('sox', ['-V1', '-n', '-r', '8000', '-b', '16', '-c', '1', gap, 'trim', '0', '0.2']);
      const trimmed = g.map((i, k) => {
        const t = path.join(tmp, `joined-${n}-${k}.wav`);
        const trim = ['silence', '1', '0.02', '-45d'];
        execFileSync('sox', ['-V1', path.join(ASTERISK, `${i.id}.wav`), '-b', '16', t, ...trim, 'reverse', ...trim, 'reverse']);
        return t;
      });
      execFileSync('sox', ['-V1', ...trimmed.flatMap((t, k) => (k ? [gap, t] : [t])), out]);
      try {
        return await decodeWav(out);
      } finally {
        for (const f of [out, ...trimmed]) rmSync(f, { force: true });
      }
    },
  }));
}

/** Each contender's lines for one transcribed item (utterances in time order). */
function contenderLines(utterances: readonly Utterance[], raw: readonly Utterance[]): Record<Contender, string[]> {
  return {
    text: utterances.map((u) => u.text ?? '').filter(Boolean),
    // Today's output: the events' words; in sentence case with a final full stop (no written forms).
    peer: raw.map((u) => utteranceText(u.events.map(({ written: _w, ...e }) => e), { numtrans: true })).filter(Boolean),
  };
}

async function main() {
  const limit = Number(arg('limit') ?? 0);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  const transcriber = createTranscriber({ config, log: silentLogger });
  await transcriber.ready();
  const ctx: StageContext = { jobId: 'bench', signal: new AbortController().signal, log: silentLogger, config };
  const cpu = os.cpus();
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpu[0]?.model} × ${cpu.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);

  for (const set of (arg('sets') ?? 'ast-mz,ast-mz-joined,synthetic').split(',')) {
    const items =
      set === 'synthetic' ? syntheticItems(limit)
      : set === 'ast-mz-joined' ? joinedItems(limit)
      : set === 'meetings' ? MEETING_IDS.map((id) => ({ id, ref: '', load: () => decodeWav(meetingWav(id)) })).filter((_, i) => !limit || i < limit)
      : set === 'wideband' ? loadSet(set, tmp, 0).items.filter((_, i, all) => !limit || i % Math.ceil(all.length / limit) === 0)
      : loadSet(set, tmp, 0).items.filter(scorable).filter((_, i, all) => !limit || i % Math.ceil(all.length / limit) === 0);
    const tallies = Object.fromEntries(CONTENDERS.map((c) => [c, tally()])) as Record<Contender, Tally>;
    const events = { errors: 0, words: 0 };
    let audioSec = 0;
    let stageCpu = 0;
    const c0 = process.cpuUsage();
    for (const item of items) {
      const audio = await item.load();
      audioSec += audio.durationSec;
      const result = await transcriber.transcribe(audio, { source: item.id });
      const work: FileWork = { requestid: 'bench', source: item.id, options: defaultRequestOptions(), audio, result, summary: {}, warnings: [], started: '' };
      const numbered = await numbersStage(work, ctx);
      const s0 = process.cpuUsage();
      const readable = await readableStage(numbered, ctx);
      const s = process.cpuUsage(s0);
      stageCpu += (s.user + s.system) / 1e6;
      const refWords = scoredWords([item.ref]);
      const refNorm = normalizeWords(item.ref);
      const lines = contenderLines(readable.result.utterances, numbered.result.utterances);
      for (const c of CONTENDERS) {
        countDefects(lines[c], tallies[c].defects);
        tallies[c].errors += wordDistance(refNorm, normalizeWords(lines[c].join(' ')));
        tallies[c].words += refNorm.length;
        // wideband's references are lower case without punctuation, meetings have none: defects only
        if (scorable(item)) score(refWords, scoredWords(lines[c]), tallies[c]);
      }
      events.errors += wordDistance(refNorm, normalizeWords(numbered.result.utterances.flatMap((u) => u.events.map((e) => e.word)).join(' ')));
      events.words += refNorm.length;
      if (process.argv.includes('--show')) console.log(`  ${item.id}\n    ref:  ${item.ref}\n    text: ${lines.text.join(' | ')}\n    peer: ${lines.peer.join(' | ')}`);
    }
    const c = process.cpuUsage(c0);
    const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}` : '—');
    const counts = (t: Counts) => `${t.tp}/${t.fp}/${t.fn}`;
    console.log(`set ${set}: ${items.length} recordings, ${events.words} reference words, ${audioSec.toFixed(0)} s of audio; CPU ${((c.user + c.system) / 1e6 / audioSec).toFixed(3)} s per audio s (ASR included), readable stage ${(1000 * stageCpu).toFixed(1)} ms in all`);
    console.log(`  WER of the events (today's words, what search indexes): ${pct(events.errors / events.words)} %`);
    console.log(['  contender', 'sentence starts', 'capitals', 'full stops', 'question marks', '. and ? placed', 'commas', 'WER %'].join('\t'));
    for (const k of CONTENDERS) {
      const t = tallies[k];
      const cell = (c: Counts) => `${pct(f1(c))} (${counts(c)})`;
      console.log([`  ${k}`, cell(t.start), cell(t.capital), cell(t.stop), cell(t.question), cell(t.marks), cell(t.comma), pct(t.errors / t.words)].join('\t'));
    }
    console.log('  (F1 %, with true positives / false positives / misses)');
    console.log(['  defects', 'sentences', 'starting lower case', 'lower-case "i"', 'double commas', 'unbalanced quotes', 'to-day forms'].join('\t'));
    for (const k of CONTENDERS) {
      const d = tallies[k].defects;
      console.log([`  ${k}`, d.sentences, `${d.lowerStarts} (${pct(d.lowerStarts / Math.max(1, d.sentences))} %)`, d.strayI, d.doubleCommas, d.unbalancedQuotes, d.archaic].join('\t'));
    }
    console.log('');
  }
  await transcriber.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
