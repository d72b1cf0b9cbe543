/**
 * Unpack stage: one uploaded file → the audio files to transcribe. A RIFF/WAVE upload is its own
 * single item; a zip or 7z archive is checked from its listing (names, links, limits), and its
 * members are streamed out of the 7z CLI (`-so`) straight into sealed files in `workDir`
 * (src/audio/sealed-file.ts), each sniffed by content. 7z never writes a member to disk and no
 * member's plaintext is ever on disk; `.json` sidecars are read into memory. Problems with single
 * members are per-file errors; the request fails only when no audio member is left, or when the
 * members' audio together is more than one request may hold (src/audio/request-audio.ts).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { toVoxdexError, voxdexError, type ErrorInfo } from '../errors.js';
import type { TranscodeConfig } from '../config.js';
import type { Stage } from '../types.js';
import { withArchiveInput } from '../audio/archive-input.js';
import type { ByteSource } from '../audio/byte-source.js';
import { sniffFile } from '../audio/sniff.js';
import { mediaOfFile } from '../audio/media.js';
import { extractMembers, listArchive, type ArchiveEntry } from '../audio/seven-zip.js';
import { checkDiskSpace, checkEntries, classifyMembers, sidecarFor } from '../audio/archive-policy.js';
import { placeEntries } from '../audio/duplicate-members.js';
import { checkMembersAudio } from '../audio/request-audio.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { noAudio } from './probe.js';

/** A `.json` sidecar larger than this is a per-file error (it is read into memory). */
export const MAX_SIDECAR_BYTES = 1 << 20;

export interface UnpackInput {
  /** The uploaded file's bytes. */
  source: ByteSource;
  /** Name to report for a single (non-archive) upload; default `upload`. */
  name?: string;
  zpass?: string;
  /** Empty directory the archive members are written into, sealed (the caller removes it). */
  workDir: string;
  /** The key members are sealed with while they wait. */
  seal: AudioSeal;
}

export interface AudioItem {
  name: string;
  /** The audio's bytes: the upload itself, or an archive member's sealed file. */
  source: ByteSource;
  /** An archive member's sealed file in the work folder (moved into the blob store to be kept for playback). */
  sealedPath?: string;
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
  const s = mediaOfFile(input.source, ctx.config.transcode);
  if (s.kind === 'wav' || s.kind === 'coded') return { kind: 'wav', items: [{ name: input.name ?? 'upload', source: input.source }] };

  const { items } = await withArchiveInput(input.source, async (archive) => {
    const entries = await listArchive(archive, s.kind, input.zpass, ctx.signal);
    const files = checkEntries(entries, ctx.config.archive, input.source.size);
    const { candidates, sidecars, orphanJson } = classifyMembers(files);
    if (candidates.length === 0) throw noAudio(files);
    // Room was checked at acceptance; other jobs may have used it since (OVERLOADED is retried later).
    checkDiskSpace(files.reduce((sum, e) => sum + e.size, 0), input.workDir, ctx.config.queue.minFreeDiskBytes);
    return { items: await extractItems(archive, s.kind, files, { candidates, sidecars, orphanJson }, input, ctx.config.transcode, ctx.signal) };
  });
  if (!items.some((i) => !isFailedItem(i))) {
    const reasons = items.slice(0, 3).map((i) => `${i.name}: ${isFailedItem(i) ? i.error.message : 'audio'}`);
    throw voxdexError('NO_AUDIO_MEMBERS', `The archive holds no audio files this service accepts (${reasons.join(' | ')}).`);
  }
  // The sum of the members' real lengths, before any is transcribed (the listing only bounded it by sizes).
  await checkMembersAudio(items.filter((i): i is AudioItem => !isFailedItem(i)), ctx.config, ctx.signal);
  ctx.log.debug({ jobId: ctx.jobId, kind: s.kind, members: items.length }, 'unpacked archive');
  return { kind: s.kind, items };
};

/** A member's bytes collected in memory (a sidecar), up to MAX_SIDECAR_BYTES. */
class Collector extends Writable {
  readonly parts: Buffer[] = [];
  bytes = 0;
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.bytes += chunk.length;
    if (this.bytes <= MAX_SIDECAR_BYTES) this.parts.push(chunk);
    cb();
  }
}

