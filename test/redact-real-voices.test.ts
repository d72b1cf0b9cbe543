/**
 * Issue 33 items 2 and 3 on real recorded voices through the real ASR: a caller (Allison's real digit,
 * letter and prompt recordings, 8 kHz) reads a card in four groups with chatter between and nothing
 * asked before it (the cue lost, as when the ASR wrote "car number"), then an SSN in three pieces; and
 * spells a surname slowly, a letter every 2 s, after the agent's "can you spell your surname". The
 * agent (channel 0) is espeak-ng. Every digit's recording lies inside a redacted span of the caller's
 * channel (what the audio stage silences) and no digit is left in the text; every letter heard is a
 * name. (The ASR drops Allison's spelled "o" altogether: no word marks it, so no span covers it —
 * docs/pii.md, "misses".)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { normalizeNumbers } from '../src/numbers/normalize.js';
import { redactUtterances } from '../src/redact/redact.js';
import { decodeWav } from '../src/stages/decode.js';
import type { DecodedAudio, Utterance } from '../src/types.js';
import { DIGITS, LETTERS } from './fixtures/redaction-call.js';

const ALLISON = path.dirname(DIGITS);
const RATE = 8000;
const CARD = '5425233430109903';
const SSN = '537218846';
const SURNAME = 'okonkwo';
const test = suite('redaction on real voices: no cue, chatter, slow spelling (issue 33)');
const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-real-voices-'));

interface Clip { ch: 0 | 1; file: string; after: number; mark?: 'digit' | 'letter' }

async function samples(file: string): Promise<Float32Array> {
  const out = path.join(dir, 'clip.wav');
  execFileSync('sox', ['-V1', file, '-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed', out]);
  return (await decodeWav(out)).channels[0]!;
}
function agent(text: string, name: string): string {
  const wav = path.join(dir, `${name}.wav`);
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', wav, text]);
  return wav;
}

/** The clips laid out in time on two channels; the times (s) of each marked clip's middle. */
async function mix(clips: Clip[]): Promise<{ audio: DecodedAudio; marks: Array<{ mark: string; at: number }> }> {
  const pcm = await Promise.all(clips.map((c) => samples(c.file)));
  const frames = pcm.reduce((n, p, i) => n + p.length + clips[i]!.after * RATE, RATE * 0.5);
  const channels = [new Float32Array(frames), new Float32Array(frames)];
  const marks: Array<{ mark: string; at: number }> = [];
  let at = Math.round(RATE * 0.3);
  clips.forEach((c, i) => {
    channels[c.ch]!.set(pcm[i]!, at);
    if (c.mark) marks.push({ mark: c.mark, at: (at + pcm[i]!.length / 2) / RATE });
    at += pcm[i]!.length + Math.round(c.after * RATE);
  });
  return { audio: { format: { encoding: 'pcm_s16', sampleRate: RATE, channels: 2, bitsPerSample: 16 }, channels, durationSec: frames / RATE, warnings: [] }, marks };
}

const digits = (s: string, after = 0.15): Clip[] => [...s].map((d, i) => ({ ch: 1, file: path.join(DIGITS, `${d}.wav`), after: i === s.length - 1 ? 1 : after, mark: 'digit' }));
const prompt = (name: string): Clip => ({ ch: 1, file: path.join(ALLISON, `${name}.wav`), after: 1 });

let utterances: Utterance[] = [];
let marks: Array<{ mark: string; at: number }> = [];

test.before(async () => {
  for (const f of [DIGITS, LETTERS, '/usr/bin/espeak-ng']) if (!existsSync(f)) throw new Error(`${f} is missing: run bash scripts/test.sh once (test speech and voices)`);
  const call = await mix([
    { ch: 0, file: agent('okay go ahead', 'q1'), after: 0.8 },
    ...digits(CARD.slice(0, 4)), prompt('pls-hold-while-try'),
    ...digits(CARD.slice(4, 8)), prompt('conf-waitforleader'),
    ...digits(CARD.slice(8, 12)), ...digits(CARD.slice(12)),
    { ch: 0, file: agent('thank you', 'q2'), after: 1.5 },
    ...digits(SSN.slice(0, 3)), prompt('pls-hold-while-try'), ...digits(SSN.slice(3, 5)), prompt('conf-waitforleader'), ...digits(SSN.slice(5)),
    { ch: 0, file: agent('and can you spell your surname for me', 'q3'), after: 0.8 },
    ...[...SURNAME].map((l): Clip => ({ ch: 1, file: path.join(LETTERS, `${l}.wav`), after: 2, mark: 'letter' })),
  ]);
  marks = call.marks;
  const transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '1' }), log: silentLogger });
  try {
    utterances = (await transcriber.transcribe(call.audio, { source: 'real-voices.wav' })).utterances.map((u) => ({ ...u, events: normalizeNumbers(u.events) }));
  } finally {
    await transcriber.close();
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

const heard = () => utterances.map((u) => `${u.metadata.channel}: ${u.events.map((e) => e.word).join(' ')}`).join(' | ');
const digitWords: Record<string, string> = { zero: '0', oh: '0', one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9' };

test('default kinds: no digit of the card or the SSN is left in the caller\'s text, and every digit\'s recording is inside a redacted span', () => {
  const r = redactUtterances(utterances);
  const left = r.utterances.filter((u) => u.metadata.channel === 1).flatMap((u) => u.events).filter((e) => !e.redacted)
    .map((e) => digitWords[e.word.toLowerCase().replace(/\W/g, '')] ?? e.word.replace(/\D/g, '')).join('');
  assert.is(left, '', heard());
  const spans = r.spans.filter((s) => s.channel === 1);
  const outside = marks.filter((m) => m.mark === 'digit' && !spans.some((s) => s.start - 0.25 <= m.at && m.at <= s.end + 0.25));
  assert.equal(outside.map((m) => m.at.toFixed(1)), [], heard());
});

test('redact=card alone: the card read in four groups with chatter between is named card by its length, cue or not', () => {
  const r = redactUtterances(utterances, ['card']);
  const spans = r.spans.filter((s) => s.channel === 1 && s.kind === 'card');
  const card = marks.filter((m) => m.mark === 'digit').slice(0, CARD.length);
  const outside = card.filter((m) => !spans.some((s) => s.start - 0.25 <= m.at && m.at <= s.end + 0.25));
  assert.equal(outside.map((m) => m.at.toFixed(1)), [], heard());
});

test('redact=name: every letter heard after "spell your surname", said 2 s apart, is redacted, its time inside a span', () => {
  const asked = utterances.find((u) => u.metadata.channel === 0 && u.events.some((e) => e.word.toLowerCase().startsWith('surname')))!;
  const r = redactUtterances(utterances, ['name']);
  const letters = r.utterances.filter((u) => u.metadata.channel === 1 && u.start > asked.end).flatMap((u) => u.events);
  assert.ok(letters.length >= 4, heard());
  assert.equal(letters.filter((e) => e.redacted !== 'name').map((e) => e.word), [], heard());
  const spans = r.spans.filter((s) => s.channel === 1 && s.kind === 'name');
  assert.ok(letters.every((e) => spans.some((s) => s.start <= e.start && e.end <= s.end)), heard());
});

test.run();
