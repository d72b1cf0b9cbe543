/**
 * Transcoding: an audio format voxdex does not decode itself (MP3, FLAC, Ogg, M4A, AMR, GSM WAV,
 * WebM…) → 16-bit PCM at 8–16 kHz, through Debian's `ffmpeg` run as a child process. Every file is
 * treated as hostile:
 * - ffmpeg runs in a sandbox (sandbox.ts): an unprivileged user with no capabilities and
 *   no_new_privs, bubblewrap's namespaces (no network, a file system of /usr alone), no descriptor
 *   but its three pipes, an empty environment, and the kernel's limits (prlimit): CPU seconds
 *   (RLIMIT_CPU), address space (RLIMIT_AS), no file written (RLIMIT_FSIZE 0), no core dump; a
 *   wall-clock limit of three times the CPU limit. Without the sandbox nothing is transcoded;
 * - the bytes (a ByteSource: a sealed upload is unsealed block by block in memory) reach ffmpeg
 *   through its stdin pipe and the PCM comes back through its stdout pipe (`-protocol_whitelist
 *   pipe`), and the container is the one sniff() found (`-f <demuxer>`), so ffmpeg never guesses one
 *   (no playlists, no concat lists that name other files);
 * - the output is counted as it arrives and ffmpeg is killed once it exceeds the audio one file may
 *   hold (the length a header claims is never trusted); the PCM is kept in the blocks it came in
 *   and deinterleaved block by block into the result, never copied whole.
 * Failures become the contract's errors: BAD_AUDIO (undecodable), TOO_LARGE (a limit), CANCELLED.
 */
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import type { TranscodeConfig } from '../config.js';
import { asSource, readAll, type ByteSource } from './byte-source.js';
import { voxdexError } from '../errors.js';
import { moovFirst } from './mp4-faststart.js';
import { transcodingRefusal, withoutArticle, type TranscodeState } from './sniff.js';
import { SANDBOX_ENV, sandboxed } from './sandbox.js';

/** Rates ffmpeg may write: a file at another rate is resampled by ffmpeg to the nearest (44.1/48 kHz → 16 kHz). */
export const TRANSCODED_RATES = [8000, 11025, 12000, 16000] as const;
/** ffmpeg's own cap on one heap allocation. */
const MAX_ALLOC = 256 << 20;
const { SIGXCPU, SIGKILL } = constants.signals;
/** stderr kept for the error message. */
const STDERR_BYTES = 16 << 10;

/** What ffmpeg wrote: interleaved 16-bit little-endian PCM, in the blocks it arrived in. */
export interface TranscodedPcm {
  sampleRate: number;
  channels: number;
  /** Frames in all blocks together. */
  frames: number;
  /**
   * The PCM in blocks of whole frames, each starting at an even byte offset (never joined into one
   * buffer: the caller deinterleaves block by block and may drop each once read).
   */
  blocks: Buffer[];
  /** What ffmpeg complained about while it still decoded (a truncated file, a damaged frame). */
  warnings: string[];
}

interface TranscodeOptions {
  /** The format's name for messages ("MPEG audio"). */
  what: string;
  signal?: AbortSignal;
  /** Decode only this many seconds (the acceptance check). */
  probeSec?: number;
}

/** What a counting decode found (countTranscoded): the channel-seconds, or that there are more than allowed. */
export interface TranscodedLength {
  /** Channel-seconds decoded (when `over`, as far as ffmpeg got before it was stopped). */
  seconds: number;
  /** The file decodes to more than the `maxAudioSec` it was counted against. */
  over: boolean;
}

/** Whether ffmpeg runs, and runs in the sandbox, per program: checked once per process. */
const runs = new Map<string, TranscodeState>();

/**
 * Whether this installation transcodes: 'off' (VOXDEX_TRANSCODE=off), 'missing' (no ffmpeg),
 * 'unsandboxed' (ffmpeg runs, but not in the sandbox: bubblewrap missing, or no user namespaces
 * here; transcoding is refused, fail closed) or 'on'.
 */
