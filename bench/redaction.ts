/**
 * Numbers (numtrans) and redaction (scrubtext, scrubaudio) on generated payment calls through the
 * real ASR, against a naive per-utterance redactor (6+ digits in a row) in the same run.
 *
 *   node --import tsx bench/redaction.ts [--calls 60] [--first 0] [--threads N] [--model auto] [--show N] [--save FILE | --load FILE] [--dump DIR]
 *
 * Each call is stereo 8 kHz mu-law. Channel 0 is the agent, channel 1 the caller. Call n is of class
 * CLASSES[n % 10] (issue 24's ways a number escapes, beside the plain cases):
 *   card (four groups, sometimes one per turn with the agent's "okay" between; expiry; security
 *   code), ssn, phone; quantity (a card, then "three months ago I lost it"; an SSN, then "two people
 *   live here"), pause (the caller's "my card number is", then four groups 25 s apart), chatter (a
 *   real reader's sentence and the agent's "take your time" between the groups), misheard (the first
 *   group hurried and under noise), diarized (the caller's utterances under two diarization labels
 *   on one channel), pin ("what is your pin"), other-words ("the three digits on the back", "the
 *   last four digits of your social", "the long number on the front").
 * The sensitive parts are REAL voices: Asterisk's digit recordings (en_US_f_Allison/digits), a
 * TIDIGITS speaker (dhd.2934z: "two nine three four zero") and a cards speaker ("five five"); the
 * chatter is a LibriVox reader. Everything else — the agent's questions, amounts, dates, times,
 * harmless numbers, the caller's small talk — is synthetic: espeak-ng (two voices), flite (kal, slt,
 * awb), festival (kal diphone), in turn.
 *
 * Measured (docs/redaction.md):
 * - sensitive digits removed from the text: a digit said in a sensitive part and written (as a digit,
 *   a digit word or a homophone) by an event overlapping it that is not redacted counts as leaked;
 * - sensitive digits silenced in the audio (scrubaudio spans + margin cover ≥ 90 % of the recording);
 * - non-sensitive words kept: events outside the sensitive parts that were not redacted;
 * - numerals right when the words were right: the synthetic sentences with numbers whose words the
 *   ASR got exactly right, normalised, equal to the expected numeral text;
 * - CPU of numbers + redaction per audio second against the ASR's, same process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeG711, MULAW_TO_FLOAT } from '../src/audio/g711.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { DIGITS, HOMOPHONES, luhn, TEENS, TENS, wordKey } from '../src/numbers/lexicon.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import { silenceRanges } from '../src/redact/silence-audio.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio, Utterance, WordEvent } from '../src/types.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RATE = 8000;
const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison/digits';
const DATA = '/usr/share/pocketsphinx/test/data';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'voxdex-redaction-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// ---------------------------------------------------------------- voices

const VOICES = ['espeak-us', 'flite-kal', 'festival-kal', 'flite-slt', 'espeak-f', 'flite-awb'] as const;
type Voice = (typeof VOICES)[number];
const clipCache = new Map<string, Float32Array>();
let clipN = 0;

async function to8k(file: string, raw = false): Promise<Float32Array> {
  const out = path.join(tmp, `c${clipN++}.wav`);
  const input = raw ? ['-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', file] : [file];
  execFileSync('sox', ['-V1', ...input, '-r', String(RATE), '-c', '1', '-e', 'signed', '-b', '16', out, 'sinc', '300-3400', 'norm', '-3']);
  const a = await decodeWav(out);
  rmSync(out);
  return a.channels[0]!;
}

async function say(voice: Voice, text: string): Promise<Float32Array> {
  const key = `${voice}|${text}`;
  const hit = clipCache.get(key);
  if (hit) return hit;
  const wav = path.join(tmp, `tts${clipN++}.wav`);
  if (voice === 'espeak-us') execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', wav, text]);
  else if (voice === 'espeak-f') execFileSync('espeak-ng', ['-v', 'en-us+f3', '-s', '145', '-w', wav, text]);
  else if (voice.startsWith('flite-')) execFileSync('flite', ['-voice', voice.slice(6), '-t', text, '-o', wav]);
  else execFileSync('text2wave', ['-eval', '(voice_kal_diphone)', '-o', wav], { input: text });
  const pcm = await to8k(wav);
  rmSync(wav);
  clipCache.set(key, pcm);
  return pcm;
}

/** Real recordings of digits: Allison's digits, plus two other real speakers where they fit. */
async function realDigit(d: string): Promise<Float32Array> {
  const key = `real|${d}`;
  if (!clipCache.has(key)) clipCache.set(key, await to8k(path.join(ALLISON, `${d === 'o' ? 'oh' : d}.wav`)));
  return clipCache.get(key)!;
}
async function realClip(name: 'tidigits-29340' | 'cards-55'): Promise<Float32Array> {
  const key = `real|${name}`;
  if (!clipCache.has(key)) {
    clipCache.set(key, name === 'tidigits-29340' ? await to8k(path.join(DATA, 'tidigits', 'dhd.2934z.raw'), true) : await to8k(path.join(DATA, 'cards', '004.wav')));
  }
  return clipCache.get(key)!;
}

