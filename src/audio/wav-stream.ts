/**
 * A stored recording as a browser-playable WAV, converted on the fly: 16-bit signed PCM, the
 * original sample rate, and either every channel, one channel, or all channels mixed to mono.
 * Any byte range of the output can be produced without converting what comes before it, so HTTP
 * range requests (seeking in an <audio> element) cost only the bytes asked for.
 *
 * The samples are exactly what SoX writes for `sox IN -D -b 16 -e signed-integer OUT [remix N | remix -]`:
 * each input sample is taken to SoX's 32-bit internal value, mixing sums those with gain 1/n and
 * rounds half away from zero, and the 32 → 16 bit step adds half a step and shifts (clipping at the
 * top). test/wav-stream.test.ts compares every encoding with SoX.
 */
import { Readable } from 'node:stream';
import { asSource, readFully, withSourceSync, type ByteSource } from './byte-source.js';
import { voxdexError } from '../errors.js';
import { ALAW_TO_INT16, MULAW_TO_INT16 } from './g711.js';
import type { AudioFormat } from '../types.js';
import { parseWavHeader, sourceReader, type WavHeader } from './wav-header.js';

/** `all`: the channels as recorded; `mix`: one channel, the mean of all; a number: that channel alone. */
export type ChannelSelection = 'all' | 'mix' | number;

export const PLAYABLE_HEADER_BYTES = 44;
/** Input frames converted per chunk of output. */
const CHUNK_FRAMES = 16_384;

interface PlayableWav {
  /** The input's format. */
  source: AudioFormat;
  sampleRate: number;
  /** Channels of the output. */
  channels: number;
  frames: number;
  /** Bytes of the whole output file. */
  size: number;
  durationSec: number;
  /** The output bytes `start` to `end`, both inclusive (0 ≤ start ≤ end < size). */
  stream(start: number, end: number): Readable;
}

/**
 * Reads the header of `file` (a stored recording's source, which must stay open while its streams
 * run, or a plain file's path) and describes its playable conversion; BAD_ARGUMENT for a channel it lacks.
 */
export function openPlayableWav(file: string | ByteSource, selection: ChannelSelection): PlayableWav {
  const header = withSourceSync(file, (src) => parseWavHeader(sourceReader(src), src.size));
  const { format, frames } = header;
  if (typeof selection === 'number' && (selection < 0 || selection >= format.channels)) {
    throw voxdexError('BAD_ARGUMENT', `The recording has ${format.channels} channel(s), numbered from 0; channel ${selection} does not exist. Use all, mix or 0 to ${format.channels - 1}.`);
  }
  const channels = selection === 'all' ? format.channels : 1;
  const frameBytes = channels * 2;
  const size = PLAYABLE_HEADER_BYTES + frames * frameBytes;
  if (size > 0xffffffff) throw voxdexError('UNSUPPORTED_AUDIO', 'The recording is too long to play as one WAV file (over 4 GiB as 16-bit PCM).');
  const headerBytes = playableHeader(format.sampleRate, channels, frames);
  return {
    source: format,
    sampleRate: format.sampleRate,
    channels,
    frames,
    size,
    durationSec: frames / format.sampleRate,
    stream(start, end) {
      if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && start <= end && end < size)) {
        throw new RangeError(`bad range ${start}-${end} of ${size}`);
      }
      return Readable.from(chunks(file, header, selection, headerBytes, start, end), { objectMode: false });
    },
  };
}