export function transcoding(cfg: TranscodeConfig): TranscodeState {
  if (!cfg.enabled) return 'off';
  let state = runs.get(cfg.ffmpeg);
  if (state === undefined) {
    const version = ['-hide_banner', '-version'];
    const sandbox = sandboxed(cfg.ffmpeg, version, cfg);
    const runs1 = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore', timeout: 20_000, env: SANDBOX_ENV }).status === 0;
    state = !runs1('prlimit', ['--core=0', '--', cfg.ffmpeg, ...version]) ? 'missing' : runs1(sandbox.command, sandbox.args) ? 'on' : 'unsandboxed';
    runs.set(cfg.ffmpeg, state);
  }
  return state;
}

/** The ffmpeg command line (after the program name). */
export function ffmpegArgs(demuxer: string, probeSec?: number): string[] {
  return [
    // Damaged frames are skipped with a warning, however many (the silence fill below keeps the times):
    // ffmpeg 5.1 cannot decode AMR-NB comfort noise and would otherwise fail a file of mostly pauses.
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-max_alloc', String(MAX_ALLOC), '-max_error_rate', '1',
    '-threads', '1', '-filter_threads', '1',
    '-protocol_whitelist', 'pipe', '-f', demuxer, '-i', 'pipe:0',
    '-map', '0:a:0', '-vn', '-sn', '-dn', '-map_metadata', '-1', '-bitexact',
    // Gaps in the timestamps (frames the decoder dropped: AMR comfort noise, damaged MP3 frames) become
    // silence, so word times stay those of the recording.
    '-af', `aresample=async=1:first_pts=0,aformat=sample_fmts=s16:sample_rates=${TRANSCODED_RATES.join('|')}`,
    ...(probeSec ? ['-t', String(probeSec)] : []),
    '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1',
  ];
}

/** The input as ffmpeg reads it: MP4 with the index first (mp4-faststart.ts, in memory), anything else streamed as it is. */
async function inputBytes(source: ByteSource, demuxer: string): Promise<Readable | Uint8Array> {
  return demuxer === 'mov' ? moovFirst(await readAll(source)) : source.stream();
}

/** Decodes `input` (a path: a plain file, or a source) read as `demuxer`. */
export async function transcode(input: string | ByteSource, demuxer: string, cfg: TranscodeConfig, opts: TranscodeOptions): Promise<TranscodedPcm> {
  const { src, owned } = asSource(input);
  try {
    return await transcodeSource(src, demuxer, cfg, opts);
  } finally {
    if (owned) await src.close();
  }
}

/**
 * Decodes `input` only to measure it: the PCM is counted and dropped, never held. ffmpeg is stopped
 * as soon as the output exceeds `cfg.maxAudioSec` channel-seconds (then `over`).
 */
export async function countTranscoded(input: string | ByteSource, demuxer: string, cfg: TranscodeConfig, opts: TranscodeOptions): Promise<TranscodedLength> {
  const { src, owned } = asSource(input);
  try {
    return await runFfmpeg(src, demuxer, cfg, opts, new PcmCollector(cfg.maxAudioSec, false), (out) => out.length());
  } catch (err) {
    if (err instanceof OverLimit) return { seconds: err.seconds, over: true };
    throw err;
  } finally {
    if (owned) await src.close();
  }
}

function transcodeSource(source: ByteSource, demuxer: string, cfg: TranscodeConfig, opts: TranscodeOptions): Promise<TranscodedPcm> {
  return runFfmpeg(source, demuxer, cfg, opts, new PcmCollector(cfg.maxAudioSec, true), (out, warnings) => {
    const pcm = out.finish();
    if (pcm.frames === 0) throw voxdexError('BAD_AUDIO', `The ${withoutArticle(opts.what)} holds no audio that could be decoded${warnings.length ? ` (ffmpeg: ${warnings[0]})` : ''}. Send a complete recording.`);
    return { ...pcm, warnings: warnings.slice(0, 3).map((l) => `ffmpeg: ${l}`) };
  });
}

