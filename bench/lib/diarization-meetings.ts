/**
 * The diarization bench on the real meeting excerpts (bench/lib/meetings.ts: 8 kHz telephone band and
 * 16 kHz, the ASR's words): per file, word attribution against the RTTM turns, DER of the turns (0.25 s
 * collar), the number of speakers found, and gender per utterance (AMI speaker ids start with F or M), for
 * the pipeline, today's first pipeline (`method: 'words'`) and "one speaker", with the CPU of each.
 * Tuned on trn00–03 and trn06–09; held out: trn04 and trn05, whose seven speakers appear nowhere else.
 */
import type { DiarizeModels, DiarizeResult, SpeakerTurn } from '../../src/speakers/diarize.js';
import { diarizeRecording } from '../../src/speakers/diarize.js';
import { der, turnAttribution, type Labelled } from './diarization-score.js';
import type { Meeting } from './meetings.js';

export const HELD_OUT = ['trn04', 'trn05'];

export type Method = 'pipeline' | 'first pipeline' | 'one speaker';

export interface MeetingRow {
  id: string;
  band: string;
  method: Method;
  words: number;
  attribution: number;
  der: number;
  speakers: number;
  /** Reference speakers: all in the RTTM, and those with ≥ 1 s of speech nobody talks over. */
  refSpeakers: number;
  refCountable: number;
  /** Speech in the RTTM (union), seconds. */
  speech: number;
  genderRight: number;
  genderTotal: number;
  cpu: number;
}

function solo(turns: Labelled[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let t = 0.005; t < 30; t += 0.01) {
    const on = turns.filter((x) => t >= x.start && t < x.end);
    if (on.length === 1) out.set(on[0]!.speaker, (out.get(on[0]!.speaker) ?? 0) + 0.01);
  }
  return out;
}

function speechSeconds(turns: Labelled[]): number {
  let n = 0;
  for (let t = 0.005; t < 30; t += 0.01) if (turns.some((x) => t >= x.start && t < x.end)) n++;
  return n / 100;
}

/** Hypothesis segments from words (the first pipeline's only output): a speaker's words merged across gaps under 0.3 s. */
export function wordSegments(words: Labelled[]): Labelled[] {
  const out: Labelled[] = [];
  const last = new Map<string, Labelled>();
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const l = last.get(w.speaker);
    if (l && w.start - l.end < 0.3) l.end = Math.max(l.end, w.end);
    else {
      const s = { ...w };
      out.push(s);
      last.set(w.speaker, s);
    }
  }
  return out;
}

const wordsOf = (r: DiarizeResult): Labelled[] => r.utterances.flatMap((u) => u.events.map((e) => ({ start: e.start, end: e.end, speaker: u.metadata.speaker ?? 'S1' })));

function genderScore(r: DiarizeResult, turns: Labelled[]): { right: number; total: number } {
  let right = 0;
  let total = 0;
  for (const u of r.utterances) {
    const mid = (u.start + u.end) / 2;
    const who = turns.filter((t) => mid >= t.start && mid <= t.end);
    if (who.length !== 1 || !u.metadata.gender) continue; // overlapped or outside the turns: no single truth
    total++;
    if ((who[0]!.speaker[0] === 'F' ? 'female' : 'male') === u.metadata.gender) right++;
  }
  return { right, total };
}

export async function benchMeeting(models: DiarizeModels, m: Meeting): Promise<MeetingRow[]> {
  const turns: Labelled[] = m.turns;
  const ch = { channel: 0, sampleRate: m.audio.format.sampleRate, samples: m.audio.channels[0]!, utterances: m.asr.utterances };
  const solos = solo(turns);
  const base = {
    id: m.id,
    band: m.band === '8k' ? '8 kHz mu-law' : '16 kHz',
    refSpeakers: new Set(turns.map((t) => t.speaker)).size,
    refCountable: [...solos.values()].filter((s) => s >= 1).length,
    speech: speechSeconds(turns),
  };
  const rows: MeetingRow[] = [];
  let pipelineTurns: SpeakerTurn[] = [];
  for (const method of ['pipeline', 'first pipeline'] as const) {
    const c0 = process.cpuUsage();
    const r = await diarizeRecording(models, [ch], { diarize: true, gender: true, ...(method === 'first pipeline' ? { method: 'words' as const } : {}) });
    const c = process.cpuUsage(c0);
    const words = wordsOf(r);
    if (method === 'pipeline') pipelineTurns = r.turns;
    const a = turnAttribution(turns, words);
    const g = genderScore(r, turns);
    rows.push({
      ...base,
      method,
      words: a.words,
      attribution: a.right,
      der: der(turns, method === 'pipeline' ? r.turns : wordSegments(words), 30).der,
      speakers: r.channels[0]!.speakers,
      genderRight: g.right,
      genderTotal: g.total,
      cpu: (c.user + c.system) / 1e6,
    });
  }
  // one speaker: every word S1; its turns are the pipeline's speech, one label
  const one = m.asr.utterances.flatMap((u) => u.events.map((e) => ({ start: e.start, end: e.end, speaker: 'S1' })));
  const a = turnAttribution(turns, one);
  rows.push({ ...base, method: 'one speaker', words: a.words, attribution: a.right, der: der(turns, pipelineTurns.map((t) => ({ ...t, speaker: 'S1' })), 30).der, speakers: 1, genderRight: 0, genderTotal: 0, cpu: 0 });
  return rows;
}
