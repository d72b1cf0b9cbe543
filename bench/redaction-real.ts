/**
 * Harmless words kept on REAL voices (docs/redaction.md, "Measured"): bench/redaction.ts measures the
 * words kept around the sensitive parts on synthetic voices; here the ASR transcribes real speech that
 * holds nothing to redact, and numbers + redaction (the default kinds, and every kind: redact=all)
 * must keep its words. Beside it, the naive peer of bench/redaction.ts (6+ digits in a row per
 * utterance) on the same transcripts.
 *
 *   node --import tsx bench/redaction-real.ts [--limit 200] [--save FILE | --load FILE]
 *
 * Sets (none tuned on by the redaction rules): the real meetings (10 × 30 s, 2–4 speakers, telephone
 * band: 8 kHz mu-law), Asterisk's held-out prompts (names m–z, mu-law; prompts with numbers and IVR
 * questions such as "please enter your account number"), LibriVox readers, the cards speaker,
 * goforward and a TIDIGITS speaker through the telephone band (wb-tel). Each meeting or recording is
 * one call. Every redacted word is printed, to be judged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { DIGITS, wordKey } from '../src/numbers/lexicon.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import { REDACT_KINDS, type Utterance, type WordEvent } from '../src/types.js';
import { loadSet } from './lib/datasets.js';
import { closeMeetingAsr, loadMeetings } from './lib/meetings.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};

interface Call {
  set: string;
  id: string;
  audioSec: number;
  asrCpu: number;
  utterances: Utterance[];
}

/** The peer: per utterance, a run of consecutive digit events holding 6+ digits becomes '#'. */
function naiveRedact(utts: readonly Utterance[]): Utterance[] {
  const digits = (w: string) => (/^\d+$/.test(w) ? w.length : wordKey(w) in DIGITS || wordKey(w) === 'oh' ? 1 : 0);
  return utts.map((u) => {
    const events = u.events.slice();
    for (let i = 0; i < events.length; ) {
      let j = i;
      let d = 0;
      while (j < events.length && digits(events[j]!.word) > 0) d += digits(events[j++]!.word);
      if (d >= 6) for (let x = i; x < j; x++) events[x] = { ...events[x]!, word: '#', redacted: 'digits' } as WordEvent;
      i = Math.max(j, i + 1);
    }
    return { ...u, events };
  });
}

async function transcribeCalls(limit: number): Promise<Call[]> {
  const calls: Call[] = [];
  for (const m of await loadMeetings(['8k'])) {
    calls.push({ set: 'meetings (8 kHz mu-law)', id: m.id, audioSec: m.audio.durationSec, asrCpu: m.asrCpu ?? NaN, utterances: m.asr.utterances });
  }
  await closeMeetingAsr();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-redaction-real-'));
  const transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '1' }), log: silentLogger });
  await transcriber.ready();
  try {
    for (const [set, label] of [['ast-mz-mulaw', 'Asterisk prompts m–z (mu-law)'], ['wb-tel', 'LibriVox, cards, TIDIGITS (telephone band)']] as const) {
      for (const item of loadSet(set, tmp, limit).items) {
        const audio = await item.load();
        const c0 = process.cpuUsage();
        const r = await transcriber.transcribe(audio, { source: item.id, model: 'auto' });
        const c = process.cpuUsage(c0);
        calls.push({ set: label, id: item.id, audioSec: audio.durationSec, asrCpu: (c.user + c.system) / 1e6, utterances: r.utterances });
      }
    }
  } finally {
    await transcriber.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return calls;
}

