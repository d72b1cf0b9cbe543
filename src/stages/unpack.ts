/**
 * Unpack stage: one uploaded file → the audio files to transcribe. A RIFF/WAVE upload is its own
 * single item; a zip or 7z archive is checked from its listing (names, links, limits), extracted by
 * the 7z CLI into `workDir` (streamed to disk) and each member sniffed by content. Problems with
 * single members are per-file errors; the request fails only when no audio member is left.
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { toVoxdexError, voxdexError, type ErrorInfo } from '../errors.js';
import type { Stage } from '../types.js';
import type { Config } from '../config.js';
import { sniffFile } from '../audio/sniff.js';
import { mediaOfFile } from '../audio/media.js';
import { extractArchive, listArchive } from '../audio/seven-zip.js';
import { checkDiskSpace, checkEntries, classifyMembers, sidecarFor } from '../audio/archive-policy.js';
import { placeEntries } from '../audio/duplicate-members.js';
import { noAudio } from './probe.js';

export interface UnpackInput {
  /** The uploaded file. */
  path: string;
  /** Name to report for a single (non-archive) upload; default: the file's base name. */
  name?: string;
  zpass?: string;
  /** Empty directory the archive members are extracted into (the caller removes it). */
  workDir: string;
}

export interface AudioItem {
  name: string;
  path: string;
  /** Parsed `name.json` sidecar, when the archive had one. */
  metadata?: Record<string, unknown>;
}

export interface FailedItem {
  name: string;
  error: ErrorInfo;
}

export type UnpackItem = AudioItem | FailedItem;

export interface UnpackOutput {
  kind: 'wav' | 'zip' | '7z';
  items: UnpackItem[];
}

export function isFailedItem(item: UnpackItem): item is FailedItem {
  return 'error' in item;
}

function fail(name: string, code: ErrorInfo['code'], message: string): FailedItem {
  return { name, error: { code, message } };
}

export const unpack: Stage<UnpackInput, UnpackOutput> = async (input, ctx) => {
  const s = mediaOfFile(input.path, ctx.config.transcode);
  if (s.kind === 'wav' || s.kind === 'coded') return { kind: 'wav', items: [{ name: input.name ?? path.basename(input.path), path: input.path }] };

  const entries = await listArchive(input.path, s.kind, input.zpass, ctx.signal);
  const files = checkEntries(entries, ctx.config.archive, (await stat(input.path)).size);
  const { candidates, sidecars, orphanJson } = classifyMembers(files);
  if (candidates.length === 0) throw noAudio(files);
  // Room was checked at acceptance; other jobs may have used it since (OVERLOADED is retried later).
  checkDiskSpace(files.reduce((sum, e) => sum + e.size, 0), input.workDir, ctx.config.queue.minFreeDiskBytes);

  const failed = await extractArchive(input.path, s.kind, input.zpass, input.workDir, ctx.signal);
  const root = await realpath(input.workDir);
  const items: UnpackItem[] = [];
  // A name stored twice: every copy is transcribed, each under a name of its own (duplicate-members.ts).
  const placed = new Map(placeEntries(files).map((p) => [p.entry, p]));
  for (const entry of candidates) {
    const { name, file } = placed.get(entry)!;
    if (failed.has(entry.name)) {
      items.push(fail(name, 'BAD_ARCHIVE', `Archive member could not be extracted: ${failed.get(entry.name)}.`));
      continue;
    }
    try {
      const sidecar = sidecarFor(entry.name, sidecars);
      items.push({ ...(await member(root, file, sidecar && placed.get(sidecar)!.file, failed, ctx.config)), name });
    } catch (err) {
      const e = toVoxdexError(err);
      items.push(fail(name, e.code, e.message));
    }
  }
  for (const e of orphanJson) {
    items.push(fail(e.name, 'NOT_AUDIO', 'A .json file without an audio file of the same name beside it; metadata must sit beside name.wav as name.json.'));
  }
  if (!items.some((i) => !isFailedItem(i))) {
    const reasons = items.slice(0, 3).map((i) => `${i.name}: ${isFailedItem(i) ? i.error.message : 'audio'}`);
    throw voxdexError('NO_AUDIO_MEMBERS', `The archive holds no audio files this service accepts (${reasons.join(' | ')}).`);
  }
  ctx.log.debug({ jobId: ctx.jobId, kind: s.kind, members: items.length }, 'unpacked archive');
  return { kind: s.kind, items };
};

async function member(root: string, name: string, sidecar: string | undefined, failed: Map<string, string>, config: Readonly<Config>): Promise<UnpackItem> {
  const file = path.join(root, name);
  const st = await lstat(file).catch(() => undefined);
  if (!st) return fail(name, 'BAD_ARCHIVE', 'Archive member was not extracted.');
  if (!st.isFile()) return fail(name, 'UNSAFE_ARCHIVE_MEMBER', 'Archive member is not a regular file.');
  const real = await realpath(file);
  if (!real.startsWith(root + path.sep)) return fail(name, 'UNSAFE_ARCHIVE_MEMBER', 'Archive member resolves outside the extraction folder.');
  const s = sniffFile(real);
  if (s.kind === 'zip' || s.kind === '7z' || (s.kind === 'other' && s.archive)) {
    return fail(name, 'NESTED_ARCHIVE', `Archive member is ${s.kind === 'other' ? s.what : `a ${s.kind} archive`}; nested archives are not expanded. Put the audio files directly into one archive.`);
  }
  if (s.kind === 'other' && !s.audio) return fail(name, 'NOT_AUDIO', `Archive member is ${s.what}, not audio.`);
  mediaOfFile(real, config.transcode); // UNSUPPORTED_AUDIO for an audio format not accepted here
  const item: AudioItem = { name, path: real };
  if (sidecar !== undefined) {
    if (failed.has(sidecar)) return fail(name, 'BAD_ARCHIVE', `Its metadata ${sidecar} could not be extracted: ${failed.get(sidecar)}.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(path.join(root, sidecar), 'utf8'));
    } catch (err) {
      return fail(name, 'BAD_ARGUMENT', `Its metadata ${sidecar} is not valid JSON (${(err as Error).message}).`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return fail(name, 'BAD_ARGUMENT', `Its metadata ${sidecar} must be a JSON object.`);
    }
    item.metadata = parsed as Record<string, unknown>;
  }
  return item;
}
