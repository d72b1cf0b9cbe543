/**
 * Word times for an engine that writes text only: the recognized words are force-aligned against the
 * same audio by a PocketSphinx aligner (native `align`, a linear grammar of the words with optional
 * silence and fillers between them), and the path it took is mapped back onto the written words.
 *
 * Each written word is a slot with readings (numbers have several, src/text/numbers.ts); the aligner
 * picks the reading that matches the audio. A word whose every reading is missing from the dictionary
 * comes back as a run of phones ("@ah"), which gives it its times. When the search did not reach the
 * end of the grammar (audio and text disagree), the words it did not place get times interpolated
 * over the rest of the utterance, in proportion to their length.
 */
import type { NativeWord } from './binding.js';
import { spokenWord, type WrittenWord } from './moonshine/words.js';

export interface TimedWord {
  word: string;
  /** Milliseconds from the utterance's first sample. */
  start: number;
  end: number;
  confidence: number;
  /** The written word's written form on its first spoken word, '' on the others (NativeWord.written). */
  written?: string;
}

/** `written` of the i-th spoken word of a written word (nothing when the written form is unknown). */
function writtenOf(w: WrittenWord, i: number): { written?: string } {
  return w.display === undefined ? {} : { written: i === 0 ? w.display : '' };
}

export interface AlignedWords {
  words: TimedWord[];
  /** Written words placed by the aligner (the rest were interpolated). */
  aligned: number;
}

type Match = { slot: number; words: string[]; times: Array<[number, number]> };

/** The slots' readings as the native aligner takes them. */
export function alignmentSlots(written: readonly WrittenWord[]): string[][][] {
  return written.map((w) => w.readings);
}

/**
 * Maps the aligner's path (dictionary words and "@phone" runs, fillers removed) onto the written
 * words. `spanMs` is [start, end] of the speech in the utterance, for words the path does not cover.
 */
export function placeWords(written: readonly WrittenWord[], path: readonly NativeWord[], spanMs: [number, number]): AlignedWords {
  const matches = matchPath(written, path);
  const words: TimedWord[] = [];
  for (const m of matches) {
    const ww = written[m.slot]!;
    const { confidence: conf, spelled } = ww;
    const one = spelled !== undefined && m.words.length === 1;
    m.words.forEach((w, i) => words.push({ word: one ? spelled : w, start: m.times[i]![0], end: m.times[i]![1], confidence: conf, ...writtenOf(ww, i) }));
  }
  const rest = written.slice(matches.length);
  if (rest.length > 0) {
    const from = Math.max(spanMs[0], words.length ? words[words.length - 1]!.end : spanMs[0]);
    const to = Math.max(from + 10 * rest.length, spanMs[1]);
    const spoken = rest.map((w) => (w.readings[0] ?? [w.text]).map((p) => spokenWord(p)));
    const weights = spoken.map((ws) => ws.map((x) => Math.max(1, x.length)));
    const total = weights.flat().reduce((a, b) => a + b, 0);
    let at = from;
    rest.forEach((w, i) => {
      spoken[i]!.forEach((word, j) => {
        const len = ((to - from) * weights[i]![j]!) / total;
        words.push({ word: w.spelled !== undefined && spoken[i]!.length === 1 ? w.spelled : word, start: Math.round(at), end: Math.round(at + len), confidence: w.confidence, ...writtenOf(w, j) });
        at += len;
      });
    });
  }
  return { words, aligned: matches.length };
}

/** The longest prefix of the slots that the path spells out, slot by slot (readings in order, then a phone run). */
function matchPath(written: readonly WrittenWord[], path: readonly NativeWord[]): Match[] {
  let best: Match[] = [];
  const failed = new Set<number>();
  const key = (slot: number, at: number) => slot * 100_003 + at;
  const go = (slot: number, at: number, acc: Match[]): boolean => {
    if (acc.length > best.length) best = acc.slice();
    if (slot === written.length) return at === path.length;
    if (failed.has(key(slot, at))) return false;
    const w = written[slot]!;
    for (const reading of w.readings) {
      if (at + reading.length > path.length) continue;
      let ok = true;
      for (let i = 0; i < reading.length && ok; i++) ok = reading[i]!.split('|').includes(path[at + i]!.word);
      if (!ok) continue;
      const seg = path.slice(at, at + reading.length);
      acc.push({ slot, words: reading.map((p, i) => spokenWord(p, seg[i]!.word)), times: seg.map((s) => [s.start, s.end]) });
      if (go(slot + 1, at + reading.length, acc)) return true;
      acc.pop();
    }
    // An unknown word: one or more phones.
    let end = at;
    while (end < path.length && path[end]!.word.startsWith('@')) end++;
    for (let stop = end; stop > at; stop--) {
      const spoken = (w.readings[0] ?? [w.text]).map((p) => spokenWord(p));
      const s = path[at]!.start;
      const e = path[stop - 1]!.end;
      const times = spoken.map((_, i): [number, number] => [Math.round(s + ((e - s) * i) / spoken.length), Math.round(s + ((e - s) * (i + 1)) / spoken.length)]);
      acc.push({ slot, words: spoken, times });
      if (go(slot + 1, stop, acc)) return true;
      acc.pop();
    }
    failed.add(key(slot, at));
    return false;
  };
  go(0, 0, []);
  return best;
}
