/**
 * What a file is and who decodes it, in this installation: RIFF/WAVE PCM and G.711 (voxdex's own
 * decoder), an archive, or a format ffmpeg transcodes (src/audio/transcode.ts) — when transcoding
 * is on. Anything else is refused with UNSUPPORTED_AUDIO naming what was found and, for a format that transcoding would read, how the operator enables it.
 */
import type { TranscodeConfig } from '../config.js';
import { withSourceSync, type ByteSource } from './byte-source.js';
import { voxdexError } from '../errors.js';
import { describeUnsupported, sniffFile, transcodingRefusal, type Sniffed, type TranscodeState } from './sniff.js';
import { transcoding } from './transcode.js';
import { sourceReader, wavCodec } from './wav-header.js';

export type Media =
  | { kind: 'wav' }
  | { kind: 'zip' }
  | { kind: '7z' }
  /** Decoded by ffmpeg with this demuxer; `what` names the format in messages. */
  | { kind: 'coded'; what: string; demuxer: string };

/** The compressed codec of a WAV file that voxdex transcodes (GSM 6.10, ADPCM, MP3 in WAV…), if any. */
function fileWavCodec(input: string | ByteSource): ReturnType<typeof wavCodec> {
  return withSourceSync(input, (src) => wavCodec(sourceReader(src), src.size));
}

/**
 * The media of a sniffed file (`codec` reads a WAV's compressed codec) in transcoding state `state`;
 * throws UNSUPPORTED_AUDIO for what is not accepted.
 */
function mediaOf(s: Sniffed, codec: () => ReturnType<typeof wavCodec>, state: TranscodeState): Media {
  if (s.kind === 'wav') {
    const c = codec();
    if (!c) return s;
    const what = `WAV with ${c.name} (format tag 0x${c.tag.toString(16).padStart(4, '0')})`;
    if (state !== 'on') throw voxdexError('UNSUPPORTED_AUDIO', `Found ${what}; ${transcodingRefusal(state)}. Or send PCM, mu-law or A-law WAV.`);
    return { kind: 'coded', what, demuxer: 'wav' };
  }
  if (s.kind !== 'other') return s;
  if (s.audio && s.demuxer && state === 'on') return { kind: 'coded', what: s.what, demuxer: s.demuxer };
  throw voxdexError('UNSUPPORTED_AUDIO', describeUnsupported(s, state));
}

/** mediaOf for a file (a path: a plain file) or source under the installation's transcoding settings. */
export function mediaOfFile(input: string | ByteSource, cfg: TranscodeConfig): Media {
  return mediaOf(sniffFile(input), () => fileWavCodec(input), transcoding(cfg));
}
