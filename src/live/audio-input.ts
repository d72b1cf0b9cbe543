/**
 * A live call's audio as it arrives: binary messages of interleaved frames in the declared shape
 * (`encoding` pcm16 | mulaw | alaw, `rate`, `channels`), or a WAV header at the start of the first
 * message that declares it instead. A frame split across two messages is kept until its other part
 * arrives. Each push gives the whole frames received, as the bytes to keep (the recording) and as
 * one Float32Array per channel (for the endpointer and the ASR).
 */
import { parseWavHeader } from '../audio/wav-header.js';
import { voxdexError } from '../errors.js';
import { decodeFrames } from '../stages/decode.js';
import type { AudioFormat } from '../types.js';

export type LiveEncoding = 'pcm16' | 'mulaw' | 'alaw';

export const LIVE_ENCODINGS: readonly LiveEncoding[] = ['pcm16', 'mulaw', 'alaw'];
export const LIVE_MIN_RATE = 8000;
export const LIVE_MAX_RATE = 48000;
export const LIVE_MAX_CHANNELS = 8;

/** The declared shape as a WAV format. */
export function declaredFormat(encoding: LiveEncoding, rate: number, channels: number): AudioFormat {
  const bits = encoding === 'pcm16' ? 16 : 8;
  return { encoding: encoding === 'pcm16' ? 'pcm_s16' : encoding, sampleRate: rate, channels, bitsPerSample: bits };
}

export interface AudioChunk {
  /** Whole frames, as received (what the recording keeps). */
  bytes: Uint8Array;
  /** The same frames, one array per channel, samples in [-1, 1). */
  channels: Float32Array[];
}

export class AudioInput {
  #format: AudioFormat | undefined;
  #declared: AudioFormat;
  #carry: Uint8Array = new Uint8Array(0);
  #first = true;

  constructor(declared: AudioFormat) {
    this.#declared = declared;
  }

  /** The call's format: the declared one, or the WAV header's once the first message is in. */
  get format(): AudioFormat {
    return this.#format ?? this.#declared;
  }

  /** Whether the first audio message has been seen (the format is final). */
  get started(): boolean {
    return !this.#first;
  }

  push(message: Uint8Array): AudioChunk {
    let data = message;
    if (this.#first) {
      this.#first = false;
      this.#format = this.#declared;
      const riff = riffForm(message);
      if (riff !== undefined && riff !== 'WAVE') {
        throw voxdexError(
          'UNSUPPORTED_AUDIO',
          `The stream starts with a RIFF header of a ${JSON.stringify(riff)} file, not a WAV: send raw audio in the declared encoding, or a WAV header first (docs/live.md)`,
        );
      }
      if (isWavHeader(message)) {
        const header = streamWavHeader(message);
        this.#format = header.format;
        data = message.subarray(header.dataOffset);
      }
    }
    const format = this.format;
    const frameBytes = format.channels * (format.bitsPerSample / 8);
    const all = this.#carry.length > 0 ? concat(this.#carry, data) : data;
    const frames = Math.floor(all.length / frameBytes);
    const whole = all.subarray(0, frames * frameBytes);
    this.#carry = all.slice(frames * frameBytes);
    // decodeFrames reads through typed-array views: a copy aligned to 4 bytes.
    const aligned = new Uint8Array(whole.length);
    aligned.set(whole);
    const channels = Array.from({ length: format.channels }, () => new Float32Array(frames));
    if (frames > 0) decodeFrames(aligned, format, channels, 0, frames);
    return { bytes: aligned, channels };
  }
}

/** The form of a RIFF-family header (RIFF, RIFX, RF64) at the start of a message ("WAVE", "AVI ", …), if there is one. */
function riffForm(b: Uint8Array): string | undefined {
  if (b.length < 12 || !/^(RIFF|RIFX|RF64)$/.test(String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!))) return undefined;
  return String.fromCharCode(b[8]!, b[9]!, b[10]!, b[11]!);
}

function isWavHeader(b: Uint8Array): boolean {
  return b.length >= 12 && String.fromCharCode(b[0]!, b[1]!, b[2]!, b[3]!) === 'RIFF' && String.fromCharCode(b[8]!, b[9]!, b[10]!, b[11]!) === 'WAVE';
}

/**
 * The WAV header at the start of a stream: the file parser reading the message as the start of a
 * file of unknown length (a streamed WAV says 0 or 0xFFFFFFFF bytes of data, or the real length).
 * Its errors are the upload's (UNSUPPORTED_AUDIO, BAD_SAMPLE_RATE, BAD_AUDIO).
 */
function streamWavHeader(message: Uint8Array): { format: AudioFormat; dataOffset: number } {
  const header = parseWavHeader((p, n) => message.subarray(p, p + n), Number.MAX_SAFE_INTEGER);
  if (header.dataOffset > message.length) throw voxdexError('BAD_AUDIO', 'The first message ends inside its WAV header; send the whole header (up to the data chunk) in the first binary message');
  const f = header.format;
  if (f.sampleRate < LIVE_MIN_RATE || f.sampleRate > LIVE_MAX_RATE) {
    throw voxdexError('BAD_SAMPLE_RATE', `Sample rate ${f.sampleRate} Hz is outside ${LIVE_MIN_RATE}–${LIVE_MAX_RATE} Hz`);
  }
  if (f.channels > LIVE_MAX_CHANNELS) throw voxdexError('UNSUPPORTED_AUDIO', `A live call has at most ${LIVE_MAX_CHANNELS} channels; the WAV header says ${f.channels}`);
  return { format: f, dataOffset: header.dataOffset };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
