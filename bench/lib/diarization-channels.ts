/**
 * The diarization bench on calls recorded one voice per channel (test/fixtures/speaker-calls.ts
 * buildChannelCall: real voices, each channel carrying the others at a controlled bleed level):
 * - false splits: how many one-voice channels come out as two speakers or more (C<n>S<k>), the pipeline
 *   (crosstalk separated first, recording.ts) beside today's first pipeline (no crosstalk step);
 * - crosstalk: word error rate and insertions of the Allison channel (held-out prompts m–z, whose text is
 *   known) through the real ASR, clean and with the other voice bleeding in at −10, −20 and −30 dB, with
 *   and without the crosstalk step, and how many of the speaker's own right words the step dropped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Transcriber } from '../../src/asr/transcriber.js';
import { diarizeRecording, type DiarizeModels } from '../../src/speakers/diarize.js';
import { separateCrosstalk } from '../../src/speakers/crosstalk.js';
import { speakersOfRecording } from '../../src/speakers/recording.js';
import type { DecodedAudio, Utterance } from '../../src/types.js';
import { buildChannelCall, channelsOf } from '../../test/fixtures/speaker-calls.js';
import { correctWords, normalizeWords, wordDistance } from './wer.js';

const heldOut = (f: string) => f.includes('librivox') || /\/[m-z][^/]*$/.test(f);

/** The layouts of the false-split set: stereo pairs and one six-channel recording (20 channels). */
export const ONE_VOICE_CALLS: { voices: string[]; seed: number }[] = [
  { voices: ['allison', 'carlo'], seed: 501 },
  { voices: ['june', 'librivox'], seed: 502 },
  { voices: ['ivrvoice-ru', 'allison'], seed: 503 },
  { voices: ['carlo', 'june'], seed: 504 },
  { voices: ['librivox', 'ivrvoice-ru'], seed: 505 },
  { voices: ['allison', 'june'], seed: 506 },
  { voices: ['carlo', 'librivox'], seed: 507 },
  { voices: ['allison', 'june', 'carlo', 'ivrvoice-ru', 'librivox', 'allison'], seed: 508 },
];

export interface FalseSplits {
  channels: number;
  pipeline: number;
  firstPipeline: number;
  cpu: number;
  audio: number;
}

export async function falseSplits(models: DiarizeModels, bleedDb: number, telephone: boolean): Promise<FalseSplits> {
  const out: FalseSplits = { channels: 0, pipeline: 0, firstPipeline: 0, cpu: 0, audio: 0 };
  for (const l of ONE_VOICE_CALLS) {
    const c = buildChannelCall({ voices: l.voices, seconds: 60, seed: l.seed, telephone, bleedDb, filter: heldOut });
    const input = channelsOf(c);
    const c0 = process.cpuUsage();
    const r = await speakersOfRecording(async () => models, input, { diarize: true, gender: false });
    const cu = process.cpuUsage(c0);
    const old = await diarizeRecording(models, input, { diarize: true, gender: false, method: 'words' });
    out.channels += input.length;
    out.pipeline += r.speakers.filter((k) => k > 1).length;
    out.firstPipeline += old.channels.filter((ch) => ch.speakers > 1).length;
    out.cpu += (cu.user + cu.system) / 1e6;
    out.audio += c.seconds * input.length;
  }
  return out;
}

/** Each Allison prompt's text (core-sounds-en.txt: `name: text`). */
function promptTexts(): Map<string, string> {
  const lines = gunzipSync(readFileSync('/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz')).toString('utf8').split('\n');
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = /^([^;:\s][^:]*):\s*(.+)$/.exec(line.trim());
    if (m && !m[2]!.includes('[')) out.set(m[1]!, m[2]!);
  }
  return out;
}

export interface CrosstalkRow {
  bleedDb: number;
  suppressed: boolean;
  refWords: number;
  errors: number;
  insertions: number;
  /** The speaker's own right words (aligned to the reference) dropped by the crosstalk step. */
  lost: number;
  right: number;
}

/** Insertions in a minimum-edit alignment of hyp to ref. */
export function insertionsOf(ref: readonly string[], hyp: readonly string[]): number {
  const n = ref.length;
  const m = hyp.length;
  const d = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
  let ins = 0;
  for (let i = n, j = m; i > 0 || j > 0; ) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) [i, j] = [i - 1, j - 1];
    else if (j > 0 && d[i]![j] === d[i]![j - 1]! + 1) [ins, j] = [ins + 1, j - 1];
    else i--;
  }
  return ins;
}

const mono = (samples: Float32Array, sampleRate: number): DecodedAudio => ({ format: { encoding: 'pcm_f32', sampleRate, channels: 1, bitsPerSample: 32 }, channels: [samples], durationSec: samples.length / sampleRate, warnings: [] });

export async function crosstalkWer(asr: Transcriber, calls: number, telephone: boolean): Promise<CrosstalkRow[]> {
  const texts = promptTexts();
  const rows: CrosstalkRow[] = [];
  for (const bleedDb of [-Infinity, -10, -20, -30]) {
    const acc = { plain: { refWords: 0, errors: 0, insertions: 0, lost: 0, right: 0 }, sup: { refWords: 0, errors: 0, insertions: 0, lost: 0, right: 0 } };
    for (let n = 0; n < calls; n++) {
      const voices = ['allison', ['carlo', 'june', 'librivox'][n % 3]!];
      const c = buildChannelCall({ voices, seconds: 60, seed: 700 + n, telephone, bleedDb, filter: heldOut, wholePrompts: true });
      const ref = normalizeWords(c.pieces.filter((p) => p.speaker === 'allison').map((p) => texts.get(path.basename(p.file, '.wav')) ?? '').join(' '));
      const results = await Promise.all(c.channels.map((s) => asr.transcribe(mono(s, c.sampleRate), { model: 'auto', source: 'bench' })));
      const input = results.map((r, ch) => ({ channel: ch, sampleRate: c.sampleRate, samples: c.channels[ch]!, utterances: r.utterances.map((u) => ({ ...u, metadata: { ...u.metadata, channel: ch } })) }));
      const x = separateCrosstalk(input);
      const hypOf = (utts: Utterance[]) => normalizeWords([...utts].sort((a, b) => a.start - b.start).flatMap((u) => u.events.map((e) => e.word)).join(' '));
      const plain = hypOf(input[0]!.utterances);
      const sup = hypOf(x.utterances[0]!);
      for (const [k, hyp] of [['plain', plain], ['sup', sup]] as const) {
        const a = acc[k];
        a.refWords += ref.length;
        a.errors += wordDistance(ref, hyp);
        a.insertions += insertionsOf(ref, hyp);
        a.right += correctWords(ref, hyp).filter(Boolean).length;
      }
      // own right words lost: right without the step, gone with it
      const rightPlain = correctWords(ref, plain).filter(Boolean).length;
      acc.sup.lost += Math.max(0, rightPlain - correctWords(ref, sup).filter(Boolean).length);
    }
    rows.push({ bleedDb, suppressed: false, ...acc.plain }, { bleedDb, suppressed: true, ...acc.sup });
  }
  return rows;
}