/** A LibriVox reader's sentence (real voice): chatter between digit groups. */
const CHATTER = ['sense_and_sensibility_01_austen_64kb-0880.wav', 'sense_and_sensibility_01_austen_64kb-0930.wav'];
async function realChatter(k: number): Promise<Float32Array> {
  const key = `chatter|${k % CHATTER.length}`;
  if (!clipCache.has(key)) clipCache.set(key, await to8k(path.join(DATA, 'librivox', CHATTER[k % CHATTER.length]!)));
  return clipCache.get(key)!;
}

/** A digit hurried (tempo 1.6) under pink noise at -18 dB: what the ASR mishears. */
async function hurriedDigit(d: string): Promise<Float32Array> {
  const key = `hurried|${d}`;
  if (!clipCache.has(key)) {
    const out = path.join(tmp, `h${clipN++}.wav`);
    const noise = path.join(tmp, `n${clipN++}.wav`);
    const src = path.join(ALLISON, `${d}.wav`);
    execFileSync('sox', ['-V1', src, '-r', String(RATE), noise, 'synth', 'pinknoise', 'vol', '-18dB']);
    execFileSync('sox', ['-V1', '-m', src, noise, '-r', String(RATE), '-c', '1', '-e', 'signed', '-b', '16', out, 'tempo', '1.6']);
    clipCache.set(key, await to8k(out));
    rmSync(out);
    rmSync(noise);
  }
  return clipCache.get(key)!;
}

// ---------------------------------------------------------------- calls

/** The classes of calls (docs/redaction.md, "Measured"): call n is of class CLASSES[n % CLASSES.length]. */
const CLASSES = ['card', 'ssn', 'phone', 'quantity', 'pause', 'chatter', 'misheard', 'diarized', 'pin', 'other-words'] as const;
type CallClass = (typeof CLASSES)[number];

interface Sensitive {
  channel: number;
  start: number;
  end: number;
  digits: number;
  cls: CallClass;
}
interface NumberItem {
  channel: number;
  start: number;
  end: number;
  words: string;
  expected: string;
}
interface Saved {
  call: Call;
  words: Utterance[];
  asrCpu: number;
}
interface Call {
  audio: DecodedAudio;
  sensitive: Sensitive[];
  numbers: NumberItem[];
  kinds: string[];
  cls: CallClass;
}

/** Harmless numbers said by synthetic voices: [words, the numeral text numtrans should write]. */
const HARMLESS: Array<[string, string]> = [
  ['your balance is forty two dollars and fifty cents', 'your balance is $42.50'],
  ['the payment is due on march third twenty twenty five', 'the payment is due on march 3rd 2025'],
  ['you ordered three items', 'you ordered three items'],
  ['we will call you back at two pm', 'we will call you back at 2 pm'],
  ['you get a discount of fifteen percent', 'you get a discount of 15%'],
  ['your appointment is at quarter past eight', 'your appointment is at 8:15'],
  ['the fee is one hundred twenty dollars', 'the fee is $120'],
  ['this is the second time you called', 'this is the second time you called'],
  ['the offer ends in nineteen ninety nine', 'the offer ends in 1999'],
  ['one of them was broken', 'one of them was broken'],
  ['no one told me about it', 'no one told me about it'],
  ['it arrived on the twenty first', 'it arrived on the 21st'],
];
const SMALL_TALK = ['yes that is right', 'thanks for your help', 'I want to go ahead with that', 'okay sounds good', 'let me check for you'];