/** A canonical 44-byte RIFF/WAVE header for 16-bit PCM. */
export function playableHeader(sampleRate: number, channels: number, frames: number): Buffer {
  const data = frames * channels * 2;
  const b = Buffer.alloc(PLAYABLE_HEADER_BYTES);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8, 'ascii');
  b.write('fmt ', 12, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(sampleRate * channels * 2, 28);
  b.writeUInt16LE(channels * 2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(data, 40);
  return b;
}

async function* chunks(file: string | ByteSource, h: WavHeader, selection: ChannelSelection, header: Buffer, start: number, end: number): AsyncGenerator<Buffer> {
  if (start < PLAYABLE_HEADER_BYTES) yield header.subarray(start, Math.min(end + 1, PLAYABLE_HEADER_BYTES));
  if (end < PLAYABLE_HEADER_BYTES) return;
  const outChannels = selection === 'all' ? h.format.channels : 1;
  const frameBytes = outChannels * 2;
  const from = Math.max(start, PLAYABLE_HEADER_BYTES) - PLAYABLE_HEADER_BYTES; // byte offsets into the sample data
  const to = end + 1 - PLAYABLE_HEADER_BYTES; // exclusive
  const firstFrame = Math.floor(from / frameBytes);
  const lastFrame = Math.ceil(to / frameBytes); // exclusive
  const { src, owned } = asSource(file);
  try {
    const input = Buffer.alloc(CHUNK_FRAMES * h.blockAlign);
    for (let f = firstFrame; f < lastFrame; f += CHUNK_FRAMES) {
      const n = Math.min(CHUNK_FRAMES, lastFrame - f);
      const want = n * h.blockAlign;
      const got = await readFully(src, input.subarray(0, want), h.dataOffset + f * h.blockAlign);
      if (got < want) input.fill(0, got, want); // the file shrank under us: silence rather than garbage
      const out = convertFrames(input.subarray(0, want), h.format, selection, n);
      const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
      const lo = f === firstFrame ? from - f * frameBytes : 0;
      const hi = f + n === lastFrame ? to - f * frameBytes : bytes.length;
      yield Buffer.from(bytes.subarray(lo, hi));
    }
  } finally {
    if (owned) await src.close();
  }
}

/** `frames` input frames → 16-bit output samples (interleaved when `all`). Little-endian hosts only (as Node on x86/ARM). */
function convertFrames(src: Uint8Array, fmt: AudioFormat, selection: ChannelSelection, frames: number): Int16Array {
  const nch = fmt.channels;
  const bytes = fmt.bitsPerSample / 8;
  const sample = sampleReader(fmt, src);
  if (selection === 'all') {
    const out = new Int16Array(frames * nch);
    for (let i = 0; i < frames * nch; i++) out[i] = to16(sample(i * bytes));
    return out;
  }
  const out = new Int16Array(frames);
  if (selection === 'mix') {
    const gain = 1 / nch;
    for (let f = 0; f < frames; f++) {
      let sum = 0;
      for (let c = 0; c < nch; c++) sum += sample((f * nch + c) * bytes) * gain;
      out[f] = to16(roundClip32(sum));
    }
  } else {
    for (let f = 0; f < frames; f++) out[f] = to16(sample((f * nch + selection) * bytes));
  }
  return out;
}

/** A reader of one input sample at a byte offset, as SoX's 32-bit internal value. */
function sampleReader(fmt: AudioFormat, src: Uint8Array): (offset: number) => number {
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  switch (fmt.encoding) {
    case 'pcm_u8':
      return (o) => (src[o]! - 128) * 0x1000000;
    case 'pcm_s16':
      return (o) => view.getInt16(o, true) * 0x10000;
    case 'pcm_s24':
      return (o) => ((src[o]! | (src[o + 1]! << 8) | (src[o + 2]! << 16)) << 8); // sign from bit 23 via the shift
    case 'pcm_s32':
      return (o) => view.getInt32(o, true);
    case 'pcm_f32':
      return (o) => {
        const d = view.getFloat32(o, true) * 2147483648;
        if (d < -2147483648) return -2147483648;
        if (d >= 2147483648) return 2147483647;
        return Math.trunc(d);
      };
    case 'mulaw':
      return (o) => MULAW_TO_INT16[src[o]!]! * 0x10000;
    case 'alaw':
      return (o) => ALAW_TO_INT16[src[o]!]! * 0x10000;
  }
}

/** SOX_ROUND_CLIP_COUNT: round half away from zero into the 32-bit range. */
function roundClip32(d: number): number {
  if (d < 0) return d <= -2147483648.5 ? -2147483648 : Math.trunc(d - 0.5);
  return d >= 2147483647.5 ? 2147483647 : Math.trunc(d + 0.5);
}

/** SOX_SAMPLE_TO_SIGNED_16BIT: add half a 16-bit step and keep the top 16 bits; clip at the top. */
function to16(s: number): number {
  if (s > 2147483647 - 32768) return 32767;
  return Math.floor((s + 32768) / 65536);
}
