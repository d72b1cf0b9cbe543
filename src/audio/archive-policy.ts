/**
 * What voxdex accepts inside an archive, decided from the 7z listing before anything is extracted:
 * safe names, no links, member count, total size and compression ratio within config.archive.
 */
import { voxdexError } from '../errors.js';
import type { Config } from '../config.js';
import type { ArchiveEntry } from './seven-zip.js';

export type ArchiveLimits = Config['archive'];

/** The ratio limit applies to members (or solid blocks) larger than this; tiny files compress absurdly well. */
export const RATIO_MIN_BYTES = 1 << 20;

export function isUnsafeName(name: string): boolean {
  if (name === '' || name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return true;
  return name.split(/[\\/]/).some((part) => part === '..');
}

/** Throws UNSAFE_ARCHIVE_MEMBER or ARCHIVE_LIMIT; returns the file members (no directories). */
export function checkEntries(entries: ArchiveEntry[], limits: ArchiveLimits): ArchiveEntry[] {
  for (const e of entries) {
    if (isUnsafeName(e.name)) {
      throw voxdexError('UNSAFE_ARCHIVE_MEMBER', `Archive member ${JSON.stringify(e.name)} has an absolute path or "..": refusing the archive. Send an archive with plain relative names.`);
    }
    if (e.symlink) throw voxdexError('UNSAFE_ARCHIVE_MEMBER', `Archive member ${JSON.stringify(e.name)} is a symbolic link: refusing the archive. Send an archive of regular files.`);
  }
  const files = entries.filter((e) => !e.directory);
  if (files.length > limits.maxMembers) {
    throw voxdexError('ARCHIVE_LIMIT', `The archive has ${files.length} members; at most ${limits.maxMembers} are accepted (VOXDEX_ARCHIVE_MAX_MEMBERS). Split it into smaller archives.`);
  }
  const total = files.reduce((sum, e) => sum + e.size, 0);
  if (total > limits.maxTotalBytes) {
    throw voxdexError('ARCHIVE_LIMIT', `The archive unpacks to ${total} bytes; at most ${limits.maxTotalBytes} are accepted (VOXDEX_ARCHIVE_MAX_TOTAL_MIB). Split it into smaller archives.`);
  }
  // Solid 7z blocks: one packed size for the whole block.
  const groups = new Map<string, { names: string[]; size: number; packed: number }>();
  for (const e of files) {
    const key = e.block === undefined ? `m:${e.name}` : `b:${e.block}`;
    const g = groups.get(key) ?? { names: [], size: 0, packed: 0 };
    g.names.push(e.name);
    g.size += e.size;
    g.packed += e.packed;
    groups.set(key, g);
  }
  for (const g of groups.values()) {
    if (g.size <= RATIO_MIN_BYTES) continue;
    const ratio = g.size / Math.max(1, g.packed);
    if (ratio > limits.maxRatio) {
      throw voxdexError(
        'ARCHIVE_LIMIT',
        `Archive member ${JSON.stringify(g.names[0])}${g.names.length > 1 ? ` (and ${g.names.length - 1} more in its block)` : ''} is compressed ${Math.round(ratio)}:1; at most ${limits.maxRatio}:1 is accepted (VOXDEX_ARCHIVE_MAX_RATIO).`,
      );
    }
  }
  return files;
}

function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  const slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  return dot > slash + 1 ? name.slice(0, dot) : name;
}

export function isJsonName(name: string): boolean {
  return /\.json$/i.test(name);
}

/** Splits file members into candidates (possible audio) and sidecars: `name.json` beside `name.<ext>`. */
export function classifyMembers(files: ArchiveEntry[]): { candidates: ArchiveEntry[]; sidecars: Map<string, ArchiveEntry>; orphanJson: ArchiveEntry[] } {
  const candidates = files.filter((e) => !isJsonName(e.name));
  const stems = new Set(candidates.map((e) => stem(e.name)));
  const sidecars = new Map<string, ArchiveEntry>();
  const orphanJson: ArchiveEntry[] = [];
  for (const e of files) {
    if (!isJsonName(e.name)) continue;
    if (stems.has(stem(e.name))) sidecars.set(stem(e.name), e);
    else orphanJson.push(e);
  }
  return { candidates, sidecars, orphanJson };
}

export function sidecarFor(name: string, sidecars: Map<string, ArchiveEntry>): ArchiveEntry | undefined {
  return sidecars.get(stem(name));
}