function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

function cardNumber(rnd: () => number): string {
  const body = '4' + Array.from({ length: 14 }, () => Math.floor(rnd() * 10)).join('');
  for (let c = 0; c < 10; c++) if (luhn(body + c)) return body + c;
  throw new Error('unreachable');
}

async function makeCall(n: number): Promise<Call> {
  const rnd = rng(1000 + n * 7919);
  const tracks: Array<Array<[number, Float32Array]>> = [[], []];
  const sensitive: Sensitive[] = [];
  const numbers: NumberItem[] = [];
  let t = 0.3;
  const voice = (k: number) => VOICES[(n + k) % VOICES.length]!;
  const put = (channel: number, pcm: Float32Array, gap = 0.5) => {
    const start = t;
    tracks[channel]!.push([start, pcm]);
    t += pcm.length / RATE + gap;
    return [start, start + pcm.length / RATE] as const;
  };
  const agent = async (text: string) => put(0, await say(voice(0), text));
  const caller = async (text: string) => put(1, await say(voice(3), text));
  const cls = CLASSES[n % CLASSES.length]!;
  /** Digits read by real voices, a short pause between them; `gap` after the group. `hurried`: the misheard group. */
  const digits = async (ds: string, gap = 0.6, hurried = false) => {
    for (let i = 0; i < ds.length; i++) {
      if (!hurried && ds.startsWith('29340', i) && n % 3 === 0) {
        const [s, e] = put(1, await realClip('tidigits-29340'), 0.15);
        sensitive.push({ channel: 1, start: s, end: e, digits: 5, cls });
        i += 4;
        continue;
      }
      if (!hurried && ds.startsWith('55', i) && n % 4 === 1) {
        const [s, e] = put(1, await realClip('cards-55'), 0.15);
        sensitive.push({ channel: 1, start: s, end: e, digits: 2, cls });
        i += 1;
        continue;
      }
      const d = ds[i] === '0' && i > 0 && n % 2 === 0 && !hurried ? 'o' : ds[i]!;
      const [s, e] = put(1, hurried ? await hurriedDigit(d) : await realDigit(d), hurried ? 0.04 : 0.08 + rnd() * 0.2);
      sensitive.push({ channel: 1, start: s, end: e, digits: 1, cls });
    }
    t += gap;
  };
  const harmless = async (k: number) => {
    const [words, expected] = HARMLESS[k % HARMLESS.length]!;
    const [s, e] = await agent(words);
    numbers.push({ channel: 0, start: s, end: e, words, expected });
  };
  const digitString = (length: number) => Array.from({ length }, () => Math.floor(rnd() * 10)).join('');
  /** A card in four groups; `between(g)` runs after group g (0..2). */
  const card = async (gap: number, between?: (g: number) => Promise<void>, hurriedFirst = false) => {
    const number = cardNumber(rnd);
    for (let g = 0; g < 4; g++) {
      await digits(number.slice(g * 4, g * 4 + 4), gap, hurriedFirst && g === 0);
      if (g < 3) await between?.(g);
    }
  };

  const kinds: string[] = [];
  if (n % 2 === 0) await harmless(n);
  if (cls === 'card' || cls === 'diarized') {
    kinds.push('card');
    await agent('can I have the card number please');
    await caller('yes it is');
    await card(n % 4 < 2 ? 1.2 : 0.5, n % 4 < 2 ? (g) => agent(g === 1 ? 'okay go on' : 'okay').then(() => undefined) : undefined);
    if (n % 20 < 10) {
      await agent('and the expiry date');
      const month = 1 + Math.floor(rnd() * 12);
      await digits(String(month).padStart(2, '0') + String(26 + Math.floor(rnd() * 5)));
    }
    if (n % 20 >= 10 || n % 30 === 0) {
      await agent('and the security code on the back');
      await digits(digitString(3));
    }
  } else if (cls === 'ssn') {
    kinds.push('ssn');
    await agent('can you confirm your social security number');
    await digits(digitString(9));
  } else if (cls === 'phone') {
    kinds.push('phone');
    await agent('what is the best number to call you back on');
    await digits((n % 3 === 0 ? '29340' : '55' + Math.floor(rnd() * 1000).toString().padStart(3, '0')) + digitString(5));
  } else if (cls === 'quantity') {
    if (n % 20 < 10) {
      kinds.push('card');
      await caller('my card number is');
      await card(0.5);
      t += 0.7;
      await caller('three months ago I lost it');
    } else {
      kinds.push('ssn');
      await agent('can you confirm your social security number');
      await digits(digitString(9), 0.1);
      await caller('two people live here');
    }
  } else if (cls === 'pause') {
    kinds.push('card');
    await caller('my card number is');
    await card(25);
  } else if (cls === 'chatter') {
    kinds.push('card');
    await agent('can I have the card number please');
    await card(0.6, async (g) => {
      if (g !== 1) return;
      put(1, await realChatter(n), 0.8);
      await agent('no problem take your time');
    });
  } else if (cls === 'misheard') {
    kinds.push('card');
    await caller('my card number is');
    await card(0.7, undefined, true);
  } else if (cls === 'pin') {
    kinds.push('pin');
    await agent(n % 20 < 10 ? 'and what is your pin' : 'please say your passcode');
    await digits(digitString(n % 3 === 0 ? 6 : 4));
  } else {
    kinds.push('other-words');
    const k = Math.floor(n / CLASSES.length) % 3;
    if (k === 0) {
      await agent('and the three digits on the back');
      await digits(digitString(3));
    } else if (k === 1) {
      await agent('what are the last four digits of your social');
      await digits(digitString(4));
    } else {
      await agent('what is the long number on the front');
      await card(0.6);
    }
  }
  await caller(SMALL_TALK[n % SMALL_TALK.length]!);
  if (n % 2 === 1) await harmless(n + 5);

  // Mix to stereo through mu-law, as a call recorder writes it.
  const frames = Math.ceil((t + 0.5) * RATE);
  const channels = tracks.map((clips) => {
    const ch = new Int16Array(frames);
    for (const [start, pcm] of clips) {
      const o = Math.round(start * RATE);
      for (let i = 0; i < pcm.length && o + i < frames; i++) ch[o + i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! * 32767)));
    }
    return Float32Array.from(encodeG711(ch, 'mulaw'), (b) => MULAW_TO_FLOAT[b]!);
  });
  return {
    audio: { format: { encoding: 'mulaw', sampleRate: RATE, channels: 2, bitsPerSample: 8 }, channels, durationSec: frames / RATE, warnings: [] },
    sensitive, numbers, kinds, cls,
  };
}

