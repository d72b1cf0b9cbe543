/**
 * Personal data beyond card numbers (issue 25, docs/pii.md) on generated calls through the real ASR:
 * voxdex's redaction with every kind (redact=all) against the peer `compromise` alone (its people,
 * places, emails and phone numbers) on the same transcripts, in the same run.
 *
 *   node --import tsx bench/pii.ts [--calls 100] [--from 0] [--threads N] [--model auto] [--show N] [--cache DIR] [--live] [--misses]
 *
 * Calls (bench/lib/pii-calls.ts): stereo 8 kHz mu-law, agent on channel 0, caller on channel 1; names
 * from 522 first and last names of many origins, said whole, spelled (Allison's real letters),
 * corrected, a relative's name in passing, the agent's own name; addresses said whole or split over
 * turns; emails spoken or spelled; phone numbers whole or in three turns; dates of birth (real months
 * and ordinals, or synthetic); routing and account numbers; PINs; passport/licence numbers (letters +
 * digits); beside ordinary talk of places, dates, products and people (synthetic, and LibriVox
 * readers). Synthetic voices: espeak-ng (us, f3, gb), flite (kal, slt, awb, rms), festival kal.
 *
 * Scored per kind: recall = share of the entity's words removed (events of the entity's channel whose
 * middle lies in its recorded span); kept = share of the other words not redacted. CPU of numbers +
 * redaction per audio second against the ASR's (process CPU time, not wall). The ASR output of each
 * call is cached (--cache, default .cache/bench-pii): a rerun re-scores in seconds; delete the folder
 * (or change CACHE_VERSION) to transcribe again. The first run works from scratch.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { encodeG711, MULAW_TO_FLOAT } from '../src/audio/g711.js';
import { createTranscriber, type Transcriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import { decodeWav } from '../src/stages/decode.js';
import { REDACT_KINDS, type Utterance } from '../src/types.js';
import { BLANKET_RULE, HOLD_RULE, replayLive, withoutReach, type HoldRule } from './lib/live-hold-replay.js';
import { RECOGNIZER_REGISTRY } from '../src/redact/registry.js';
import { ALLISON, callScript, type EntityKind, type Part, type SyntheticVoice } from './lib/pii-calls.js';
import { emptyTally, tallyMisses, type MissTally } from './lib/pii-misses.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RATE = 8000;
/** Bumped when the calls' scripts or their synthesis change (the cache is then ignored). */
const CACHE_VERSION = 3;
const KINDS: readonly EntityKind[] = ['name', 'address', 'email', 'phone', 'dob', 'bank', 'pin', 'id'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-pii-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// ---------------------------------------------------------------- synthesis

let clipN = 0;
async function to8k(file: string): Promise<Float32Array> {
  const out = path.join(tmp, `c${clipN++}.wav`);
  execFileSync('sox', ['-V1', file, '-r', String(RATE), '-c', '1', '-e', 'signed', '-b', '16', out, 'sinc', '300-3400', 'norm', '-3']);
  const a = await decodeWav(out);
  rmSync(out);
  return a.channels[0]!;
}

async function synth(voice: SyntheticVoice, text: string): Promise<Float32Array> {
  const wav = path.join(tmp, `tts${clipN++}.wav`);
  if (voice === 'espeak-us') execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', wav, text]);
  else if (voice === 'espeak-f') execFileSync('espeak-ng', ['-v', 'en-us+f3', '-s', '145', '-w', wav, text]);
  else if (voice === 'espeak-gb') execFileSync('espeak-ng', ['-v', 'en-gb', '-s', '150', '-w', wav, text]);
  else if (voice.startsWith('flite-')) execFileSync('flite', ['-voice', voice.slice(6), '-t', text, '-o', wav]);
  else execFileSync('text2wave', ['-eval', '(voice_kal_diphone)', '-o', wav], { input: text });
  const pcm = await to8k(wav);
  rmSync(wav);
  return pcm;
}

const realCache = new Map<string, Float32Array>();
async function partAudio(p: Part): Promise<Float32Array[]> {
  if (!('real' in p)) return [await synth(p.voice, p.text)];
  const out: Float32Array[] = [];
  for (const f of p.real) {
    if (!realCache.has(f)) realCache.set(f, await to8k(f));
    out.push(realCache.get(f)!);
  }
  return out;
}

interface Entity {
  kind: EntityKind;
  channel: number;
  start: number;
  end: number;
}
interface CallResult {
  n: number;
  durationSec: number;
  entities: Entity[];
  words: Utterance[];
  asrCpu: number;
}

/** Synthesizes call n, mixes it to stereo mu-law, transcribes it. */
async function runCall(n: number, transcriber: Transcriber): Promise<CallResult> {
  const tracks: Array<Array<[number, Float32Array]>> = [[], []];
  const entities: Entity[] = [];
  let t = 0.3;
  for (const turn of callScript(n)) {
    for (const part of turn.parts) {
      const start = t;
      const clips = await partAudio(part);
      clips.forEach((pcm, i) => {
        tracks[turn.channel]!.push([t, pcm]);
        t += pcm.length / RATE + (i < clips.length - 1 ? 0.12 : 0.08);
      });
      if (part.kind) entities.push({ kind: part.kind, channel: turn.channel, start, end: t - 0.08 });
    }
    t += 0.5;
  }
  const frames = Math.ceil((t + 0.5) * RATE);
  const channels = tracks.map((clips) => {
    const ch = new Int16Array(frames);
    for (const [start, pcm] of clips) {
      const o = Math.round(start * RATE);
      for (let i = 0; i < pcm.length && o + i < frames; i++) ch[o + i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! * 32767)));
    }
    return Float32Array.from(encodeG711(ch, 'mulaw'), (b) => MULAW_TO_FLOAT[b]!);
  });
  const audio = { format: { encoding: 'mulaw' as const, sampleRate: RATE, channels: 2, bitsPerSample: 8 }, channels, durationSec: frames / RATE, warnings: [] };
  const c0 = process.cpuUsage();
  const r = await transcriber.transcribe(audio, { source: `pii-call-${n}`, model: arg('model') });
  const c = process.cpuUsage(c0);
  return { n, durationSec: audio.durationSec, entities, words: r.utterances, asrCpu: (c.user + c.system) / 1e6 };
}