async function runFfmpeg<T>(source: ByteSource, demuxer: string, cfg: TranscodeConfig, opts: TranscodeOptions, out: PcmCollector, done: (out: PcmCollector, lines: string[]) => T): Promise<T> {
  if (opts.signal?.aborted) throw voxdexError('CANCELLED', 'Decoding was cancelled.');
  const input = await inputBytes(source, demuxer);
  const sandbox = sandboxed(cfg.ffmpeg, ffmpegArgs(demuxer, opts.probeSec), cfg);
  const child = spawn(sandbox.command, sandbox.args, { stdio: ['pipe', 'pipe', 'pipe'], env: SANDBOX_ENV });
  return new Promise<T>((resolve, reject) => {
    let stderr = '';
    let stopped: Error | undefined;
    const stop = (err: Error) => {
      stopped ??= err;
      child.kill('SIGKILL');
    };
    const wall = setTimeout(() => stop(tooLong(opts.what, cfg)), cfg.cpuSec * 3000);
    const onAbort = () => stop(voxdexError('CANCELLED', 'Decoding was cancelled.'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdin.on('error', () => {}); // ffmpeg may stop reading early (a probe, an error): EPIPE is expected
    if (input instanceof Uint8Array) child.stdin.end(input);
    else {
      input.on('error', (err) => stop(voxdexError('BAD_AUDIO', `The ${withoutArticle(opts.what)} could not be read (${err.message}).`)));
      input.pipe(child.stdin);
    }
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      try {
        out.push(chunk);
      } catch (err) {
        stop(err as Error);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_BYTES) stderr += chunk.toString('latin1');
    });
    child.on('error', () => stop(voxdexError('UNSUPPORTED_AUDIO', `Found ${opts.what}; ${transcodingRefusal('missing')}.`)));
    child.on('close', (code, signal) => {
      clearTimeout(wall);
      if (!(input instanceof Uint8Array)) input.destroy();
      opts.signal?.removeEventListener('abort', onAbort);
      const lines = ffmpegLines(stderr);
      if (stopped) return reject(stopped);
      // Over RLIMIT_CPU ffmpeg gets SIGXCPU, then SIGKILL; bubblewrap exits with 128 + the signal.
      if (signal === 'SIGXCPU' || signal === 'SIGKILL' || code === 128 + SIGXCPU || code === 128 + SIGKILL) return reject(tooLong(opts.what, cfg));
      if (code !== 0 || signal) {
        if (lines.some((l) => /cannot allocate memory|out of memory|failed to map segment/i.test(l))) {
          return reject(voxdexError('TOO_LARGE', `Decoding the ${withoutArticle(opts.what)} needed more than the ${cfg.memoryBytes >> 20} MiB of memory allowed (VOXDEX_TRANSCODE_MEMORY_MIB). Split the recording, or convert it to WAV.`));
        }
        return reject(undecodable(opts.what, lines));
      }
      try {
        resolve(done(out, lines));
      } catch (err) {
        reject(err);
      }
    });
  });
}

function tooLong(what: string, cfg: TranscodeConfig) {
  return voxdexError('TOO_LARGE', `Decoding the ${withoutArticle(what)} took longer than allowed (${cfg.cpuSec} CPU seconds, VOXDEX_TRANSCODE_CPU_SEC). Split the recording, or convert it to WAV.`);
}

function undecodable(what: string, lines: string[]) {
  return voxdexError('BAD_AUDIO', `The ${withoutArticle(what)} could not be decoded${lines.length ? ` (ffmpeg: ${lines[0]})` : ''}. Send a complete, undamaged recording.`);
}

/** ffmpeg's error lines, printable, without "pipe:0:" prefixes and repeats; at most 200 characters each. */
export function ffmpegLines(stderr: string): string[] {
  const seen = new Set<string>();
  for (const raw of stderr.split(/\r?\n/)) {
    const line = raw
      .replace(/[^\x20-\x7e]/g, '?')
      .replace(/^\[[^\]]*\]\s*/, '')
      .replace(/^pipe:[01]:\s*/, '')
      .trim()
      .slice(0, 200);
    if (line && !/^Last message repeated/.test(line) && !/Broken pipe/.test(line)) seen.add(line);
  }
  return [...seen];
}

