/**
 * Decode stage: an audio file's bytes (a ByteSource: a sealed upload or member, a plain file,
 * memory) → DecodedAudio (one Float32Array per channel, samples in [-1, 1)). RIFF/WAVE PCM and G.711
 * are decoded here: the source is read in blocks of whole frames into one reusable, aligned buffer and
 * deinterleaved through typed-array views, so a 250 MiB file never sits in memory twice. The formats
 * ffmpeg transcodes (src/audio/media.ts) are streamed to it through a pipe and come back as 16-bit PCM
 * at 8–16 kHz, deinterleaved the same way.
 */
import { endianness } from 'node:os';
import { readFully, withSource, type ByteSource } from '../audio/byte-source.js';
import { voxdexError } from '../errors.js';
import type { AudioFormat, DecodedAudio, Stage } from '../types.js';
import { parseWavHeader, sourceReader, type WavHeader } from '../audio/wav-header.js';
import { ALAW_TO_FLOAT, MULAW_TO_FLOAT } from '../audio/g711.js';
import { mediaOfFile, type Media } from '../audio/media.js';
import { transcode, type TranscodedPcm } from '../audio/transcode.js';
import { MAX_CHANNELS } from '../audio/wav-header.js';
import type { Config } from '../config.js';

export { parseWavHeader, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE, type WavHeader } from '../audio/wav-header.js';

if (endianness() !== 'LE') throw new Error('voxdex decodes WAV through little-endian typed arrays; this host is big-endian');

const BLOCK_BYTES = 1 << 22; // 4 MiB per read

/** Decodes a whole WAV file held in memory. */
export function decodeWavBuffer(buf: Uint8Array): DecodedAudio {
  const header = parseWavHeader((p, n) => buf.subarray(p, p + n), buf.length);
  const out = allocate(header);
  let data = buf.subarray(header.dataOffset, header.dataOffset + header.dataBytes);
  if (data.byteOffset % 4 !== 0) data = new Uint8Array(data); // a copy: typed-array views need alignment
  decodeFrames(data, header.format, out, 0, header.frames);
  return result(header, out);
}

/** Decodes a WAV file (a path: read as a plain file) or source, in blocks; checks `signal` between blocks. */
export function decodeWav(input: string | ByteSource, signal?: AbortSignal): Promise<DecodedAudio> {
  return withSource(input, (src) => decodeSource(src, signal));
}

async function decodeSource(src: ByteSource, signal?: AbortSignal): Promise<DecodedAudio> {
  const header = parseWavHeader(sourceReader(src), src.size);
  const out = allocate(header);
  const framesPerBlock = Math.max(1, Math.floor(BLOCK_BYTES / header.blockAlign));
  const block = Buffer.allocUnsafeSlow(Math.min(framesPerBlock, header.frames) * header.blockAlign);
  let frame = 0;
  while (frame < header.frames) {
    if (signal?.aborted) throw voxdexError('CANCELLED', 'Decoding was cancelled.');
    const frames = Math.min(framesPerBlock, header.frames - frame);
    const got = await readFully(src, block.subarray(0, frames * header.blockAlign), header.dataOffset + frame * header.blockAlign);
    const whole = Math.floor(got / header.blockAlign);
    decodeFrames(block.subarray(0, whole * header.blockAlign), header.format, out, frame, whole);
    frame += whole;
    if (whole < frames) {
      header.warnings.push(`file ended after ${frame} of ${header.frames} frames`);
      return result(header, out.map((c) => c.subarray(0, frame)));
    }
  }
  return result(header, out);
}

/** The pipeline stage: the recording's bytes → samples; voxdex's decoder for WAV PCM and G.711, ffmpeg for the formats it transcodes. */
export const decode: Stage<{ source: ByteSource }, DecodedAudio> = async (input, ctx) => {
  const media = mediaOfFile(input.source, ctx.config.transcode);
  if (media.kind === 'coded') return decodeCoded(input.source, media, ctx.config, { signal: ctx.signal });
  return decodeWav(input.source, ctx.signal);
};

/**
 * A transcoded file (a path: read as a plain file, or a source) as DecodedAudio. The file may decode to at most the
 * smaller of VOXDEX_TRANSCODE_MAX_AUDIO_SEC and the request's VOXDEX_MAX_REQUEST_AUDIO_SEC;
 * `probeSec` decodes only the beginning (the acceptance check).
 */
export async function decodeCoded(
  source: string | ByteSource,
  media: Extract<Media, { kind: 'coded' }>,
  config: Pick<Config, 'transcode' | 'archive'>,
  opts: { signal?: AbortSignal; probeSec?: number } = {},
): Promise<DecodedAudio> {
  const cfg = { ...config.transcode, maxAudioSec: Math.min(config.transcode.maxAudioSec, config.archive.maxAudioSec) };
  return pcmAudio(await transcode(source, media.demuxer, cfg, { what: media.what, ...opts }), media.what);
}