const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)} %`);

async function main() {
  const limit = Number(arg('limit') ?? 200);
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${os.cpus()[0]?.model} × ${os.cpus().length} cores; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const calls = arg('load') ? (JSON.parse(readFileSync(arg('load')!, 'utf8')) as Call[]) : await transcribeCalls(limit);
  if (arg('save')) writeFileSync(arg('save')!, JSON.stringify(calls));
  // Correctness first: a card in the middle of real speech is still redacted.
  const probe = redactUtterances([{ start: 0, end: 9, confidence: 1, metadata: { channel: 0, uttid: 0 }, events: normalizeNumbers('my card is 4111 1111 1111 1111'.split(' ').map((word, i) => ({ word, start: i * 0.4, end: i * 0.4 + 0.3, confidence: 1 }))) }]);
  if (!probe.utterances[0]!.events.some((e) => e.redacted === 'card')) throw new Error('self-check failed: the probe card was kept');
  // Warm-up (a service's first call loads the name tagger once): not timed.
  redactUtterances(probe.utterances, REDACT_KINDS);

  const rows = new Map<string, { calls: number; audio: number; words: number; lost: Record<string, number> }>();
  const lostWords: string[] = [];
  let cpu = 0;
  let cpuAll = 0;
  let asrCpu = 0;
  let audio = 0;
  for (const call of calls) {
    const row = rows.get(call.set) ?? { calls: 0, audio: 0, words: 0, lost: { default: 0, all: 0, peer: 0 } };
    rows.set(call.set, row);
    row.calls++;
    row.audio += call.audioSec;
    audio += call.audioSec;
    asrCpu += call.asrCpu;
    row.words += call.utterances.reduce((n, u) => n + u.events.length, 0);
    const c0 = process.cpuUsage();
    const numerals = call.utterances.map((u) => ({ ...u, events: normalizeNumbers(u.events) }));
    const byDefault = redactUtterances(numerals).utterances;
    const c1 = process.cpuUsage();
    const ours = { default: byDefault, all: redactUtterances(numerals, REDACT_KINDS).utterances };
    const c2 = process.cpuUsage();
    cpu += (c1.user - c0.user + c1.system - c0.system) / 1e6;
    cpuAll += (c2.user - c0.user + c2.system - c0.system) / 1e6;
    const redacted = (utts: readonly Utterance[]) => utts.flatMap((u) => u.events).filter((e) => e.redacted);
    const original = numerals.flatMap((u) => u.events);
    for (const [name, utts] of [...Object.entries(ours), ['peer', naiveRedact(numerals)]] as Array<[string, Utterance[]]>) {
      const gone = redacted(utts);
      // Numerals count as the words they stand for ("4111" stood for four words said).
      row.lost[name] = (row.lost[name] ?? 0) + gone.length;
      if (name !== 'peer' && gone.length) {
        const said = original.filter((e) => gone.some((g) => g.start === e.start && g.end === e.end)).map((e) => e.word);
        lostWords.push(`${call.set} ${call.id} (${name}): ${said.join(' ')} → ${gone.map((g) => `${g.word}:${g.redacted}`).join(' ')}`);
      }
    }
  }
  console.log(`\n${calls.length} calls, ${(audio / 60).toFixed(1)} min of real speech; ASR ${Number.isNaN(asrCpu) ? 'partly cached' : `${(asrCpu / audio).toFixed(3)} CPU s per audio s`}\n`);
  console.log('| set | calls | audio | words (after numbers) | voxdex kept (default kinds) | voxdex kept (redact=all) | peer kept (naive 6+) |');
  console.log('|---|---|---|---|---|---|---|');
  const total = { calls: 0, audio: 0, words: 0, lost: { default: 0, all: 0, peer: 0 } as Record<string, number> };
  for (const [set, r] of rows) {
    console.log(`| ${set} | ${r.calls} | ${(r.audio / 60).toFixed(1)} min | ${r.words} | ${pct(r.words - r.lost.default!, r.words)} | ${pct(r.words - r.lost.all!, r.words)} | ${pct(r.words - r.lost.peer!, r.words)} |`);
    total.calls += r.calls;
    total.audio += r.audio;
    total.words += r.words;
    for (const k of Object.keys(total.lost)) total.lost[k]! += r.lost[k] ?? 0;
  }
  console.log(`| all | ${total.calls} | ${(total.audio / 60).toFixed(1)} min | ${total.words} | ${pct(total.words - total.lost.default!, total.words)} (${total.lost.default} lost) | ${pct(total.words - total.lost.all!, total.words)} (${total.lost.all} lost) | ${pct(total.words - total.lost.peer!, total.words)} (${total.lost.peer} lost) |`);
  const share = (c: number) => `${(c / audio).toExponential(2)} CPU s per audio s${Number.isNaN(asrCpu) ? '' : ` (${((100 * c) / asrCpu).toFixed(3)} % of the ASR's)`}`;
  console.log(`\nnumbers + redaction, default kinds: ${share(cpu)}; numbers + redaction with redact=all: ${share(cpuAll)}`);
  console.log(`\nRedacted words (said → written:kind):\n${lostWords.map((l) => `- ${l}`).join('\n') || '(none)'}`);
}

await main();
