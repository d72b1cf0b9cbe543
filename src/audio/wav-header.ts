/**
 * RIFF/WAVE header parsing (no sample data): chunk walk, fmt (also WAVE_FORMAT_EXTENSIBLE), data.
 * Every malformed header becomes BAD_AUDIO saying what is wrong; formats we do not decode become
 * UNSUPPORTED_AUDIO naming them; a rate outside 8000–48000 Hz becomes BAD_SAMPLE_RATE. WAV files
 * with a compressed codec that ffmpeg decodes (GSM 6.10, ADPCM, MP3…) are found by wavCodec() and
 * transcoded (src/audio/media.ts); parseWavHeader itself reads only what voxdex decodes.
 */
import { readAtSync, withSourceSync, type ByteSource } from './byte-source.js';
import { voxdexError } from '../errors.js';
import type { AudioFormat, SampleEncoding } from '../types.js';

export const MIN_SAMPLE_RATE = 8000;
export const MAX_SAMPLE_RATE = 48000;
/** More channels than this is refused: each channel becomes its own transcription. */
export const MAX_CHANNELS = 256;
/** Larger fmt chunks are treated as corrupt (a real one is 16, 18 or 40 bytes). */
const MAX_FMT_CHUNK_BYTES = 4096;

export interface WavHeader {
  format: AudioFormat;
  /** Bytes per frame (all channels). */
  blockAlign: number;
  /** File offset of the first sample byte. */
  dataOffset: number;
  /** Sample bytes that will be read: whole frames only. */
  dataBytes: number;
  frames: number;
  warnings: string[];
}

/** Reads `length` bytes at `position`; may return fewer at end of file. */
type ReadAt = (position: number, length: number) => Uint8Array;

const FORMAT_TAG_NAMES: Record<number, string> = {
  0x0002: 'Microsoft ADPCM',
  0x0011: 'IMA ADPCM',
  0x0031: 'GSM 6.10',
  0x0040: 'G.721 ADPCM',
  0x0045: 'G.726 ADPCM',
  0x0050: 'MPEG audio',
  0x0055: 'MPEG Layer 3 (MP3)',
  0x0064: 'G.726 ADPCM',
  0x0092: 'Dolby AC-3',
  0x00ff: 'AAC',
  0x0161: 'Windows Media Audio',
  0x1610: 'HE-AAC',
  0xf1ac: 'FLAC',
};

/** Compressed WAV codecs voxdex transcodes through ffmpeg's wav demuxer (src/audio/transcode.ts). */
const TRANSCODED_WAV_TAGS: ReadonlySet<number> = new Set([0x0002, 0x0011, 0x0031, 0x0040, 0x0045, 0x0050, 0x0055, 0x0064]);

/**
 * The codec of a WAV whose format tag (WAVE_FORMAT_EXTENSIBLE's sub-format included) is one voxdex
 * transcodes, e.g. { tag: 0x31, name: 'GSM 6.10' }; undefined for PCM/G.711, other codecs and
 * malformed headers (parseWavHeader reports those).
 */
export function wavCodec(read: ReadAt, fileSize: number): { tag: number; name: string } | undefined {
  const head = read(0, 12);
  if (head.length < 12 || fourcc(head, 0) !== 'RIFF' || fourcc(head, 8) !== 'WAVE') return undefined;
  for (let pos = 12, chunks = 0; pos + 8 <= fileSize && chunks < 64; chunks++) {
    const ch = read(pos, 8);
    if (ch.length < 8) return undefined;
    const size = u32(ch, 4);
    if (fourcc(ch, 0) === 'fmt ') {
      const fmt = read(pos + 8, Math.min(size, 40));
      if (fmt.length < 16) return undefined;
      const tag = u16(fmt, 0) === 0xfffe && fmt.length >= 26 ? u16(fmt, 24) : u16(fmt, 0);
      return TRANSCODED_WAV_TAGS.has(tag) ? { tag, name: FORMAT_TAG_NAMES[tag]! } : undefined;
    }
    if (fourcc(ch, 0) === 'data') return undefined;
    pos += 8 + size + (size & 1);
  }
  return undefined;
}

function bad(message: string) {
  return voxdexError('BAD_AUDIO', `Corrupt WAV file: ${message}. Send a complete RIFF/WAVE file.`);
}

function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) + b[o + 3]! * 0x1000000;
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}

function fourcc(b: Uint8Array, o: number): string {
  return String.fromCharCode(b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!);
}

