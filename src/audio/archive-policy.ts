/**
 * What voxdex accepts inside an archive, decided from the 7z listing before anything is extracted:
 * safe names, no links, member count, and totals within config.archive: uncompressed bytes (absolutely
 * and relative to the archive's own size), the audio the members can hold at most, and the ratio of
 * each large member (or solid block).
 */
import { statfsSync } from 'node:fs';
import { VoxdexError, voxdexError } from '../errors.js';
import type { Config } from '../config.js';
import type { ArchiveEntry } from './seven-zip.js';

export type ArchiveLimits = Config['archive'];

/** The ratio limit applies to members (or solid blocks) larger than this; tiny files compress absurdly well. */
const RATIO_MIN_BYTES = 1 << 20;

/**
 * The fewest bytes one second of one channel takes in any accepted WAV format (8000 Hz, 8 bits:
 * G.711 or unsigned PCM). Before extraction only sizes are known, so `bytes / MIN_BYTES_PER_SEC`
 * is the most audio (counted per channel) the members can hold.
 */
const MIN_BYTES_PER_SEC = 8000;

const fmtBytes = (n: number) => n.toLocaleString('en-US');
/** 86400 → "24 h", 5400 → "1.5 h", 90 → "1.5 min", 12 → "12 s". */
export function formatDuration(sec: number): string {
  const [v, unit] = sec >= 3600 ? [sec / 3600, 'h'] : sec >= 60 ? [sec / 60, 'min'] : [sec, 's'];
  return `${v.toFixed(1).replace(/\.0$/, '')} ${unit}`;
}

/**
 * The request-wide audio limit, shared by archives and single WAV files. `seconds` counts every
 * channel (a stereo hour is two hours of ASR work); `how` says where the figure comes from.
 */
export function checkAudioSeconds(seconds: number, limits: Pick<ArchiveLimits, 'maxAudioSec'>, subject: string, how: string, code: 'ARCHIVE_LIMIT' | 'TOO_LARGE'): void {
  if (seconds <= limits.maxAudioSec) return;
  throw voxdexError(
    code,
    `${subject} ${formatDuration(seconds)} of audio (${how}); at most ${formatDuration(limits.maxAudioSec)} per request is accepted (VOXDEX_MAX_REQUEST_AUDIO_SEC=${limits.maxAudioSec}). Split it into several requests.`,
  );
}

/**
 * The disk a request may use to unpack: `needed` bytes must fit in what `dir`'s file system has free
 * beyond `reserveBytes` (VOXDEX_MIN_FREE_DISK_MIB). Else OVERLOADED (503, retry later): the limit is
 * the machine's, not the request's.
 */
export function checkDiskSpace(needed: number, dir: string, reserveBytes: number): void {
  const fs = statfsSync(dir);
  const usable = fs.bavail * fs.bsize - reserveBytes;
  if (needed <= usable) return;
  const mib = (n: number) => `${Math.ceil(Math.max(0, n) / 1048576)} MiB`;
  throw new VoxdexError(
    'OVERLOADED',
    `Unpacking this archive needs ${mib(needed)} of disk; the data disk has ${mib(usable)} to spare beyond the ${mib(reserveBytes)} kept free (VOXDEX_MIN_FREE_DISK_MIB=${reserveBytes / 1048576}). Retry later or ask the operator to free space.`,
    { retryAfterSec: 300 },
  );
}

function isUnsafeName(name: string): boolean {
  if (name === '' || name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return true;
  return name.split(/[\\/]/).some((part) => part === '..');
}

/**
 * Throws UNSAFE_ARCHIVE_MEMBER or ARCHIVE_LIMIT (the message names the limit and its value); returns
 * the file members (no directories). `archiveBytes` is the archive file's own size.
 */
export function checkEntries(entries: ArchiveEntry[], limits: ArchiveLimits, archiveBytes: number): ArchiveEntry[] {
  for (const e of entries) {
    if (isUnsafeName(e.name)) {
      throw voxdexError('UNSAFE_ARCHIVE_MEMBER', `Archive member ${JSON.stringify(e.name)} has an absolute path or "..": refusing the archive. Send an archive with plain relative names.`);
    }
    if (e.symlink) throw voxdexError('UNSAFE_ARCHIVE_MEMBER', `Archive member ${JSON.stringify(e.name)} is a symbolic link: refusing the archive. Send an archive of regular files.`);
  }
  const files = entries.filter((e) => !e.directory);
  if (files.length > limits.maxMembers) {
    throw voxdexError('ARCHIVE_LIMIT', `The archive has ${files.length} members; at most ${limits.maxMembers} are accepted (VOXDEX_ARCHIVE_MAX_MEMBERS=${limits.maxMembers}). Split it into smaller archives.`);
  }
  const total = files.reduce((sum, e) => sum + e.size, 0);
  if (total > limits.maxTotalBytes) {
    throw voxdexError(
      'ARCHIVE_LIMIT',
      `The archive unpacks to ${total} bytes; at most ${limits.maxTotalBytes} are accepted (VOXDEX_ARCHIVE_MAX_TOTAL_MIB=${Number((limits.maxTotalBytes / 1048576).toFixed(2))}). Split it into smaller archives.`,
    );
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
        `Archive member ${JSON.stringify(g.names[0])}${g.names.length > 1 ? ` (and ${g.names.length - 1} more in its block)` : ''} is compressed ${Math.round(ratio)}:1; at most ${limits.maxRatio}:1 is accepted (VOXDEX_ARCHIVE_MAX_RATIO=${limits.maxRatio}).`,
      );
    }
  }
  // The whole archive: many members just under RATIO_MIN_BYTES must not add up to a bomb.
  const overall = total / Math.max(1, archiveBytes);
  if (total > RATIO_MIN_BYTES && overall > limits.maxRatio) {
    throw voxdexError(
      'ARCHIVE_LIMIT',
      `The archive unpacks to ${fmtBytes(total)} bytes, ${Math.round(overall)} times its own size of ${fmtBytes(archiveBytes)} bytes; at most ${limits.maxRatio} times is accepted (VOXDEX_ARCHIVE_MAX_RATIO=${limits.maxRatio}).`,
    );
  }
  const { candidates } = classifyMembers(files);
  const audioBytes = candidates.reduce((sum, e) => sum + e.size, 0);
  checkAudioSeconds(
    audioBytes / MIN_BYTES_PER_SEC,
    limits,
    `The archive's ${candidates.length} possible audio members may hold up to`,
    `${fmtBytes(audioBytes)} bytes at ${MIN_BYTES_PER_SEC} bytes per second per channel, the lowest rate accepted: before extraction only sizes are known`,
    'ARCHIVE_LIMIT',
  );
  return files;
}

function stem(name: string): string {
  const dot = name.lastIndexOf('.');
  const slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  return dot > slash + 1 ? name.slice(0, dot) : name;
}

function isJsonName(name: string): boolean {
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
