/** Runs the aligner for a text-only engine's words (native PocketSphinx FSG search) and places them. */
import { placeWords, alignmentSlots } from './align.js';
import type { NativeWord } from './binding.js';
import type { PocketSphinxEngine } from './engines/pocketsphinx.js';
import type { WrittenWord } from './moonshine/words.js';

/** [start, end] ms of the frames above the speech level (the span unaligned words are spread over). */
function speechSpan(levels: Float32Array): [number, number] {
  const sorted = Float32Array.from(levels).sort();
  const threshold = Math.max(-50, sorted[Math.floor(sorted.length * 0.95)]! - 35);
  let a = 0;
  while (a < levels.length && levels[a]! <= threshold) a++;
  let b = levels.length;
  while (b > a && levels[b - 1]! <= threshold) b--;
  return a < b ? [a * 10, b * 10] : [0, levels.length * 10];
}

export function align(
  aligner: PocketSphinxEngine | undefined,
  samples: Int16Array,
  written: readonly WrittenWord[],
  levels: Float32Array,
  abort: Int32Array,
  notes: string[],
): NativeWord[] {
  let path: NativeWord[] = [];
  if (aligner) {
    path = aligner.align(samples, alignmentSlots(written), abort).words;
  } else {
    notes.push('no-aligner');
  }
  const placed = placeWords(written, path, speechSpan(levels));
  if (placed.aligned < written.length) notes.push(`interpolated-${written.length - placed.aligned}`);
  return placed.words;
}