// ---------------------------------------------------------------- the peer: compromise alone

interface Term {
  offset?: { start: number };
}
type Nlp = (text: string) => Record<'people' | 'places' | 'emails' | 'phoneNumbers', () => { json(o: { offset: boolean }): Array<{ terms: Term[] }> }>;

/** compromise/three on each utterance's text: its people, places, emails and phone numbers are redacted. */
function compromiseRedact(nlp: Nlp, utts: readonly Utterance[]): Utterance[] {
  return utts.map((u) => {
    const starts: number[] = [];
    let text = '';
    u.events.forEach((e, i) => {
      starts.push(text.length + (i > 0 ? 1 : 0));
      text += (i > 0 ? ' ' : '') + e.word;
    });
    const doc = nlp(text);
    const hit = new Set<number>();
    for (const m of ['people', 'places', 'emails', 'phoneNumbers'] as const) {
      for (const s of doc[m]().json({ offset: true })) {
        for (const term of s.terms) {
          if (!term.offset) continue;
          let k = starts.length - 1;
          while (k > 0 && starts[k]! > term.offset.start) k--;
          hit.add(k);
        }
      }
    }
    return { ...u, events: u.events.map((e, i) => (hit.has(i) ? { ...e, word: '[PII]', redacted: 'name' as const } : e)) };
  });
}

// ---------------------------------------------------------------- scoring

interface Score {
  words: Record<string, number>;
  removed: Record<string, number>;
  other: number;
  kept: number;
}
const score = (): Score => ({ words: {}, removed: {}, other: 0, kept: 0 });

function tally(s: Score, call: CallResult, utts: readonly Utterance[]): void {
  for (const u of utts) {
    for (const e of u.events) {
      const mid = (e.start + e.end) / 2;
      const ent = call.entities.find((x) => x.channel === u.metadata.channel && mid >= x.start - 0.1 && mid <= x.end + 0.1);
      if (ent) {
        s.words[ent.kind] = (s.words[ent.kind] ?? 0) + 1;
        if (e.redacted) s.removed[ent.kind] = (s.removed[ent.kind] ?? 0) + 1;
        continue;
      }
      if (call.entities.some((x) => x.channel === u.metadata.channel && mid >= x.start - 0.3 && mid <= x.end + 0.3)) continue;
      s.other++;
      if (!e.redacted) s.kept++;
    }
  }
}

/**
 * --live: each call replayed as a live call (bench/lib/live-hold-replay.ts) with redact=all, under the
 * engine's hold (src/redact/engine.ts) and under the rule before it; words sent unredacted that the
 * stored document redacts, words sent otherwise than stored, how long utterances waited, and the CPU of
 * the replay (the engine's redaction of the open tail at every arrival).
 */
