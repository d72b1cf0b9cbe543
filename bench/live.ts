/**
 * Live calls under load: N clients stream real speech in real time over WebSockets to one voxdex
 * (in this process, VOXDEX_ASR_THREADS=2), N = 1, 2, 4, … For every utterance, the latency from the
 * end of its audio (its last word's end, in call time, mapped to the wall clock of the stream) to its
 * `utterance` message; p50/p95 per N; whether the calls kept up with real time (every call's result
 * within 10 s of its end). Then the peer: the batch path — each call uploaded whole when it ends
 * (POST /transcribe) — its time from upload to result, and the WER between the live transcript and
 * the batch transcript of the same audio (goal ≤ 2 %), and of each against the reference text.
 *
 * Calls (real speech only): Asterisk prompts of the held-out half (m–z; one professional speaker)
 * joined with 1 s pauses, 8 kHz mu-law; LibriVox's five readers (16 kHz) joined the same way; the
 * real meeting excerpts of /work/shared/audio/meetings (16 kHz, several voices) when present.
 *
 * CPU: process.cpuUsage (this process: server, ASR threads and clients) per level, and the load
 * average — the machine is shared.
 *
 * Each level runs without a redaction policy and under `scrubtext=true&redact=all` (`--policies`);
 * under the policy, what the hold adds to each utterance (its latency minus the same utterance's
 * without the policy) and which recognizer's reach caused it: the live transcript replayed
 * (bench/lib/live-hold-replay.ts) under each recognizer of the registry alone.
 *
 * Then the redaction cost of one release at 10, 100 and 1,000 utterances (src/redact/engine.ts: the
 * open tail), its output checked against the whole call's redaction first; the peer is redacting the
 * whole call so far at every release (what live calls did before), same calls, same run.
 * `--release-only` runs only that part (no ASR).
 *
 *   nice node --import tsx bench/live.ts [--levels 1,2,4] [--calls 6] [--policies none,all] [--release-only]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startInProcess, upload, waitResult, getJson } from '../test/e2e/harness.js';
import { ofType, streamCall, type LiveRun } from '../test/fixtures/live-client.js';
import { makeTempDir, removeDir } from '../test/fixtures/make-audio.js';
import { LiveRedaction } from '../src/redact/engine.js';
import { redactUtterances } from '../src/redact/redact.js';
import { RECOGNIZER_REGISTRY } from '../src/redact/registry.js';
import { REDACT_KINDS, type RedactKind, type Utterance } from '../src/types.js';
import { ASTERISK, DATA } from './lib/datasets.js';
import { HOLD_RULE, replayLive, withoutReach } from './lib/live-hold-replay.js';
import { longCall } from './lib/text-calls.js';
import { normalizeWords, wordDistance } from './lib/wer.js';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : def;
};
const LEVELS = arg('levels', '1,2,4').split(',').map(Number);
const CALLS = Number(arg('calls', '6'));
/** The request's redaction per policy. */
const POLICY_QUERY: Record<string, string> = { none: '', all: '&scrubtext=true&redact=all' };
const POLICIES = arg('policies', 'none,all').split(',');
const MEETINGS = '/work/shared/audio/meetings';

interface Call {
  id: string;
  file: string;
  ref: string;
  query: string;
  seconds: number;
}

function soxDuration(file: string): number {
  return Number(execFileSync('soxi', ['-D', file]).toString().trim());
}

/** Held-out Asterisk prompts joined into calls of about 30 s, 8 kHz mu-law. */
function asteriskCalls(dir: string, n: number): Call[] {
  const lines = gunzipSync(readFileSync('/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz')).toString('utf8').split('\n');
  const prompts: Array<{ file: string; text: string }> = [];
  for (const line of lines) {
    const m = /^([^;:\s][^:]*):\s*(.+)$/.exec(line.trim());
    if (!m || m[2]!.includes('[') || m[1]!.toLowerCase()[0]! < 'm') continue;
    const file = path.join(ASTERISK, `${m[1]}.wav`);
    if (existsSync(file) && soxDuration(file) > 1.5) prompts.push({ file, text: m[2]! });
  }
  prompts.sort((a, b) => (a.file < b.file ? -1 : 1));
  const calls: Call[] = [];
  for (let c = 0; c < n; c++) {
    const picked = Array.from({ length: 9 }, (_, i) => prompts[(c * 37 + i * 11) % prompts.length]!);
    const file = path.join(dir, `ast-${c}.wav`);
    const padded = picked.map((p, i) => {
      const f = path.join(dir, `p${c}-${i}.wav`);
      execFileSync('sox', ['-V1', p.file, '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed', f, 'pad', '0', '1.0']);
      return f;
    });
    execFileSync('sox', ['-V1', ...padded, '-e', 'u-law', '-b', '8', file, 'pad', '0.5', '1.0']);
    calls.push({ id: `asterisk-${c}`, file, ref: picked.map((p) => p.text).join(' '), query: 'encoding=mulaw&rate=8000&channels=1', seconds: soxDuration(file) });
  }
  return calls;
}