// ---------------------------------------------------------------- scoring

/** Digits an event's word shows (numeral digits, digit words, tens, homophones). */
function shownDigits(word: string): number {
  if (/\d/.test(word)) return word.replace(/\D/g, '').length;
  const k = wordKey(word);
  if (k in DIGITS || k in HOMOPHONES) return 1;
  if (k in TEENS || k in TENS) return 2;
  return 0;
}

/** The peer: a naive redactor — in each utterance, a run of consecutive digit events (numerals or digit words) with 6+ digits. */
function naiveRedact(utts: readonly Utterance[]): Utterance[] {
  return utts.map((u) => {
    const events = u.events.slice();
    let i = 0;
    while (i < events.length) {
      let j = i;
      let d = 0;
      while (j < events.length && (/^\d+$/.test(events[j]!.word) || wordKey(events[j]!.word) in DIGITS || wordKey(events[j]!.word) === 'oh')) d += shownDigits(events[j++]!.word);
      if (d >= 6) for (let x = i; x < j; x++) events[x] = { ...events[x]!, word: '#', redacted: 'digits' } as WordEvent;
      i = Math.max(j, i + 1);
    }
    return { ...u, events };
  });
}

interface Score {
  digits: number;
  leaked: number;
  other: number;
  kept: number;
  audioDigits: number;
  audioSilenced: number;
  /** The same digit counts per class of call. */
  byClass: Map<CallClass, { digits: number; leaked: number; audioDigits: number; audioSilenced: number }>;
}
const score = (): Score => ({ digits: 0, leaked: 0, other: 0, kept: 0, audioDigits: 0, audioSilenced: 0, byClass: new Map() });
const classScore = (s: Score, cls: CallClass) => {
  if (!s.byClass.has(cls)) s.byClass.set(cls, { digits: 0, leaked: 0, audioDigits: 0, audioSilenced: 0 });
  return s.byClass.get(cls)!;
};