function liveReport(results: readonly CallResult[], audioSecs: number): void {
  console.log('\n| live rule (redact=all) | utterances | words sent unredacted that the document redacts | words sent otherwise than stored | wait: median / p95 / max | CPU per audio s |');
  console.log('|---|---|---|---|---|---|');
  const rules: Array<[string, HoldRule]> = [['reaches (src/redact/engine.ts)', HOLD_RULE], ['before: every utterance 5 s', BLANKET_RULE]];
  for (const [name, rule] of rules) {
    const leaks: Record<string, number> = {};
    const waits: number[] = [];
    let differences = 0;
    const c0 = process.cpuUsage();
    for (const call of results) {
      const r = replayLive(call.words.map((u) => ({ ...u, events: normalizeNumbers(u.events) })), REDACT_KINDS, rule);
      for (const l of r.leaks) leaks[l.kind] = (leaks[l.kind] ?? 0) + 1;
      waits.push(...r.waits);
      differences += r.differences;
    }
    const c = process.cpuUsage(c0);
    waits.sort((a, b) => a - b);
    const q = (p: number) => waits[Math.min(waits.length - 1, Math.floor(p * waits.length))]!.toFixed(1);
    const leaked = Object.values(leaks).reduce((a, b) => a + b, 0);
    const byKind = Object.entries(leaks).map(([k, n]) => `${k} ${n}`).join(', ');
    console.log(`| ${name} | ${waits.length} | ${leaked}${byKind ? ` (${byKind})` : ''} | ${differences} | ${q(0.5)} / ${q(0.95)} / ${waits.at(-1)!.toFixed(1)} s | ${((c.user + c.system) / 1e6 / audioSecs).toExponential(2)} s |`);
  }
  // What the hold owes to each recognizer: the same replays with its reach switched off.
  for (const r of RECOGNIZER_REGISTRY) {
    const waits: number[] = [];
    let leaked = 0;
    withoutReach(r, () => {
      for (const call of results) {
        const x = replayLive(call.words.map((u) => ({ ...u, events: normalizeNumbers(u.events) })), REDACT_KINDS, HOLD_RULE);
        waits.push(...x.waits);
        leaked += x.leaks.length;
      }
    });
    waits.sort((a, b) => a - b);
    const q = (p: number) => waits[Math.min(waits.length - 1, Math.floor(p * waits.length))]!.toFixed(1);
    console.log(`| without the reach of ${r.name} | ${waits.length} | ${leaked} | — | ${q(0.5)} / ${q(0.95)} / ${waits.at(-1)!.toFixed(1)} s | — |`);
  }
}

/** --misses: the name and email words missed, by why (bench/lib/pii-misses.ts). */
function missReport(tallies: Record<'name' | 'email', MissTally>): void {
  for (const [kind, t] of Object.entries(tallies)) {
    const missed = Object.values(t.missed).reduce((a, b) => a + b, 0);
    console.log(`\n${kind}: ${t.entities} entities, ${t.lost} lost by the ASR entirely (no word in their span); ${t.words} words, ${missed} missed: ${Object.entries(t.missed).map(([c, n]) => `${c} ${n}`).join(', ')}`);
    for (const [c, list] of Object.entries(t.examples)) for (const e of list) console.log(`  ${c}: ${e}`);
  }
}

