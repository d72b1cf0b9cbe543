/**
 * The audio of a request's archive, measured once its members are extracted and before any is
 * transcribed (docs/audio.md, "Limits per request"): the listing only bounds it by sizes, and a
 * compressed member (FLAC, MP3, AMR) holds far more audio per byte than that bound assumes. A WAV
 * member counts what its header says (frames / rate × channels); a transcoded member is decoded
 * once with its PCM counted and dropped (transcode.ts `countTranscoded`), against what is left of
 * the request's allowance, so the count stops as soon as the sum is over. Over: ARCHIVE_LIMIT for
 * the whole request.
 */
import type { Config } from '../config.js';
import { voxdexError } from '../errors.js';
import type { ByteSource } from './byte-source.js';
import { checkAudioSeconds } from './archive-policy.js';
import { mediaOfFile } from './media.js';
import { countTranscoded } from './transcode.js';
import { readWavHeader } from './wav-header.js';

/**
 * Sums the channel-seconds of `members` (the accepted audio members); throws ARCHIVE_LIMIT once the
 * sum passes VOXDEX_MAX_REQUEST_AUDIO_SEC. A member that cannot be measured (damaged, over the
 * per-file transcoding limit) counts nothing here: its own decode fails it later as a per-file error.
 */
export async function checkMembersAudio(members: ReadonlyArray<{ source: ByteSource }>, config: Pick<Config, 'transcode' | 'archive'>, signal?: AbortSignal): Promise<number> {
  const cap = config.archive.maxAudioSec;
  let sum = 0;
  let measured = 0;
  let stopped = false;
  const over = (seconds: number) =>
    checkAudioSeconds(
      seconds,
      config.archive,
      `The archive's ${members.length} audio members hold${stopped ? ' more than' : ''}`,
      `${measured} of ${members.length} measured${stopped ? ', the last one until the sum passed the limit' : ''}: WAV members by their headers, the others decoded; every channel counted`,
      'ARCHIVE_LIMIT',
    );
  for (const { source } of members) {
    if (signal?.aborted) throw voxdexError('CANCELLED', 'Unpacking was cancelled.');
    measured++;
    try {
      const media = mediaOfFile(source, config.transcode);
      if (media.kind === 'wav') {
        const h = readWavHeader(source);
        sum += (h.frames / h.format.sampleRate) * h.format.channels;
      } else if (media.kind === 'coded') {
        const left = cap - sum;
        const perFile = config.transcode.maxAudioSec;
        const n = await countTranscoded(source, media.demuxer, { ...config.transcode, maxAudioSec: Math.min(perFile, left) }, { what: media.what, signal });
        if (n.over && left < perFile) {
          stopped = true;
          over(sum + n.seconds);
        }
        if (!n.over) sum += n.seconds;
      }
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ARCHIVE_LIMIT' || code === 'CANCELLED') throw err;
    } finally {
      await source.close();
    }
    over(sum);
  }
  return sum;
}

