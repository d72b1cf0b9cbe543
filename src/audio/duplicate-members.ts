/**
 * Members stored twice under one name (a zip may hold `same.wav` twice). Every copy is transcribed,
 * and each copy after the first is reported under a name of its own that no member of the archive
 * has (`same_1.wav`, or `same_2.wav` when `same_1.wav` is a member too).
 */
import type { ArchiveEntry } from './seven-zip.js';

/** `stem_k.ext` (`noext_k` without an extension). */
function numbered(name: string, k: number): string {
  const slash = name.lastIndexOf('/');
  const dot = name.lastIndexOf('.');
  return dot > slash + 1 ? `${name.slice(0, dot)}_${k}${name.slice(dot)}` : `${name}_${k}`;
}

/** The first `stem_k.ext` (k = 1, 2, …) not in `taken`, added to it. */
function firstFree(name: string, taken: Set<string>): string {
  let k = 1;
  while (taken.has(numbered(name, k))) k++;
  const free = numbered(name, k);
  taken.add(free);
  return free;
}

interface PlacedEntry {
  entry: ArchiveEntry;
  /** The name reported for it (the stored name, or a numbered one for a later copy). */
  name: string;
}

/** Every entry (in archive order) with its reported name. */
export function placeEntries(entries: readonly ArchiveEntry[]): PlacedEntry[] {
  const reported = new Set(entries.map((e) => e.name));
  const seen = new Set<string>();
  return entries.map((entry) => {
    const name = seen.has(entry.name) ? firstFree(entry.name, reported) : entry.name;
    seen.add(entry.name);
    return { entry, name };
  });
}