const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)} %`);

async function main() {
  const calls = Number(arg('calls') ?? 100);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const show = Number(arg('show') ?? 0);
  const cacheDir = arg('cache') ?? path.join(process.cwd(), '.cache', 'bench-pii');
  for (const f of [`${ALLISON}/letters/a.wav`, '/usr/share/pocketsphinx/test/data/librivox', '/usr/bin/espeak-ng', '/usr/bin/flite', '/usr/bin/text2wave']) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run bash scripts/test.sh once (test speech and voices)`);
  }
  // Correctness first: both contenders on a known transcript.
  const probe: Utterance[] = [{ start: 0, end: 3, confidence: 1, metadata: { channel: 1, uttid: 0 },
    events: 'my name is john smith'.split(' ').map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4, confidence: 1 })) }];
  const l0 = process.cpuUsage();
  redactUtterances(probe, ['name']);
  const load = process.cpuUsage(l0);
  const nlp = createRequire(import.meta.url)('compromise/three') as Nlp;
  const oursProbe = redactUtterances(probe, REDACT_KINDS).utterances[0]!.events.map((e) => e.word).join(' ');
  const peerProbe = compromiseRedact(nlp, probe)[0]!.events.map((e) => e.word).join(' ');
  if (oursProbe !== 'my name is [NAME] [NAME]' || peerProbe !== 'my name is [PII] [PII]') throw new Error(`self-check failed: "${oursProbe}" / "${peerProbe}"`);

  mkdirSync(cacheDir, { recursive: true });
  let transcriber: Transcriber | undefined;
  const cpu = os.cpus();
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpu[0]?.model} × ${cpu.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const results: CallResult[] = [];
  let transcribed = 0;
  // --from N: transcribe calls N… only (another process may fill the cache for the others at the same time).
  for (let n = Number(arg('from') ?? 0); n < calls; n++) {
    const file = path.join(cacheDir, `v${CACHE_VERSION}-${arg('model') ?? 'auto'}-${n}.json`);
    if (existsSync(file)) {
      results.push(JSON.parse(readFileSync(file, 'utf8')) as CallResult);
      continue;
    }
    if (!transcriber) {
      transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: String(threads) }), log: silentLogger });
      await transcriber.ready();
    }
    const r = await runCall(n, transcriber);
    writeFileSync(file, JSON.stringify(r));
    results.push(r);
    transcribed++;
    process.stderr.write(`\r${n + 1}/${calls} calls transcribed`);
  }
  await transcriber?.close();
  if (transcribed) process.stderr.write('\n');

  const ours = score();
  const peer = score();
  let audioSecs = 0;
  let asrCpu = 0;
  let oursCpu = 0;
  let peerCpu = 0;
  const REPEAT = 3;
  const misses = { name: emptyTally(), email: emptyTally() };
  for (const call of results) {
    audioSecs += call.durationSec;
    asrCpu += call.asrCpu;
    const c0 = process.cpuUsage();
    let red: Utterance[] = [];
    for (let k = 0; k < REPEAT; k++) red = redactUtterances(call.words.map((u) => ({ ...u, events: normalizeNumbers(u.events) })), REDACT_KINDS).utterances;
    const c = process.cpuUsage(c0);
    oursCpu += (c.user + c.system) / 1e6 / REPEAT;
    const p0 = process.cpuUsage();
    const peerRed = compromiseRedact(nlp, call.words);
    const p = process.cpuUsage(p0);
    peerCpu += (p.user + p.system) / 1e6;
    tally(ours, call, red);
    if (process.argv.includes('--misses')) {
      const texts = callScript(call.n).flatMap((turn) => turn.parts.filter((p) => p.kind).map((p) => p.text));
      const entities = call.entities.map((e, i) => ({ ...e, text: texts[i]! }));
      const asr = call.words.map((u) => ({ ...u, events: normalizeNumbers(u.events) }));
      for (const kind of ['name', 'email'] as const) tallyMisses(misses[kind], kind, entities, asr, red);
    }
    tally(peer, call, peerRed);
    if (call.n < show) {
      for (const u of red) console.log(`  call ${call.n} ch${u.metadata.channel} ${u.start.toFixed(1)}: ${u.events.map((e) => e.word).join(' ')}`);
    }
  }
  const count = (k: EntityKind) => results.filter((r) => r.entities.some((e) => e.kind === k)).length;
  console.log(`${results.length} calls, ${(audioSecs / 60).toFixed(1)} min of stereo 8 kHz mu-law (${KINDS.map((k) => `${count(k)} with ${k}`).join(', ')}); model ${arg('model') ?? 'auto'}\n`);
  console.log(`| kind | entity words | voxdex redact=all: removed | peer compromise alone: removed | goal |`);
  console.log('|---|---|---|---|---|');
  for (const k of KINDS) {
    const goal = k === 'name' || k === 'address' ? '≥ 90 %' : '≥ 95 %';
    console.log(`| ${k} | ${ours.words[k] ?? 0} | ${pct(ours.removed[k] ?? 0, ours.words[k] ?? 0)} | ${pct(peer.removed[k] ?? 0, peer.words[k] ?? 0)} | ${goal} |`);
  }
  console.log(`| other words kept | ${ours.other} | ${pct(ours.kept, ours.other)} (${ours.other - ours.kept} lost) | ${pct(peer.kept, peer.other)} (${peer.other - peer.kept} lost) | ≥ 97 % |`);
  if (process.argv.includes('--misses')) missReport(misses);
  if (process.argv.includes('--live')) liveReport(results, audioSecs);
  console.log(`\nCPU per audio second: ASR ${(asrCpu / audioSecs).toFixed(3)} s; voxdex numbers + redaction (all kinds) ${(oursCpu / audioSecs).toExponential(2)} s = ${((100 * oursCpu) / asrCpu).toFixed(2)} % of ASR (goal < 2 %); peer ${(peerCpu / audioSecs).toExponential(2)} s; compromise's first load ${((load.user + load.system) / 1e6).toFixed(2)} s once per process`);
}

await main();