/**
 * The call as diarization with one voice split in two labels leaves it (class "diarized"): the
 * caller's utterances on channel 1 labelled C1S1, every third one C1S2.
 */
function splitLabels(utts: readonly Utterance[]): Utterance[] {
  let k = 0;
  return utts.map((u) => ({ ...u, metadata: { ...u.metadata, speaker: u.metadata.channel === 1 ? (k++ % 3 === 2 ? 'C1S2' : 'C1S1') : `C${u.metadata.channel}` } }));
}

function tally(s: Score, call: Call, utts: readonly Utterance[], spans: ReadonlyArray<{ start: number; end: number }> | undefined) {
  const events = utts.flatMap((u) => u.events.map((e) => ({ e, ch: u.metadata.channel })));
  for (const sp of call.sensitive) {
    s.digits += sp.digits;
    let leaked = 0;
    for (const { e, ch } of events) {
      const overlap = Math.min(e.end, sp.end) - Math.max(e.start, sp.start);
      if (ch === sp.channel && overlap > 0 && !e.redacted) leaked += shownDigits(e.word);
    }
    s.leaked += Math.min(sp.digits, leaked);
    const c = classScore(s, sp.cls);
    c.digits += sp.digits;
    c.leaked += Math.min(sp.digits, leaked);
  }
  const near = (ch: number, a: number, b: number) => call.sensitive.some((sp) => sp.channel === ch && (a + b) / 2 > sp.start - 0.3 && (a + b) / 2 < sp.end + 0.3);
  for (const { e, ch } of events) {
    if (near(ch, e.start, e.end)) continue;
    s.other++;
    if (!e.redacted) s.kept++;
  }
  if (spans) {
    const ranges = silenceRanges(spans, RATE, Math.ceil(call.audio.durationSec * RATE));
    for (const sp of call.sensitive) {
      const a = Math.floor(sp.start * RATE);
      const b = Math.ceil(sp.end * RATE);
      const covered = ranges.reduce((n, [x, y]) => n + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
      s.audioDigits += sp.digits;
      if (covered >= 0.9 * (b - a)) s.audioSilenced += sp.digits;
      const c = classScore(s, sp.cls);
      c.audioDigits += sp.digits;
      if (covered >= 0.9 * (b - a)) c.audioSilenced += sp.digits;
    }
  }
}

const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)} %`);

async function main() {
  const calls = Number(arg('calls') ?? 60);
  // --first N: the calls from number N on (other digits, voices in another turn): a set the rules were not tuned on.
  const first = Number(arg('first') ?? 0);
  const threads = Number(arg('threads') ?? os.availableParallelism());
  const show = Number(arg('show') ?? 0);
  for (const f of [ALLISON, path.join(DATA, 'tidigits', 'dhd.2934z.raw'), '/usr/bin/espeak-ng', '/usr/bin/flite', '/usr/bin/text2wave']) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run bash scripts/test.sh once (test speech and voices)`);
  }
  // Correctness first: the pure stages on known input.
  const check = redactUtterances([{ start: 0, end: 9, confidence: 1, metadata: { channel: 1, uttid: 0 },
    events: normalizeNumbers('four one one one one one one one one one one one one one one one'.split(' ').map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4, confidence: 1 }))) }]);
  if (check.utterances[0]!.events[0]!.word !== '################') throw new Error(`self-check failed: ${JSON.stringify(check.utterances[0]!.events)}`);

  const dump = arg('dump');
  if (dump) {
    // The calls as WAV files (to listen to), no ASR.
    for (let n = 0; n < calls; n++) {
      const call = await makeCall(n);
      const frames = call.audio.channels[0]!.length;
      const inter = new Int16Array(frames * 2);
      for (let i = 0; i < frames; i++) for (let c = 0; c < 2; c++) inter[i * 2 + c] = Math.round(call.audio.channels[c]![i]! * 32767);
      const raw = path.join(tmp, 'call.raw');
      writeFileSync(raw, inter);
      execFileSync('sox', ['-V1', '-t', 'raw', '-r', String(RATE), '-e', 'signed', '-b', '16', '-c', '2', raw, '-e', 'mu-law', '-b', '8', path.join(dump, `call-${n}.wav`)]);
    }
    return;
  }
  const config = loadConfig({ VOXDEX_ASR_THREADS: String(threads) });
  // --load FILE: the calls' references and ASR output saved by an earlier run with --save FILE
  // (re-scores a change to numbers or redaction in seconds; the ASR CPU is the saved one).
  const loaded = arg('load') ? (JSON.parse(readFileSync(arg('load')!, 'utf8')) as Saved[]) : undefined;
  const saved: Saved[] = [];
  const transcriber = loaded ? undefined : createTranscriber({ config, log: silentLogger });
  await transcriber?.ready();
  const cpu = os.cpus();
  console.log(`command: node ${process.execArgv.join(' ')} ${path.relative(process.cwd(), process.argv[1]!)} ${process.argv.slice(2).join(' ')}`);
  console.log(`node ${process.version}; ${cpu[0]?.model} × ${cpu.length} cores; ${threads} ASR threads; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const ours = { words: score(), numerals: score() };
  const peer = score();
  let audioSecs = 0;
  let asrCpu = 0;
  let oursCpu = 0;
  let peerCpu = 0;
  let numRight = 0;
  let numWordsRight = 0;
  let numItems = 0;
  const REPEAT = 20;
  const kinds = new Map<string, number>();
  const wall0 = Date.now();
  for (let n = 0; n < calls; n++) {
    let call: Call;
    let words: Utterance[];
    if (loaded) {
      const l = loaded[n]!;
      call = { ...l.call, audio: { ...l.call.audio, channels: [] } };
      words = l.call.cls === 'diarized' ? splitLabels(l.words) : l.words;
      audioSecs += call.audio.durationSec;
      asrCpu += l.asrCpu;
    } else {
      call = await makeCall(first + n);
      audioSecs += call.audio.durationSec;
      const c0 = process.cpuUsage();
      const r = await transcriber!.transcribe(call.audio, { source: `call-${n}`, model: arg('model') });
      const c = process.cpuUsage(c0);
      asrCpu += (c.user + c.system) / 1e6;
      words = r.utterances;
      saved.push({ call: { ...call, audio: { ...call.audio, channels: [] } }, words, asrCpu: (c.user + c.system) / 1e6 });
      if (call.cls === 'diarized') words = splitLabels(words);
    }
    for (const k of call.kinds) kinds.set(k, (kinds.get(k) ?? 0) + 1);

    // numbers + redaction, timed over REPEAT runs (one run is below the clock's resolution).
    const o0 = process.cpuUsage();
    let numerals: Utterance[] = [];
    let red = redactUtterances(words);
    for (let k = 0; k < REPEAT; k++) {
      numerals = words.map((u) => ({ ...u, events: normalizeNumbers(u.events) }));
      red = redactUtterances(numerals);
    }
    const o = process.cpuUsage(o0);
    oursCpu += (o.user + o.system) / 1e6 / REPEAT;
    const redWords = redactUtterances(words);
    tally(ours.numerals, call, red.utterances, red.spans);
    tally(ours.words, call, redWords.utterances, redWords.spans);
    const p0 = process.cpuUsage();
    let naive: Utterance[] = [];
    for (let k = 0; k < REPEAT; k++) naive = naiveRedact(numerals);
    const p = process.cpuUsage(p0);
    peerCpu += (p.user + p.system) / 1e6 / REPEAT;
    tally(peer, call, naive, naive.flatMap((u) => u.events.filter((e) => e.redacted)));

    for (const item of call.numbers) {
      numItems++;
      const evs = words.filter((u) => u.metadata.channel === item.channel).flatMap((u) => u.events).filter((e) => e.end > item.start && e.start < item.end);
      const heard = evs.map((e) => wordKey(e.word)).join(' ');
      if (heard !== item.words) continue;
      numWordsRight++;
      const written = normalizeNumbers(evs).map((e) => wordKey(e.word).replace(/'/g, '')).join(' ');
      if (written === item.expected) numRight++;
      else if (show > 0) console.log(`  numerals: "${item.words}" → "${written}" (expected "${item.expected}")`);
    }
    if (n < show) {
      for (const u of red.utterances) console.log(`  call ${n} ch${u.metadata.channel} ${u.start.toFixed(1)}: ${u.events.map((e) => e.word).join(' ')}`);
    }
    process.stderr.write(`\r${n + 1}/${calls} calls`);
  }
  process.stderr.write('\n');
  await transcriber?.close();
  if (arg('save')) writeFileSync(arg('save')!, JSON.stringify(saved));

  console.log(`${calls} calls, ${(audioSecs / 60).toFixed(1)} min of stereo 8 kHz mu-law (${[...kinds].map(([k, v]) => `${v} with ${k}`).join(', ')}); model ${arg('model') ?? 'auto'}; wall ${((Date.now() - wall0) / 1000).toFixed(0)} s\n`);
  const rows: Array<[string, Score, number]> = [
    ['voxdex numtrans=true + scrubtext', ours.numerals, oursCpu],
    ['voxdex numtrans=false + scrubtext', ours.words, NaN],
    ['peer: naive 6+ digits per utterance', peer, peerCpu],
  ];
  console.log('| redactor | sensitive digits removed (text) | silenced (audio, spans + 0.25 s) | non-sensitive words kept | CPU s per audio s (% of ASR) |');
  console.log('|---|---|---|---|---|');
  for (const [name, s, c] of rows) {
    const cpuCell = Number.isNaN(c) ? '—' : `${(c / audioSecs).toExponential(2)} (${((100 * c) / asrCpu).toFixed(3)} %)`;
    console.log(`| ${name} | ${pct(s.digits - s.leaked, s.digits)} (${s.leaked} of ${s.digits} leaked) | ${pct(s.audioSilenced, s.audioDigits)} | ${pct(s.kept, s.other)} (${s.other - s.kept} of ${s.other} lost) | ${cpuCell} |`);
  }
  console.log('\nPer class (sensitive digits; goal ≥ 99.5 % removed on every class):\n');
  console.log('| class | calls | digits | voxdex removed (text, numtrans=true) | voxdex silenced (audio) | voxdex removed (numtrans=false) | peer removed (text) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const cls of CLASSES) {
    const o = ours.numerals.byClass.get(cls);
    if (!o) continue;
    const w = ours.words.byClass.get(cls)!;
    const p = peer.byClass.get(cls)!;
    const count = (loaded ?? saved).filter((x) => x.call.cls === cls).length;
    console.log(`| ${cls} | ${count} | ${o.digits} | ${pct(o.digits - o.leaked, o.digits)} (${o.leaked} leaked) | ${pct(o.audioSilenced, o.audioDigits)} | ${pct(w.digits - w.leaked, w.digits)} | ${pct(p.digits - p.leaked, p.digits)} |`);
  }
  console.log(`\nnumerals right when the words were right: ${pct(numRight, numWordsRight)} (${numRight} of ${numWordsRight}; words right in ${numWordsRight} of ${numItems} sentences)`);
  console.log(`ASR: ${(asrCpu / audioSecs).toFixed(3)} CPU s per audio s`);
}

await main();
