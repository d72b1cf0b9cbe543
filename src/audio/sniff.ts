/** What a file is, by its first bytes (never by its name). */
import { readAtSync, withSourceSync, type ByteSource } from './byte-source.js';

export type Sniffed =
  | { kind: 'wav' }
  | { kind: 'zip' }
  | { kind: '7z' }
  /**
   * Not RIFF/WAVE or an archive; `what` names it, `audio` says whether it is an audio format, and
   * `demuxer` is the ffmpeg demuxer that reads it when voxdex transcodes it (src/audio/transcode.ts).
   */
  | { kind: 'other'; what: string; audio: boolean; archive: boolean; demuxer?: string };

/** Bytes needed by sniff() (tar's magic sits at 257). */
export const SNIFF_BYTES = 264;

function ascii(b: Uint8Array, at: number, len: number): string {
  return String.fromCharCode(...b.subarray(at, at + len));
}

function other(what: string, audio = false, archive = false): Sniffed {
  return { kind: 'other', what, audio, archive };
}

/** An audio format ffmpeg reads with `demuxer` (forced: ffmpeg never guesses the container). */
function coded(what: string, demuxer: string): Sniffed {
  return { kind: 'other', what, audio: true, archive: false, demuxer };
}

/** `what` without its leading article, for "The … could not be decoded" ("an MP4/M4A file" → "MP4/M4A file"). */
export function withoutArticle(what: string): string {
  return what.replace(/^an? /, '');
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
  if (ascii(head, 0, 3) === 'ID3') return coded('MPEG audio (MP3 with an ID3 tag)', 'mp3');
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xf6) === 0xf0) return coded('AAC audio (ADTS)', 'aac');
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xe0) === 0xe0) return coded('MPEG audio', 'mp3');
  if (s4 === 'OggS') {
    const codec = ascii(head, 28, 8);
    if (codec.startsWith('OpusHead')) return coded('Ogg Opus audio', 'ogg');
    if (codec.startsWith('\x01vorbis')) return coded('Ogg Vorbis audio', 'ogg');
    if (codec.startsWith('\x7fFLAC')) return coded('Ogg FLAC audio', 'ogg');
    return coded('an Ogg file', 'ogg');
  }
  if (s4 === 'fLaC') return coded('FLAC audio', 'flac');
  if (s4 === 'FORM' && /^AIF[FC]$/.test(ascii(head, 8, 4))) return coded('AIFF audio', 'aiff');
  if (s4 === '.snd') return coded('Sun/NeXT AU audio', 'au');
  if (ascii(head, 0, 9) === '#!AMR-WB\n') return coded('AMR-WB audio', 'amr');
  if (ascii(head, 0, 6) === '#!AMR\n') return coded('AMR-NB audio', 'amr');
  if (ascii(head, 0, 5) === '#!AMR') return other('AMR audio (multichannel)', true);
  if (s4 === 'caff') return coded('Core Audio (CAF) audio', 'caf');
  if (ascii(head, 4, 4) === 'ftyp') return coded('an MP4/M4A file', 'mov');
  if (s4 === '\x1a\x45\xdf\xa3') return coded('a Matroska/WebM file', 'matroska');
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

/** Whether this installation transcodes (src/audio/transcode.ts `transcoding`), and if not, why. */
export type TranscodeState = 'on' | 'off' | 'missing' | 'unsandboxed';

const SEND_WAV = 'Send RIFF/WAVE (PCM, mu-law or A-law) or a zip/7z archive of such files.';
const SEND_ANY = 'Send WAV, MP3, FLAC, Ogg (Vorbis, Opus), M4A/AAC, AMR, WebM, or a zip/7z archive of such files.';

/** Why a format that needs transcoding is refused here, and how the operator enables it. */
export function transcodingRefusal(state: Exclude<TranscodeState, 'on'>): string {
  if (state === 'off') return 'transcoding is turned off on this installation (VOXDEX_TRANSCODE=off); the operator enables it by removing that setting';
  if (state === 'missing') return 'transcoding needs ffmpeg, which is not installed on this installation; the operator enables it by installing it (scripts/install.sh, or apt-get install ffmpeg)';
  return 'transcoding runs ffmpeg only inside its sandbox, which cannot be made on this installation (bubblewrap missing, or user namespaces not allowed); the operator enables it by installing bubblewrap (scripts/install.sh, or apt-get install bubblewrap) and allowing unprivileged user namespaces';
}

/** The UNSUPPORTED_AUDIO / NOT_AUDIO message for something that is not accepted in this state. */
export function describeUnsupported(s: Extract<Sniffed, { kind: 'other' }>, state: TranscodeState): string {
  const send = state === 'on' ? SEND_ANY : SEND_WAV;
  if (!s.audio) return `Found ${s.what}, which is not audio voxdex accepts. ${send}`;
  if (!s.demuxer || state === 'on') return `Found ${s.what}, which voxdex does not transcode. ${send}`;
  return `Found ${s.what}; ${transcodingRefusal(state)}. Or ${send.charAt(0).toLowerCase()}${send.slice(1)}`;
}
