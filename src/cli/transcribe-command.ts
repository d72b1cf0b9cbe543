/**
 * `voxdex transcribe FILE… [--model NAME] [--output FORMAT] [--channels LIST] [request options]`: the
 * service's pipeline in this process, no server, no data dir: each file (a WAV, or a zip/7z archive of
 * WAVs, checked by the same probe and limits as an upload) is unpacked and each recording goes through
 * the same processFile as an upload (src/pipeline/process-file.ts: decode, the same ASR pool and models,
 * the post-ASR stages with the same request options, the transcript document), rendered in the same
 * outputs as `GET …/result`.
 *
 * stdout gets only transcripts: one file → its transcript as the API renders it; several (files or
 * archive members) → json/jsontop one document per line (JSON Lines), text/srt/vtt each preceded by a
 * `==> NAME <==` line (as `tail` does) and separated by a blank line. Progress goes to stderr: a bar
 * for each recording when stderr is a terminal (voxdex.ts says the models are loading first). A file that fails is reported on
 * stderr and the others still run; the exit status is then 1. A recording without speech is no failure
 * (exit 0): its empty transcript is printed as the output renders it, and stderr says there was no speech.
 */
import cliProgress from 'cli-progress';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processFile, type FileProgress } from '../pipeline/process-file.js';
import { createTranscriber, type Transcriber } from '../asr/transcriber.js';
import { formatDuration } from '../audio/archive-policy.js';
import { fileSource, type ByteSource } from '../audio/byte-source.js';
import { AudioSeal } from '../audio/sealed-file.js';
import type { Config } from '../config.js';
import { toVoxdexError, voxdexError } from '../errors.js';
import { resolveRequestOptions } from '../jobs/request-options.js';
import { silentLogger } from '../log.js';
import { OUTPUT_FORMATS, renderTranscript } from '../render/output.js';
import { probeUpload } from '../stages/probe.js';
import { isFailedItem, unpack, type UnpackItem } from '../stages/unpack.js';
import type { OutputFormat, RequestOptions, StageContext, TranscriptDocument } from '../types.js';
import { optionFields } from './option-flags.js';

/** Recordings at least this long get a progress bar (when stderr is a terminal): every one, short ones too. */
export const LONG_SEC = 0;

export interface TranscribeCommand {
  files: string[];
  model?: string;
  output: OutputFormat;
  /** Channel numbers to transcribe (default: all). */
  channels?: number[];
  /** From the option flags, as a request without company settings gets them. */
  options: RequestOptions;
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
  return { files, model: opts.model?.at(-1), output, channels, options: resolveRequestOptions(optionFields(opts), {}) };
}

export async function runTranscribe(cmd: TranscribeCommand, config: Readonly<Config>, io: TranscribeIo): Promise<number> {
  const transcriber: Transcriber = createTranscriber({ config, log: silentLogger });
  const requestid = randomUUID();
  const work = mkdtempSync(path.join(tmpdir(), 'voxdex-transcribe-'));
  // Archive members wait in `work` sealed under a key that ends with this process.
  const seal = AudioSeal.ephemeral();
  const ctx: StageContext = { jobId: requestid, signal: new AbortController().signal, log: silentLogger, config };
  let emitted = 0;
  let failed = 0;
  const fail = (name: string, err: unknown) => {
    failed++;
    const e = toVoxdexError(err);
    io.err(`voxdex: ${name}: ${e.code === 'INTERNAL' ? ((err as Error).stack ?? e.message) : e.message}\n`);
  };
  const emit = (doc: TranscriptDocument, name: string, several: boolean) => {
    const text = renderTranscript(doc, cmd.output);
    emitted++;
    if (cmd.output === 'json' || cmd.output === 'jsontop') io.out(`${text}\n`);
    else io.out(several ? `${emitted > 1 ? '\n' : ''}==> ${name} <==\n${text}` : text);
  };
  try {
    await transcriber.ready();
    for (const [n, file] of cmd.files.entries()) {
      let items: UnpackItem[];
      let source: ByteSource | undefined;
      try {
        source = fileSource(file);
        await probeUpload(source, { transcode: config.transcode }, config.archive);
        const workDir = path.join(work, String(n));
        mkdirSync(workDir);
        items = (await unpack({ source, name: path.basename(file), workDir, seal }, ctx)).items;
      } catch (err) {
        await source?.close();
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
          const { document } = await processFile(
            {
              requestid,
              audio: item.source,
              source: item.name,
              model: cmd.model,
              options: cmd.options,
              channels: cmd.channels,
              metadata: item.metadata,
              progress: io.progress ? barProgress(io.progress, item.name) : undefined,
            },
            { transcriber },
            ctx,
          );
          emit(document, name, cmd.files.length > 1 || items.length > 1);
          if (document.utterances.length === 0) io.err(`voxdex: ${name}: no speech found in ${formatDuration(document.audiosecs)} of audio; nothing to transcribe\n`);
        } catch (err) {
          fail(name, err);
        } finally {
          await item.source.close();
        }
      }
      await source.close();
    }
  } finally {
    await transcriber.close();
    rmSync(work, { recursive: true, force: true });
  }
  return failed > 0 ? 1 : 0;
}

/** A progress bar on `stream` for a recording of LONG_SEC or more, drawn while it is transcribed. */
function barProgress(stream: NodeJS.WriteStream, name: string): FileProgress {
  let bar: cliProgress.SingleBar | undefined;
  return {
    decoded(audio) {
      if (audio.durationSec < LONG_SEC) return;
      bar = new cliProgress.SingleBar(
        { format: `transcribe ${name} [{bar}] {percentage}% | ${formatDuration(audio.durationSec)} of audio | eta {eta_formatted}`, stream, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      );
      bar.start(1, 0);
    },
    transcribing: (fraction) => bar?.update(Math.min(1, fraction)),
    transcribed: () => bar?.stop(),
  };
}