/** Parses the header of a RIFF/WAVE file of `fileSize` bytes, reading through `read`. */
export function parseWavHeader(read: ReadAt, fileSize: number): WavHeader {
  const warnings: string[] = [];
  const head = read(0, 12);
  if (head.length < 12) throw bad(`file is only ${fileSize} bytes; a RIFF header needs 12`);
  const riff = fourcc(head, 0);
  if (riff === 'RIFX') throw voxdexError('UNSUPPORTED_AUDIO', 'Big-endian RIFX WAVE is not supported; convert to little-endian RIFF/WAVE.');
  if (riff === 'RF64') throw voxdexError('UNSUPPORTED_AUDIO', 'RF64 WAVE is not supported; split the recording into RIFF/WAVE files under 4 GiB.');
  if (riff !== 'RIFF' || fourcc(head, 8) !== 'WAVE') throw bad('missing RIFF/WAVE signature');

  let format: AudioFormat | undefined;
  let blockAlign = 0;
  let pos = 12;
  for (;;) {
    const ch = read(pos, 8);
    if (ch.length < 8) throw bad(format ? 'no data chunk' : 'no fmt chunk');
    const id = fourcc(ch, 0);
    const size = u32(ch, 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (format) throw bad('two fmt chunks');
      if (size < 16) throw bad(`fmt chunk is ${size} bytes; at least 16 are needed`);
      if (size > MAX_FMT_CHUNK_BYTES) throw bad(`fmt chunk claims ${size} bytes; a real one is under ${MAX_FMT_CHUNK_BYTES}`);
      const fmt = read(body, size);
      if (fmt.length < size) throw bad(`fmt chunk is cut off (${fmt.length} of ${size} bytes)`);
      ({ format, blockAlign } = parseFmt(fmt));
    } else if (id === 'data') {
      if (!format) throw bad('data chunk comes before the fmt chunk');
      let bytes = size;
      const available = fileSize - body;
      if (size === 0 || size === 0xffffffff) {
        warnings.push(`data chunk size ${size}; read to end of file`);
        bytes = available;
      } else if (size > available) {
        warnings.push(`data chunk claims ${size} bytes but the file holds ${available}; read to end of file`);
        bytes = available;
      }
      const frames = Math.floor(bytes / blockAlign);
      if (frames * blockAlign !== bytes) warnings.push(`${bytes - frames * blockAlign} trailing bytes of a partial frame ignored`);
      if (frames === 0) throw bad('data chunk holds no samples');
      return { format, blockAlign, dataOffset: body, dataBytes: frames * blockAlign, frames, warnings };
    }
    pos = body + size + (size & 1);
  }
}

function parseFmt(fmt: Uint8Array): { format: AudioFormat; blockAlign: number } {
  let tag = u16(fmt, 0);
  const channels = u16(fmt, 2);
  const sampleRate = u32(fmt, 4);
  const blockAlign = u16(fmt, 12);
  const bitsPerSample = u16(fmt, 14);
  if (tag === 0xfffe) {
    if (fmt.length < 40) throw bad(`WAVE_FORMAT_EXTENSIBLE fmt chunk is ${fmt.length} bytes; 40 are needed`);
    tag = u16(fmt, 24); // first two bytes of the SubFormat GUID are the format tag
  }
  let encoding: SampleEncoding;
  if (tag === 1) {
    const map: Record<number, SampleEncoding> = { 8: 'pcm_u8', 16: 'pcm_s16', 24: 'pcm_s24', 32: 'pcm_s32' };
    const e = map[bitsPerSample];
    if (!e) throw voxdexError('UNSUPPORTED_AUDIO', `WAV PCM with ${bitsPerSample} bits per sample is not supported; use 8, 16, 24 or 32 bits.`);
    encoding = e;
  } else if (tag === 3) {
    if (bitsPerSample !== 32) throw voxdexError('UNSUPPORTED_AUDIO', `WAV floating point with ${bitsPerSample} bits per sample is not supported; use 32-bit float or integer PCM.`);
    encoding = 'pcm_f32';
  } else if (tag === 6 || tag === 7) {
    if (bitsPerSample !== 8) throw bad(`G.711 ${tag === 6 ? 'A-law' : 'mu-law'} with ${bitsPerSample} bits per sample; it has 8`);
    encoding = tag === 6 ? 'alaw' : 'mulaw';
  } else {
    const name = FORMAT_TAG_NAMES[tag] ?? 'an unknown codec';
    throw voxdexError(
      'UNSUPPORTED_AUDIO',
      `WAV with ${name} (format tag 0x${tag.toString(16).padStart(4, '0')}) is not supported. Send PCM, mu-law or A-law.`,
    );
  }
  if (channels === 0) throw bad('fmt chunk says zero channels');
  if (channels > MAX_CHANNELS) throw voxdexError('UNSUPPORTED_AUDIO', `WAV with ${channels} channels; at most ${MAX_CHANNELS} are supported.`);
  if (sampleRate === 0) throw bad('fmt chunk says 0 Hz');
  const expected = channels * (bitsPerSample / 8);
  if (blockAlign !== expected) throw bad(`block align ${blockAlign} does not match ${channels} channel(s) × ${bitsPerSample / 8} byte(s) = ${expected}`);
  if (sampleRate < MIN_SAMPLE_RATE || sampleRate > MAX_SAMPLE_RATE) {
    throw voxdexError('BAD_SAMPLE_RATE', `Sample rate ${sampleRate} Hz is outside ${MIN_SAMPLE_RATE}–${MAX_SAMPLE_RATE} Hz; resample the recording to a rate in that range (8000 or 16000 Hz for calls).`);
  }
  return { format: { encoding, sampleRate, channels, bitsPerSample }, blockAlign };
}

/** Positional reads of a source (header chunks are small; sync reads are fine). */
export function sourceReader(src: ByteSource): ReadAt {
  return (position, length) => readAtSync(src, position, length);
}

/** Reads and checks only the header of a WAV file or source (for the upload acceptance check). */
export function readWavHeader(input: string | ByteSource): WavHeader {
  return withSourceSync(input, (src) => parseWavHeader(sourceReader(src), src.size));
}
