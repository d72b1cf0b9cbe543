/** What a file is, by its first bytes (never by its name). */
import { readAtSync, withSourceSync, type ByteSource } from './byte-source.js';

export type Sniffed =
  | { kind: 'wav' }
  | { kind: 'zip' }
  | { kind: '7z' }
  /** Not something voxdex accepts; `what` names it, `audio` says whether it is an audio format. */
  | { kind: 'other'; what: string; audio: boolean; archive: boolean };

/** Bytes needed by sniff() (tar's magic sits at 257). */
export const SNIFF_BYTES = 264;

function ascii(b: Uint8Array, at: number, len: number): string {
  return String.fromCharCode(...b.subarray(at, at + len));
}

function other(what: string, audio = false, archive = false): Sniffed {
  return { kind: 'other', what, audio, archive };
}

export function sniff(head: Uint8Array): Sniffed {
  if (head.length === 0) return other('an empty file');
  const s4 = ascii(head, 0, 4);
  if (s4 === 'RIFF' || s4 === 'RIFX' || s4 === 'RF64') {
    if (head.length < 12) return { kind: 'wav' }; // too short to tell: the WAV parser reports it
    const form = ascii(head, 8, 4);
    if (form === 'WAVE') return { kind: 'wav' };
    if (form === 'AVI ') return other('RIFF AVI video');
    if (form === 'WEBP') return other('RIFF WebP image');
    return other(`a RIFF ${JSON.stringify(form.replace(/[^\x20-\x7e]/g, '?'))} file, not WAVE`);
  }
  if (s4 === 'PK\x03\x04' || s4 === 'PK\x05\x06' || s4 === 'PK\x07\x08') return { kind: 'zip' };
  if (ascii(head, 0, 6) === '7z\xbc\xaf\x27\x1c') return { kind: '7z' };
  if (ascii(head, 0, 3) === 'ID3') return other('MPEG audio (MP3 with an ID3 tag)', true);
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xf6) === 0xf0) return other('AAC audio (ADTS)', true);
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xe0) === 0xe0) return other('MPEG audio', true);
  if (s4 === 'OggS') {
    const codec = ascii(head, 28, 8);
    if (codec.startsWith('OpusHead')) return other('Ogg Opus audio', true);
    if (codec.startsWith('\x01vorbis')) return other('Ogg Vorbis audio', true);
    if (codec.startsWith('\x7fFLAC')) return other('Ogg FLAC audio', true);
    return other('an Ogg file', true);
  }
  if (s4 === 'fLaC') return other('FLAC audio', true);
  if (s4 === 'FORM' && /^AIF[FC]$/.test(ascii(head, 8, 4))) return other('AIFF audio', true);
  if (s4 === '.snd') return other('Sun/NeXT AU audio', true);
  if (ascii(head, 0, 5) === '#!AMR') return other('AMR audio', true);
  if (s4 === 'caff') return other('Core Audio (CAF) audio', true);
  if (ascii(head, 4, 4) === 'ftyp') return other('an MP4/M4A file', true);
  if (s4 === '\x1a\x45\xdf\xa3') return other('a Matroska/WebM file', true);
  if (s4 === 'MThd') return other('a MIDI file', true);
  if (head[0] === 0x1f && head[1] === 0x8b) return other('a gzip archive', false, true);
  if (ascii(head, 0, 6) === 'Rar!\x1a\x07') return other('a RAR archive', false, true);
  if (ascii(head, 0, 3) === 'BZh') return other('a bzip2 archive', false, true);
  if (ascii(head, 0, 6) === '\xfd7zXZ\x00') return other('an xz archive', false, true);
  if (ascii(head, 257, 5) === 'ustar') return other('a tar archive', false, true);
  if (s4 === '%PDF') return other('a PDF document');
  if (s4 === '\x89PNG') return other('a PNG image');
  if (ascii(head, 0, 3) === '\xff\xd8\xff') return other('a JPEG image');
  return other('unknown content');
}

/** Reads the first SNIFF_BYTES of a file or source and sniffs them. */
export function sniffFile(input: string | ByteSource): Sniffed {
  return withSourceSync(input, (src) => sniff(readAtSync(src, 0, SNIFF_BYTES)));
}

/** The UNSUPPORTED_AUDIO / NOT_AUDIO message for something sniff() did not accept. */
export function describeUnsupported(s: Extract<Sniffed, { kind: 'other' }>): string {
  const send = 'Send RIFF/WAVE (PCM, mu-law or A-law) or a zip/7z archive of such files.';
  return s.audio ? `Found ${s.what}; transcoding is not enabled. ${send}` : `Found ${s.what}, which is not audio voxdex accepts. ${send}`;
}
