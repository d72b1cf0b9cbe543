/**
 * `voxdex transcribe FILE… [--model NAME] [--output FORMAT] [--channels LIST]`: the service's pipeline
 * in this process, no server, no data dir: each file (a WAV, or a zip/7z archive of WAVs, checked by the
 * same probe and limits as an upload) is unpacked, decoded, transcribed by the same ASR pool and models,
 * built into the same transcript document and rendered in the same outputs as `GET …/result`.
 *
 * stdout gets only transcripts: one file → its transcript as the API renders it; several (files or
 * archive members) → json/jsontop one document per line (JSON Lines), text/srt/vtt each preceded by a
 * `==> NAME <==` line (as `tail` does) and separated by a blank line. Progress goes to stderr: a bar
 * for recordings of LONG_SEC or more when stderr is a terminal. A file that fails is reported on
 * stderr and the others still run; the exit status is then 1.
 */
import cliProgress from 'cli-progress';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTranscriber, type Transcriber } from '../asr/transcriber.js';
import { formatDuration } from '../audio/archive-policy.js';
import type { Config } from '../config.js';
import { toVoxdexError, voxdexError } from '../errors.js';
import { buildDocument } from '../stages/document.js';
import { silentLogger } from '../log.js';
import { OUTPUT_FORMATS, renderTranscript } from '../render/output.js';
import { decode } from '../stages/decode.js';
import { probeUpload } from '../stages/probe.js';
import { isFailedItem, unpack } from '../stages/unpack.js';
import type { DecodedAudio, OutputFormat, StageContext, TranscriptDocument } from '../types.js';

/** Recordings at least this long get a progress bar (when stderr is a terminal). */
export const LONG_SEC = 30;

export interface TranscribeCommand {
  files: string[];
  model?: string;
  output: OutputFormat;
  /** Channel numbers to transcribe (default: all). */
  channels?: number[];
}

export interface TranscribeIo {
  out(text: string): void;
  err(text: string): void;
  /** Draw progress bars on this stream (a terminal), or none. */
  progress?: NodeJS.WriteStream;
}

/** Validates the command's option values (the argument parser has checked their names). */
export function transcribeCommand(files: string[], opts: Record<string, string[]>): TranscribeCommand {
  const output = (opts.output?.at(-1) ?? 'text') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(output)) throw voxdexError('BAD_ARGUMENT', `Expected one of ${OUTPUT_FORMATS.join(', ')} for --output but received ${JSON.stringify(output)}`);
  let channels: number[] | undefined;
  const list = opts.channels?.at(-1);
  if (list !== undefined) {
    channels = list.split(',').map((c) => (/^\d{1,3}$/.test(c.trim()) ? Number(c.trim()) : NaN));
    if (channels.some((c) => !Number.isInteger(c) || c > 255) || channels.length === 0) {
      throw voxdexError('BAD_ARGUMENT', `Expected channel numbers such as 0 or 0,1 for --channels but received ${JSON.stringify(list)}`);
    }
    channels = [...new Set(channels)].sort((a, b) => a - b);
  }
  return { files, model: opts.model?.at(-1), output, channels };
}

/** Keeps only the wanted channels of a recording (numbers as in the recording). */
function selectChannels(audio: DecodedAudio, wanted: number[] | undefined, name: string): { audio: DecodedAudio; numbers: number[] } {
  const all = audio.channels.map((_, i) => i);
  if (!wanted) return { audio, numbers: all };
  const missing = wanted.filter((c) => c >= audio.channels.length);
  if (missing.length > 0) throw voxdexError('BAD_ARGUMENT', `${name} has ${audio.channels.length} channel${audio.channels.length > 1 ? 's' : ''} (0-${audio.channels.length - 1}); --channels asked for ${missing.join(', ')}`);
  return { audio: { ...audio, format: { ...audio.format, channels: wanted.length }, channels: wanted.map((c) => audio.channels[c]!) }, numbers: wanted };
}

export async function runTranscribe(cmd: TranscribeCommand, config: Readonly<Config>, io: TranscribeIo): Promise<number> {
  const transcriber: Transcriber = createTranscriber({ config, log: silentLogger });
  const requestid = randomUUID();
  const work = mkdtempSync(path.join(tmpdir(), 'voxdex-transcribe-'));
  const ctx: StageContext = { jobId: requestid, signal: new AbortController().signal, log: silentLogger, config };
  const docs: TranscriptDocument[] = [];
  let failed = 0;
  const fail = (name: string, err: unknown) => {
    failed++;
    const e = toVoxdexError(err);
    io.err(`voxdex: ${name}: ${e.code === 'INTERNAL' ? ((err as Error).stack ?? e.message) : e.message}\n`);
  };
  const emit = (doc: TranscriptDocument, name: string, several: boolean) => {
    const text = renderTranscript(doc, cmd.output);
    if (cmd.output === 'json' || cmd.output === 'jsontop') io.out(`${text}\n`);
    else io.out(several ? `${docs.length > 1 ? '\n' : ''}==> ${name} <==\n${text}` : text);
  };
  try {
    await transcriber.ready();
    for (const [n, file] of cmd.files.entries()) {
      let items: Awaited<ReturnType<typeof unpack>>['items'];
      try {
        await probeUpload(file, {}, config.archive);
        const workDir = path.join(work, String(n));
        mkdirSync(workDir);
        items = (await unpack({ path: file, name: path.basename(file), workDir }, ctx)).items;
      } catch (err) {
        fail(file, err);
        continue;
      }
      for (const item of items) {
        const name = items.length > 1 || item.name !== path.basename(file) ? `${file}:${item.name}` : file;
        if (isFailedItem(item)) {
          fail(name, item.error);
          continue;
        }
        try {
          const decoded = await decode({ path: item.path }, ctx);
          const { audio, numbers } = selectChannels(decoded, cmd.channels, name);
          const started = new Date().toISOString();
          const bar = io.progress && audio.durationSec >= LONG_SEC ? progressBar(io.progress, item.name, audio.durationSec) : undefined;
          let result;
          try {
            result = await transcriber.transcribe(audio, { model: cmd.model, source: item.name, onProgress: (f) => bar?.update(f) });
          } finally {
            bar?.stop();
          }
          // Channel numbers as in the recording (when --channels picked some).
          result = {
            ...result,
            nchannels: decoded.channels.length,
            chaninfo: result.chaninfo.map((c) => ({ ...c, channel: numbers[c.channel]! })),
            utterances: result.utterances.map((u) => ({ ...u, metadata: { ...u.metadata, channel: numbers[u.metadata.channel]! } })),
          };
          const doc = buildDocument({ requestid, source: item.name, started, metadata: item.metadata, warnings: audio.warnings, result });
          docs.push(doc);
          emit(doc, name, cmd.files.length > 1 || items.length > 1);
        } catch (err) {
          fail(name, err);
        }
      }
    }
  } finally {
    await transcriber.close();
    rmSync(work, { recursive: true, force: true });
  }
  return failed > 0 ? 1 : 0;
}

function progressBar(stream: NodeJS.WriteStream, name: string, seconds: number) {
  const bar = new cliProgress.SingleBar(
    { format: `transcribe ${name} [{bar}] {percentage}% | ${formatDuration(seconds)} of audio | eta {eta_formatted}`, stream, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  bar.start(1, 0);
  return {
    update: (fraction: number) => bar.update(Math.min(1, fraction)),
    stop: () => bar.stop(),
  };
}