/** LibriVox's five readers joined with 1 s pauses, 16 kHz. */
function librivoxCall(dir: string): Call {
  const lv = path.join(DATA, 'librivox');
  const ids = readFileSync(path.join(lv, 'fileids'), 'utf8').split('\n').filter(Boolean);
  const refs = readFileSync(path.join(lv, 'transcription'), 'utf8').split('\n').filter(Boolean).map((r) => r.replace(/\([^)]+\)\s*$/, ''));
  const padded = ids.map((id, i) => {
    const f = path.join(dir, `lv-${i}.wav`);
    execFileSync('sox', ['-V1', path.join(lv, `${id}.wav`), f, 'pad', '0', '1.0']);
    return f;
  });
  const file = path.join(dir, 'librivox.wav');
  execFileSync('sox', ['-V1', ...padded, '-b', '16', '-e', 'signed', file]);
  return { id: 'librivox', file, ref: refs.join(' '), query: 'encoding=pcm16&rate=16000&channels=1', seconds: soxDuration(file) };
}

function meetingCalls(dir: string): Call[] {
  if (!existsSync(MEETINGS)) return [];
  return readdirSync(MEETINGS).filter((f) => f.endsWith('.wav')).sort().slice(0, 2).map((f) => {
    const file = path.join(dir, `meeting-${f}`);
    execFileSync('sox', ['-V1', path.join(MEETINGS, f), '-b', '16', '-e', 'signed', file]);
    return { id: `meeting-${f}`, file, ref: '', query: 'encoding=pcm16&rate=16000&channels=1', seconds: soxDuration(file) };
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const text = (utterances: any[]) => utterances.sort((a, b) => a.start - b.start).flatMap((u) => u.events.map((e: any) => e.word)).join(' ');
const werOf = (ref: string, hyp: string) => {
  const r = normalizeWords(ref);
  return { errors: wordDistance(r, normalizeWords(hyp)), words: r.length };
};

/** CPU seconds of `f` (this thread). */
function cpuOf(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

/**
 * The cost of one release at 10, 100 and 1,000 utterances of a scripted call (bench/lib/text-calls.ts,
 * redact=all): the engine's redaction of the open tail, after checking that every utterance it releases
 * reads as the whole call so far redacts it; the peer redacts the whole call so far at each release.
 */
function releaseCost(): void {
  const REPEAT = 5;
  const kinds: readonly RedactKind[] = REDACT_KINDS;
  const call = longCall(1000);
  // Warm: the name tagger's lexicon loads on first use, and the JIT.
  for (let i = 1; i <= 60; i++) new LiveRedaction(kinds).settle(call.slice(0, i), [i - 1], call[i - 1]!.end);
  const engine = new LiveRedaction(kinds);
  const pending: number[] = [];
  const at = new Map<number, { engine: number; peer: number; context: number }>();
  let checked = 0;
  for (let i = 0; i < call.length; i++) {
    pending.push(i);
    const so = call.slice(0, i + 1);
    const n = i + 1;
    let sent = new Map<number, Utterance>();
    const timed = [10, 100, 1000].some((m) => n > m - 10 && n <= m);
    // Once per release (asked again at once, the engine answers from its last answer without redacting).
    const t = cpuOf(() => (sent = engine.settle(so, pending, call[i]!.end)));
    for (const k of sent.keys()) pending.splice(pending.indexOf(k), 1);
    if (timed) {
      // Correctness first: what the engine released reads as the whole call so far redacts it.
      const whole = redactUtterances(so, kinds).utterances;
      for (const [k, u] of sent) if (JSON.stringify(u.events) !== JSON.stringify(whole[k]!.events)) throw new Error(`release at ${n}: utterance ${k} differs from the whole call's redaction`);
      checked += sent.size;
      const peer = cpuOf(() => {
        for (let k = 0; k < REPEAT; k++) redactUtterances(so, kinds);
      }) / REPEAT;
      const m = [10, 100, 1000].find((x) => n > x - 10 && n <= x)!;
      const r = at.get(m) ?? { engine: 0, peer: 0, context: 0 };
      at.set(m, { engine: r.engine + t / 10, peer: r.peer + peer / 10, context: Math.max(r.context, engine.contextSize) });
    }
  }
  console.log(`\nredaction per release (redact=all; CPU, the 10 releases up to each count, mean (the peer run 5 times each); ${checked} released utterances checked equal to the whole call's redaction):`);
  console.log('| utterances so far | engine (open tail) ms | utterances redacted | peer: whole call so far ms |');
  console.log('|---|---|---|---|');
  for (const [m, r] of at) console.log(`| ${m} | ${(r.engine * 1000).toFixed(2)} | ${r.context} | ${(r.peer * 1000).toFixed(2)} |`);
}

/**
 * Which recognizer holds: the live transcripts (as sent without a policy) replayed under redact=all,
 * the hold's p95 (seconds past the utterance's end) with every reach, and with each recognizer's reach
 * switched off in turn (and the words that would then leak).
 */
function holdCauses(transcripts: readonly Utterance[][]): string {
  const replay = () => {
    const runs = transcripts.map((t) => replayLive(t, REDACT_KINDS, HOLD_RULE));
    return `${pct(runs.flatMap((r) => r.waits), 95).toFixed(2)} s (${runs.reduce((n, r) => n + r.leaks.length, 0)} leaked)`;
  };
  return [`every reach ${replay()}`, ...RECOGNIZER_REGISTRY.map((r) => `without the reach of ${r.name} ${withoutReach(r, replay)}`)].join('; ');
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  console.log(`command: nice node --import tsx bench/live.ts ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpus[0]?.model} × ${cpus.length} cores; load average at start ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  releaseCost();
  if (process.argv.includes('--release-only')) return;
  const dir = makeTempDir('voxdex-bench-live-');
  const pool = [...asteriskCalls(dir, Math.max(1, CALLS - 1 - (existsSync(MEETINGS) ? 2 : 0))), librivoxCall(dir), ...meetingCalls(dir)];
  console.log(`calls: ${pool.map((c) => `${c.id} ${c.seconds.toFixed(1)} s`).join(', ')}`);
  const svc = await startInProcess(path.join(dir, 'data'), { VOXDEX_ASR_THREADS: '2', VOXDEX_RATE_LIMIT_PER_MIN: '0', VOXDEX_LIVE_MAX_CALLS: '64' });
  const token = (await svc.tenancy.change((t) => t.addCompany('bench', { org: 'calls', folder: 'live' }))).token;
  const ws = `${svc.url.replace('http', 'ws')}/transcribe/stream?token=${token}`;
  const liveText = new Map<string, string>();
  const rows: string[] = [];
  /** Latency of each utterance without a policy (level:call:start), the policy's hold against it, the transcripts sent. */
  const plain = new Map<string, number>();
  const holdRows: string[] = [];
  const sentAsIs = new Map<string, Utterance[]>();
  try {
    for (const n of LEVELS) for (const policy of POLICIES) {
      const calls = Array.from({ length: n }, (_, i) => pool[i % pool.length]!);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const runs = await Promise.all(calls.map((c, i) => new Promise<LiveRun>((r) => setTimeout(r, i * 300)).then(() => streamCall(`${ws}&${c.query}${POLICY_QUERY[policy]}`, c.file, { speed: 1 }))));
      const wall = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(c0);
      const lat: number[] = [];
      const tails: number[] = [];
      const holds: number[] = [];
      runs.forEach((r, i) => {
        for (const m of r.messages.filter((x) => x.message.type === 'utterance')) {
          const l = (m.at - (r.startedAt + m.message.end * 1000)) / 1000;
          lat.push(l);
          // Under the policy: what the hold added, against the same utterance of the same call without it.
          const key = `${n}:${i}:${m.message.start.toFixed(2)}`;
          if (policy === 'none') plain.set(key, l);
          else if (plain.has(key)) holds.push(l - plain.get(key)!);
        }
        const result = r.messages.find((x) => x.message.type === 'result');
        tails.push(result ? (result.at - r.endedAt) / 1000 : Infinity);
        if (result && !liveText.has(calls[i]!.id)) liveText.set(calls[i]!.id, text(ofType(r, 'utterance')));
        if (result && policy === 'none' && !sentAsIs.has(calls[i]!.id)) sentAsIs.set(calls[i]!.id, ofType(r, 'utterance').map((u: any) => ({ start: u.start, end: u.end, confidence: u.confidence, metadata: { channel: u.metadata.channel, uttid: 0 }, events: u.events })));
      });
      if (holds.length) holdRows.push(`| ${n} | ${holds.length} | ${pct(holds, 50).toFixed(2)} | ${pct(holds, 95).toFixed(2)} | ${Math.max(...holds).toFixed(2)} |`);
      const audio = calls.reduce((s, c) => s + c.seconds, 0);
      const cpuSec = (cpu.user + cpu.system) / 1e6;
      const keptUp = tails.every((t) => t < 10);
      rows.push(
        `| ${n} | ${policy} | ${lat.length} | ${pct(lat, 50).toFixed(2)} | ${pct(lat, 95).toFixed(2)} | ${Math.max(...lat).toFixed(2)} | ${pct(tails, 50).toFixed(2)} / ${Math.max(...tails).toFixed(2)} | ${keptUp ? 'yes' : 'no'} | ${(cpuSec / audio).toFixed(3)} | ${(cpuSec / wall).toFixed(2)} | ${os.loadavg()[0]!.toFixed(1)} |`,
      );
      console.log(rows[rows.length - 1]);
    }
    // The peer: the batch path, each call uploaded whole at its end.
    const batch: string[] = [];
    let live = { errors: 0, words: 0 };
    let liveRef = { errors: 0, words: 0 };
    let batchRef = { errors: 0, words: 0 };
    for (const c of pool) {
      const t0 = performance.now();
      const up = await upload(svc.url, { file: c.file, fields: { token } });
      const done = await waitResult(svc.url, token, up.body.requestid, 600_000);
      const doc = (await (await fetch(done.body as string)).json()) as any;
      const secs = (performance.now() - t0) / 1000;
      const b = text(doc.utterances);
      const l = liveText.get(c.id);
      if (l !== undefined) {
        const w = werOf(b, l);
        live = { errors: live.errors + w.errors, words: live.words + w.words };
        if (c.ref) {
          const lr = werOf(c.ref, l);
          const br = werOf(c.ref, b);
          liveRef = { errors: liveRef.errors + lr.errors, words: liveRef.words + lr.words };
          batchRef = { errors: batchRef.errors + br.errors, words: batchRef.words + br.words };
        }
        batch.push(`| ${c.id} | ${c.seconds.toFixed(1)} | ${secs.toFixed(2)} | ${((100 * w.errors) / Math.max(1, w.words)).toFixed(1)} % (${w.errors}/${w.words}) |`);
      }
    }
    console.log('\n| live calls N | redaction | utterances | latency p50 s | p95 s | max s | result after call end p50 / max s | kept up | CPU s per audio s | CPU cores busy | load 1 min |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    if (holdRows.length) {
      console.log('\nUnder scrubtext=true&redact=all, the hold (latency minus the same utterance\'s without the policy):');
      console.log('| live calls N | utterances | p50 s | p95 s | max s |');
      console.log('|---|---|---|---|---|');
      for (const r of holdRows) console.log(r);
      console.log(`hold p95, the live transcripts replayed (seconds past the utterance's end, decoding not counted): ${holdCauses([...sentAsIs.values()])}`);
    }
    console.log('\n| call | audio s | batch peer: upload → result s | WER live vs batch |');
    console.log('|---|---|---|---|');
    for (const r of batch) console.log(r);
    console.log(`\nWER live vs batch, all calls: ${((100 * live.errors) / Math.max(1, live.words)).toFixed(2)} % (${live.errors}/${live.words} words)`);
    console.log(`WER against the reference text (Asterisk + LibriVox): live ${((100 * liveRef.errors) / Math.max(1, liveRef.words)).toFixed(2)} %, batch ${((100 * batchRef.errors) / Math.max(1, batchRef.words)).toFixed(2)} % (${liveRef.words} words)`);
    console.log(`load average at end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    writeFileSync(path.join(os.tmpdir(), 'voxdex-bench-live.txt'), rows.join('\n'));
    void getJson;
  } finally {
    await svc.close();
    removeDir(dir);
  }
}

await main();
