/**
 * Members stored twice under one name (a zip may hold `same.wav` twice). Every copy is transcribed:
 * 7z extracts with `-aou` (a later copy is written as `same_1.wav`, `same_2.wav`, … the first free
 * name at that moment), and each copy after the first is reported under a name of its own that no
 * member of the archive has (`same_1.wav`, or `same_2.wav` when `same_1.wav` is a member too).
 */
import type { ArchiveEntry } from './seven-zip.js';

/** `stem_k.ext` (`noext_k` without an extension), as 7z's -aou names a renamed copy. */
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

export function hasDuplicates(entries: readonly ArchiveEntry[]): boolean {
  return new Set(entries.map((e) => e.name)).size < entries.length;
}

export interface PlacedEntry {
  entry: ArchiveEntry;
  /** The name reported for it (the stored name, or a numbered one for a later copy). */
  name: string;
  /** Where 7z -aou writes it, relative to the extraction folder. */
  file: string;
}

/** Every entry (in archive order, the order 7z extracts in) with its reported name and its file. */
export function placeEntries(entries: readonly ArchiveEntry[]): PlacedEntry[] {
  const onDisk = new Set<string>();
  const reported = new Set(entries.map((e) => e.name));
  const seen = new Set<string>();
  return entries.map((entry) => {
    const file = onDisk.has(entry.name) ? firstFree(entry.name, onDisk) : (onDisk.add(entry.name), entry.name);
    const name = seen.has(entry.name) ? firstFree(entry.name, reported) : entry.name;
    seen.add(entry.name);
    return { entry, name, file };
  });
}