/** Streams the members out (audio candidates sealed into the work folder, sidecars into memory) and makes the items. */
async function extractItems(
  archive: Parameters<typeof listArchive>[0],
  kind: 'zip' | '7z',
  files: ArchiveEntry[],
  classes: ReturnType<typeof classifyMembers>,
  input: UnpackInput,
  transcode: TranscodeConfig,
  signal: AbortSignal,
): Promise<UnpackItem[]> {
  const { candidates, sidecars, orphanJson } = classes;
  const wanted = new Set(candidates);
  const sidecarEntries = new Set(sidecars.values());
  const sealedPath = (index: number) => path.join(input.workDir, `${index}.sealed`);
  const collected = new Map<ArchiveEntry, Collector>();
  const failed = await extractMembers(archive, kind, input.zpass, files, (entry, index) => {
    if (wanted.has(entry)) {
      rmSync(sealedPath(index), { force: true }); // a second try after a failed first run
      return input.seal.writer(sealedPath(index));
    }
    if (!sidecarEntries.has(entry)) return undefined;
    const c = new Collector();
    collected.set(entry, c);
    return c;
  }, signal);
  const items: UnpackItem[] = [];
  // A name stored twice: every copy is transcribed, each under a name of its own (duplicate-members.ts).
  const placed = placeEntries(files);
  for (const [index, { entry, name }] of placed.entries()) {
    if (!wanted.has(entry)) continue;
    if (failed.has(entry.name)) {
      items.push(fail(name, 'BAD_ARCHIVE', `Archive member could not be extracted: ${failed.get(entry.name)}.`));
      continue;
    }
    const sidecar = sidecarFor(entry.name, sidecars);
    items.push(member(name, sealedPath(index), input.seal, transcode, sidecar && { entry: sidecar, bytes: collected.get(sidecar), error: failed.get(sidecar.name) }));
  }
  for (const e of orphanJson) {
    items.push(fail(e.name, 'NOT_AUDIO', 'A .json file without an audio file of the same name beside it; metadata must sit beside name.wav as name.json.'));
  }
  return items;
}

function member(name: string, file: string, seal: AudioSeal, transcode: TranscodeConfig, sidecar: { entry: ArchiveEntry; bytes?: Collector; error?: string } | undefined): UnpackItem {
  const source = seal.open(file);
  const s = sniffFile(source);
  const media = accepted(s, source, transcode);
  void source.close(); // reopened when the member is decoded: an archive of 2000 members holds no 2000 descriptors
  if (s.kind === 'zip' || s.kind === '7z' || (s.kind === 'other' && s.archive)) {
    return fail(name, 'NESTED_ARCHIVE', `Archive member is ${s.kind === 'other' ? s.what : `a ${s.kind} archive`}; nested archives are not expanded. Put the audio files directly into one archive.`);
  }
  if (s.kind === 'other' && !s.audio) return fail(name, 'NOT_AUDIO', `Archive member is ${s.what}, not audio.`);
  if (media) return fail(name, media.code, media.message); // an audio format not accepted here
  const item: AudioItem = { name, source, sealedPath: file };
  if (sidecar !== undefined) {
    const json = sidecar.entry.name;
    if (sidecar.error !== undefined) return fail(name, 'BAD_ARCHIVE', `Its metadata ${json} could not be extracted: ${sidecar.error}.`);
    if ((sidecar.bytes?.bytes ?? 0) > MAX_SIDECAR_BYTES) return fail(name, 'BAD_ARGUMENT', `Its metadata ${json} is larger than ${MAX_SIDECAR_BYTES >> 20} MiB; keep sidecars to small JSON objects.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.concat(sidecar.bytes?.parts ?? []).toString('utf8'));
    } catch (err) {
      return fail(name, 'BAD_ARGUMENT', `Its metadata ${json} is not valid JSON (${(err as Error).message}).`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return fail(name, 'BAD_ARGUMENT', `Its metadata ${json} must be a JSON object.`);
    }
    item.metadata = parsed as Record<string, unknown>;
  }
  return item;
}

/** Why an audio member is not accepted in this installation (UNSUPPORTED_AUDIO), or undefined. */
function accepted(s: ReturnType<typeof sniffFile>, source: ByteSource, transcode: TranscodeConfig): ErrorInfo | undefined {
  if (s.kind === 'zip' || s.kind === '7z' || (s.kind === 'other' && !s.audio)) return undefined;
  try {
    mediaOfFile(source, transcode);
    return undefined;
  } catch (err) {
    return toVoxdexError(err).toJSON();
  }
}