/**
 * ffmpeg's PCM blocks → one Float32Array per channel. Each block is deinterleaved into place and
 * dropped at once, so the memory at the peak is the result and the 16-bit blocks not yet read (at
 * most 1.5 times the result), never a joined copy (docs/audio.md, "Memory").
 */
function pcmAudio(t: TranscodedPcm, what: string): DecodedAudio {
  if (t.channels === 0 || t.channels > MAX_CHANNELS) throw voxdexError('UNSUPPORTED_AUDIO', `The ${what} has ${t.channels} channels; 1 to ${MAX_CHANNELS} are supported.`);
  const format: AudioFormat = { encoding: 'pcm_s16', sampleRate: t.sampleRate, channels: t.channels, bitsPerSample: 16, transcodedFrom: what };
  const out = Array.from({ length: t.channels }, () => new Float32Array(t.frames));
  const blocks = t.blocks;
  let at = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    blocks[i] = EMPTY; // read once: the garbage collector may take it back now
    const frames = block.length / (2 * t.channels);
    decodeFrames(block, format, out, at, frames);
    at += frames;
  }
  blocks.length = 0;
  return { format, channels: out, durationSec: t.frames / t.sampleRate, warnings: t.warnings };
}

const EMPTY = Buffer.alloc(0);

function allocate(h: WavHeader): Float32Array[] {
  return Array.from({ length: h.format.channels }, () => new Float32Array(h.frames));
}

function result(h: WavHeader, channels: Float32Array[]): DecodedAudio {
  const frames = channels[0]?.length ?? 0;
  return { format: h.format, channels, durationSec: frames / h.format.sampleRate, warnings: h.warnings };
}

/**
 * Deinterleaves `frames` frames from `src` (byteOffset aligned to 4) into `out[c][at..]`.
 * One loop per encoding and layout; no per-sample calls.
 */
export function decodeFrames(src: Uint8Array, fmt: AudioFormat, out: Float32Array[], at: number, frames: number): void {
  const nch = fmt.channels;
  const n = frames * nch;
  switch (fmt.encoding) {
    case 'mulaw':
    case 'alaw': {
      const table = fmt.encoding === 'mulaw' ? MULAW_TO_FLOAT : ALAW_TO_FLOAT;
      const v = src.subarray(0, n);
      lookup(v, table, out, at, frames, nch);
      return;
    }
    case 'pcm_u8': {
      const v = src.subarray(0, n);
      lookup(v, U8_TO_FLOAT, out, at, frames, nch);
      return;
    }
    case 'pcm_s16':
      scale(new Int16Array(src.buffer, src.byteOffset, n), 1 / 32768, out, at, frames, nch);
      return;
    case 'pcm_s32':
      scale(new Int32Array(src.buffer, src.byteOffset, n), 1 / 2147483648, out, at, frames, nch);
      return;
    case 'pcm_f32':
      scale(new Float32Array(src.buffer, src.byteOffset, n), 1, out, at, frames, nch);
      return;
    case 'pcm_s24': {
      const k = 1 / 8388608;
      for (let c = 0; c < nch; c++) {
        const o = out[c]!;
        let p = c * 3;
        const step = nch * 3;
        for (let i = 0; i < frames; i++, p += step) {
          o[at + i] = (((src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16)) << 8) >> 8) * k;
        }
      }
      return;
    }
  }
}

const U8_TO_FLOAT = new Float32Array(256).map((_, i) => (i - 128) / 128);

function lookup(v: Uint8Array, table: Readonly<Float32Array>, out: Float32Array[], at: number, frames: number, nch: number): void {
  if (nch === 1) {
    const o = out[0]!;
    for (let i = 0; i < frames; i++) o[at + i] = table[v[i]!]!;
  } else if (nch === 2) {
    const l = out[0]!;
    const r = out[1]!;
    for (let i = 0, p = 0; i < frames; i++, p += 2) {
      l[at + i] = table[v[p]!]!;
      r[at + i] = table[v[p + 1]!]!;
    }
  } else {
    for (let c = 0; c < nch; c++) {
      const o = out[c]!;
      for (let i = 0, p = c; i < frames; i++, p += nch) o[at + i] = table[v[p]!]!;
    }
  }
}

function scale(v: Int16Array | Int32Array | Float32Array, k: number, out: Float32Array[], at: number, frames: number, nch: number): void {
  if (nch === 1) {
    const o = out[0]!;
    for (let i = 0; i < frames; i++) o[at + i] = v[i]! * k;
  } else if (nch === 2) {
    const l = out[0]!;
    const r = out[1]!;
    for (let i = 0, p = 0; i < frames; i++, p += 2) {
      l[at + i] = v[p]! * k;
      r[at + i] = v[p + 1]! * k;
    }
  } else {
    for (let c = 0; c < nch; c++) {
      const o = out[c]!;
      for (let i = 0, p = c; i < frames; i++, p += nch) o[at + i] = v[p]! * k;
    }
  }
}