/** The output passed the limit it was counted against (TOO_LARGE when decoding, `over` when counting). */
class OverLimit extends Error {
  constructor(readonly seconds: number, maxAudioSec: number) {
    super(`The recording decodes to more than ${maxAudioSec} seconds of audio (every channel counted; VOXDEX_TRANSCODE_MAX_AUDIO_SEC=${maxAudioSec}). Split it into shorter files.`);
  }
}

/**
 * ffmpeg's WAV output as it arrives: the header (fmt, then data of unknown size) gives the rate and
 * channels; the sample bytes are counted against the limit (channel-seconds) and kept (`keep`) or dropped.
 */
class PcmCollector {
  #head = Buffer.alloc(0);
  #format: { sampleRate: number; channels: number } | undefined;
  #chunks: Buffer[] = [];
  /** A partial frame left at the end of the last block, carried into the next. */
  #carry = Buffer.alloc(0);
  #bytes = 0;
  #maxBytes = Infinity;

  constructor(
    private readonly maxAudioSec: number,
    private readonly keep: boolean,
  ) {}

  /** Channel-seconds so far. */
  length(): TranscodedLength {
    return { seconds: this.#format ? this.#bytes / (2 * this.#format.sampleRate) : 0, over: false };
  }

  push(chunk: Buffer): void {
    if (!this.#format) {
      this.#head = Buffer.concat([this.#head, chunk]);
      const h = wavStreamHeader(this.#head);
      if (!h) {
        if (this.#head.length > 1 << 16) throw voxdexError('INTERNAL', 'ffmpeg wrote no WAV header');
        return;
      }
      this.#format = h;
      this.#maxBytes = this.maxAudioSec * h.sampleRate * 2;
      chunk = this.#head.subarray(h.dataOffset);
      this.#head = Buffer.alloc(0);
    }
    this.#bytes += chunk.length;
    if (this.#bytes > this.#maxBytes) {
      const over = new OverLimit(this.length().seconds, this.maxAudioSec);
      throw this.keep ? voxdexError('TOO_LARGE', over.message) : over;
    }
    if (this.keep) this.#keep(chunk);
  }

  /** Keeps `chunk` as whole frames at an even offset; the partial frame at its end waits for the next. */
  #keep(chunk: Buffer): void {
    const frameBytes = this.#format!.channels * 2;
    if (this.#carry.length) {
      chunk = Buffer.concat([this.#carry, chunk]);
      this.#carry = Buffer.alloc(0);
    }
    const whole = chunk.length - (chunk.length % frameBytes);
    if (whole < chunk.length) this.#carry = Buffer.from(chunk.subarray(whole));
    if (whole === 0) return;
    const block = chunk.subarray(0, whole);
    this.#chunks.push(block.byteOffset % 2 === 0 ? block : Buffer.from(block));
  }

  finish(): Omit<TranscodedPcm, 'warnings'> {
    const f = this.#format ?? { sampleRate: TRANSCODED_RATES[0], channels: 1 };
    const blocks = this.#chunks;
    this.#chunks = [];
    const frames = blocks.reduce((n, b) => n + b.length, 0) / (f.channels * 2);
    return { sampleRate: f.sampleRate, channels: f.channels, frames, blocks };
  }
}

/** The rate, channels and data offset of ffmpeg's WAV output, once its header is complete. */
function wavStreamHeader(b: Buffer): { sampleRate: number; channels: number; dataOffset: number } | undefined {
  if (b.length < 12) return undefined;
  if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') throw voxdexError('INTERNAL', 'ffmpeg wrote no WAV header');
  let fmt: { sampleRate: number; channels: number } | undefined;
  for (let pos = 12; pos + 8 <= b.length; ) {
    const id = b.toString('latin1', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    if (id === 'data') return fmt && { ...fmt, dataOffset: pos + 8 };
    if (id === 'fmt ') {
      if (pos + 16 > b.length) return undefined;
      fmt = { channels: b.readUInt16LE(pos + 10), sampleRate: b.readUInt32LE(pos + 12) };
    }
    pos += 8 + size + (size & 1);
  }
  return undefined;
}
