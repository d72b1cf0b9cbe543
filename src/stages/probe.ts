/**
 * The fast acceptance check for an upload (before answering the client): container type by
 * content, archive readability and password, limits (from the listing: members, totals, ratios,
 * audio per request, disk), at least one audio member, and the WAV header (and length) of a single
 * file. Reads headers and decompresses at most 3 (small) archive members.
 */
import { voxdexError } from '../errors.js';
import { withArchiveInput, type ArchiveInput } from '../audio/archive-input.js';
import { withSource, type ByteSource } from '../audio/byte-source.js';
import { readWavHeader } from '../audio/wav-header.js';
import { sniff, SNIFF_BYTES } from '../audio/sniff.js';
import { mediaOfFile } from '../audio/media.js';
import { transcoding } from '../audio/transcode.js';
import { defaultTranscodeConfig, type TranscodeConfig } from '../config.js';
import { decodeCoded } from './decode.js';
import { listArchive, readMemberHead, type ArchiveEntry, type ArchiveType } from '../audio/seven-zip.js';
import { checkAudioSeconds, checkDiskSpace, checkEntries, classifyMembers, formatDuration, type ArchiveLimits } from '../audio/archive-policy.js';

/** Members the probe decompresses at most while looking for one WAV. */
const PROBE_READS = 3;
/** Seconds of a transcoded file the acceptance check decodes (it proves ffmpeg reads the file). */
export const PROBE_TRANSCODE_SEC = 1;

/** What the acceptance check found: the container, and for archives how many members may be audio. */
export interface ProbedUpload {
  /** `coded`: one file in a format ffmpeg transcodes. */
  kind: 'wav' | 'coded' | 'zip' | '7z';
  /** Archives: members that may be audio (files other than .json sidecars). */
  members?: number;
}

export interface ProbeOptions {
  zpass?: string;
  signal?: AbortSignal;
  /** Where an archive will be unpacked (its file system must have room) and the bytes to keep free there. */
  disk?: { dir: string; reserveBytes: number };
  /** The installation's transcoding settings (default: on, ffmpeg from PATH). */
  transcode?: TranscodeConfig;
}

/** The upload (a sealed file's source, or a plain file's path) checked before it is acknowledged. */
export function probeUpload(input: string | ByteSource, opts: ProbeOptions, limits: ArchiveLimits): Promise<ProbedUpload> {
  return withSource(input, (src) => probeSource(src, opts, limits));
}

async function probeSource(src: ByteSource, opts: ProbeOptions, limits: ArchiveLimits): Promise<ProbedUpload> {
  const transcode = opts.transcode ?? defaultTranscodeConfig();
  const s = mediaOfFile(src, transcode);
  if (s.kind === 'coded') {
    // The length is known only once decoded: the job's decode enforces the limits (transcode.ts).
    await decodeCoded(src, s, { transcode, archive: limits }, { signal: opts.signal, probeSec: PROBE_TRANSCODE_SEC });
    return { kind: 'coded' };
  }
  if (s.kind === 'wav') {
    const h = readWavHeader(src);
    const { channels, sampleRate } = h.format;
    const seconds = h.frames / sampleRate;
    checkAudioSeconds(seconds * channels, limits, 'The recording holds', `${channels} channel${channels > 1 ? 's' : ''} of ${formatDuration(seconds)}`, 'TOO_LARGE');
    return { kind: 'wav' };
  }
  const kind = s.kind;
  return withArchiveInput(src, (archive) => probeArchive(archive, kind, src.size, opts, limits));
}

async function probeArchive(archive: ArchiveInput, kind: ArchiveType, size: number, opts: ProbeOptions, limits: ArchiveLimits): Promise<ProbedUpload> {
  const entries = await listArchive(archive, kind, opts.zpass, opts.signal);
  const files = checkEntries(entries, limits, size);
  if (opts.disk) checkDiskSpace(files.reduce((sum, e) => sum + e.size, 0), opts.disk.dir, opts.disk.reserveBytes);
  const { candidates } = classifyMembers(files);
  if (candidates.length === 0) throw noAudio(files);
  // Read likely-audio members: encrypted ones first (the first read proves the password: 7z checks
  // AES / the CRC), then .wav names, smallest first; up to PROBE_READS reads look for a WAV by content.
  const isWavName = (e: ArchiveEntry) => /\.wav$/i.test(e.name);
  const ordered = [...candidates].sort(
    (a, b) => Number(b.encrypted) - Number(a.encrypted) || Number(isWavName(b)) - Number(isWavName(a)) || a.size - b.size,
  );
  const seen: string[] = [];
  for (const entry of ordered.slice(0, PROBE_READS)) {
    const what = sniff(await readMemberHead(archive, kind, entry, opts.zpass, SNIFF_BYTES, opts.signal));
    const accepted = what.kind === 'wav' || (what.kind === 'other' && what.demuxer !== undefined && transcoding(opts.transcode ?? defaultTranscodeConfig()) === 'on');
    if (accepted) return { kind, members: candidates.length };
    seen.push(`${JSON.stringify(entry.name)} is ${what.kind === 'other' ? what.what : `a nested ${what.kind} archive`}`);
  }
  if (ordered.length > PROBE_READS) return { kind, members: candidates.length }; // unpack decides
  throw voxdexError('NO_AUDIO_MEMBERS', `The archive holds no audio: ${seen.join('; ')}. Send audio files in the archive.`);
}

export function noAudio(files: ArchiveEntry[]) {
  const names = files.slice(0, 5).map((e) => JSON.stringify(e.name));
  return voxdexError(
    'NO_AUDIO_MEMBERS',
    files.length ? `The archive holds no audio files (only ${names.join(', ')}${files.length > 5 ? ', ...' : ''}). Send WAV files in the archive.` : 'The archive is empty. Send WAV files in the archive.',
  );
}
