/**
 * `voxdex transcribe --channels`: only some channels of a recording go to the ASR, and the result's
 * channel numbers are put back to the recording's.
 */
import { voxdexError } from '../errors.js';
import type { DecodedAudio, TranscribeResult } from '../types.js';

/** The wanted channels of a recording (numbers as in the recording); BAD_ARGUMENT naming the ones it lacks. */
export function selectChannels(audio: DecodedAudio, wanted: number[], name: string): DecodedAudio {
  const missing = wanted.filter((c) => c >= audio.channels.length);
  if (missing.length > 0) throw voxdexError('BAD_ARGUMENT', `${name} has ${audio.channels.length} channel${audio.channels.length > 1 ? 's' : ''} (0-${audio.channels.length - 1}); --channels asked for ${missing.join(', ')}`);
  return { ...audio, format: { ...audio.format, channels: wanted.length }, channels: wanted.map((c) => audio.channels[c]!) };
}

/** The result of transcribing `selectChannels(audio, numbers)` with the recording's channel numbers and count. */
export function renumberChannels(result: TranscribeResult, numbers: number[], nchannels: number): TranscribeResult {
  return {
    ...result,
    nchannels,
    chaninfo: result.chaninfo.map((c) => ({ ...c, channel: numbers[c.channel]! })),
    utterances: result.utterances.map((u) => ({ ...u, metadata: { ...u.metadata, channel: numbers[u.metadata.channel]! } })),
  };
}
