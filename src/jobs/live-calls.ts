/**
 * The live calls of this node (docs/live.md): admission (limits per node and per
 * company), each call's session from its first message to its job, the calls in progress for the
 * web page, and the recovery of calls a crash interrupted.
 *
 * A call is durable from its start: its manifest (what its job row will hold) and its recording are
 * in the data dir's `live/` folder, the recording written as it arrives (src/live/call-recording.ts).
 * When the call ends — the client ends it, drops the connection, stalls, or the service stops — the
 * recording becomes the upload of a normal job with the id given in `started` (JobIntake.submitLive),
 * which the runner takes ahead of waiting uploads; this process hands it the utterances already
 * decoded (liveTranscript), so it is not transcribed twice, and the upload pipeline does the rest
 * (speakers, whole-call redaction, metrics, categories, storage, index, callback). After a crash,
 * recover() turns each call left in `live/` into its job (transcribed from the recording): exactly
 * once, because the job's id is the call's and creating a job that exists changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { LiveCall, type LiveMessage } from '../pipeline/live-call.js';
import type { TranscribeResult, Transcriber } from '../asr/transcriber.js';
import type { BlobStore } from '../blobs/blob-store.js';
import type { Config } from '../config.js';
import { toVoxdexError, voxdexError, VoxdexError, type ErrorInfo } from '../errors.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { assembleRecording, CallRecording } from '../live/call-recording.js';
import { writeFileDurably } from '../live/durable-file.js';
import { IntakePace } from '../live/intake-pace.js';
import type { Logger } from '../log.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { Principal } from '../tenancy/tenancy.js';
import type { AudioFormat, Destination, LiveCallInfo, TranscriptDocument } from '../types.js';
import type { JobIntake, PreparedRequest } from './job-intake.js';
import type { JobRunner } from './runner.js';

export type { LiveMessage };

/** How a session talks to its client (a WebSocket, or a streamed HTTP response). */
export interface LiveTransport {
  send(message: string): void;
  /** No more messages: close the connection. */
  close(): void;
  /** Stop / start reading the client's audio (back-pressure). */
  pause(): void;
  resume(): void;
}

export interface LiveCallsDeps {
  config: Pick<Readonly<Config>, 'live' | 'dataDir' | 'maxUploadBytes'>;
  log: Logger;
  intake: Pick<JobIntake, 'submitLive' | 'liveUploadKey' | 'checkDisk'>;
  runner: Pick<JobRunner, 'enqueue'>;
  store: Pick<JobStore, 'get' | 'items'>;
  blobs: Pick<BlobStore, 'get'>;
  transcriber: Pick<Transcriber, 'liveModel' | 'decodeLive' | 'liveQueued'>;
  categorize?: (destination: Destination, document: TranscriptDocument) => Promise<string[]>;
  /** The installation's key for audio at rest: the recording is sealed as it is written. */
  seal: AudioSeal;
  /** How often the session looks whether its job has finished, ms (default 100). */
  pollMs?: number;
}

/** A call as the start of its manifest holds it. */
interface Manifest {
  id: string;
  key: string;
  source: string;
  started: string;
  prepared: PreparedRequest;
}

export class LiveCalls {
  readonly #d: LiveCallsDeps;
  readonly #dir: string;
  readonly #sessions = new Map<string, LiveSession>();
  /** Calls admitted and still being opened (their files written): counted by admission like open ones. */
  readonly #opening = new Map<string, string>();
  readonly #recorded = new Map<string, TranscribeResult>();
  #stopping = false;

  constructor(deps: LiveCallsDeps) {
    this.#d = deps;
    this.#dir = path.join(deps.config.dataDir, 'live');
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
  }

  /**
   * Admission, counted and taken in one synchronous step (no await between the count and the call's
   * place): OVERLOADED (503) past the node's limit or while stopping, RATE_LIMITED (429) past the
   * company's. The place is held under `id` until open() has the session, or release(id).
   */
  admit(id: string, company: string): void {
    const { maxCalls, maxCallsPerCompany } = this.#d.config.live;
    if (this.#stopping) throw new VoxdexError('OVERLOADED', 'The service is stopping; start the call again in a moment', { retryAfterSec: 10 });
    const calls = this.#sessions.size + this.#opening.size;
    if (calls >= maxCalls) {
      throw new VoxdexError('OVERLOADED', `This node already runs ${calls} live calls, its limit (VOXDEX_LIVE_MAX_CALLS=${maxCalls}); start the call again later or on another node`, { retryAfterSec: 5 });
    }
    const mine = [...this.#sessions.values()].filter((s) => s.destination.company === company).length + [...this.#opening.values()].filter((c) => c === company).length;
    if (maxCallsPerCompany > 0 && mine >= maxCallsPerCompany) {
      throw new VoxdexError('RATE_LIMITED', `Company ${company} already has ${mine} live calls on this node, its limit (VOXDEX_LIVE_MAX_CALLS_PER_COMPANY=${maxCallsPerCompany}); start this one when one has ended`, { retryAfterSec: 5 });
    }
    this.#opening.set(id, company);
  }

  /** Opens a call (its manifest and recording, durably) after admission; the transport is attached with attach(). */
  async open(prepared: PreparedRequest, shape: { format: AudioFormat; partials: boolean }): Promise<LiveSession> {
    const id = randomUUID();
    this.admit(id, prepared.destination.company);
    try {
      const started = new Date();
      const source = `live-${started.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.wav`;
      const manifest: Manifest = { id, key: this.#d.intake.liveUploadKey(id, source), source, started: started.toISOString(), prepared };
      await writeFileDurably(this.#manifestPath(id), JSON.stringify(manifest));
      const recording = await CallRecording.create(this.#recordingPath(id), this.#d.seal);
      const call = new LiveCall(
        { requestid: id, source, destination: prepared.destination, options: prepared.options, model: prepared.model, format: shape.format, partials: shape.partials, recording },
        { transcriber: this.#d.transcriber, log: this.#d.log.child({ requestid: id }), limits: this.#d.config.live, categorize: this.#d.categorize },
        (m) => session.emit(m),
      );
      const session: LiveSession = new LiveSession(this, manifest, call, recording);
      this.#sessions.set(id, session);
      return session;
    } catch (err) {
      this.#remove(id);
      throw err;
    } finally {
      this.#opening.delete(id);
    }
  }

  /** The utterances a live call's job takes instead of transcribing its recording (src/pipeline/file-runner.ts). */
  liveTranscript(jobId: string): TranscribeResult | undefined {
    return this.#recorded.get(jobId);
  }

  /** Calls in progress, of one company or (root) all. */
  list(company?: string): LiveCallInfo[] {
    return [...this.#sessions.values()].filter((s) => company === undefined || s.destination.company === company).map((s) => s.info());
  }

  session(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  /** Whether a principal may see a call (its company's token, or root). */
  static allowed(principal: Principal, session: LiveSession): boolean {
    return principal.kind === 'root' || principal.company === session.destination.company;
  }

  /**
   * Calls a crash left in `live/`: each becomes its job (transcribed from its recording), queued.
   * Run before the runner starts. A call that received no audio leaves nothing.
   */
  async recover(): Promise<number> {
    let n = 0;
    for (const name of readdirSync(this.#dir).filter((f) => f.endsWith('.json'))) {
      const file = path.join(this.#dir, name);
      let m: Manifest;
      try {
        m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      } catch {
        rmSync(file, { force: true }); // written tmp + rename: a torn one is a call that never started
        continue;
      }
      const dir = this.#recordingPath(m.id);
      const upload = `${dir}.upload`;
      const size = existsSync(dir) && !(await this.#d.store.get(m.id)) ? await assembleRecording(dir, this.#d.seal, upload) : undefined;
      if (size === undefined && existsSync(dir) && !(await this.#d.store.get(m.id))) {
        // No audio was received: no request.
        this.#remove(m.id);
        continue;
      }
      const job = await this.#d.intake.submitLive(m.prepared, { id: m.id, key: m.key, file: size === undefined ? undefined : upload, name: m.source, size: size ?? 0 });
      this.#remove(m.id);
      if (job.state === 'queued' || job.state === 'running') this.#d.runner.enqueue(job);
      n++;
    }
    if (n > 0) this.#d.log.info({ calls: n }, 'live calls interrupted by a stop were turned into requests');
    return n;
  }

  /** The service stops: every call ends as if its client had ended it (its job is created), with an error message. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const err = new VoxdexError('OVERLOADED', 'The service is stopping; the call so far is kept and finished as its request', { retryAfterSec: 10 });
    await Promise.allSettled([...this.#sessions.values()].map((s) => s.finish(err, { waitForResult: false })));
  }

  // ------------------------------------------------------------ used by LiveSession

  /** The finished call as a job: the recording stored as its upload, the job queued ahead of uploads (its priority). */
  async submit(session: LiveSession, recorded: TranscribeResult | undefined): Promise<Job> {
    const m = session.manifest;
    const upload = `${this.#recordingPath(m.id)}.upload`;
    const size = await assembleRecording(this.#recordingPath(m.id), this.#d.seal, upload);
    const job = await this.#d.intake.submitLive(m.prepared, { id: m.id, key: m.key, file: upload, name: m.source, size: size ?? 0 });
    this.#remove(m.id);
    if (recorded) this.#recorded.set(m.id, recorded);
    // Its job has LIVE_PRIORITY (JobIntake.submitLive): its client waits for the `result` message.
    this.#d.runner.enqueue(job);
    return job;
  }

  /** Waits for a call's job to settle; its document, or its error. */
  async outcome(id: string): Promise<TranscriptDocument | ErrorInfo> {
    try {
      for (;;) {
        const job = await this.#d.store.get(id);
        if (!job) return { code: 'NOT_FOUND', message: `Request ${id} was deleted` };
        if (job.state === 'done') {
          const item = (await this.#d.store.items(id))[0];
          const body = item?.transcriptPath ? await this.#d.blobs.get(item.transcriptPath) : undefined;
          if (body) return JSON.parse(body.toString('utf8')) as TranscriptDocument;
          return { code: 'INTERNAL', message: `Request ${id} has no transcript` };
        }
        if (job.state === 'failed' || job.state === 'cancelled') return job.error ?? { code: 'REQUEST_FAILED', message: 'The request failed' };
        await new Promise((r) => setTimeout(r, this.#d.pollMs ?? 100));
      }
    } finally {
      this.#recorded.delete(id);
    }
  }

  /** A call that received no audio: its files go, no job is made. */
  discard(session: LiveSession): void {
    this.#remove(session.manifest.id);
  }

  /** A call's files in `live/`: the recording's folder first, the manifest last (recovery starts from it). */
  #remove(id: string): void {
    rmSync(this.#recordingPath(id), { recursive: true, force: true });
    rmSync(`${this.#recordingPath(id)}.upload`, { force: true });
    rmSync(this.#manifestPath(id), { force: true });
  }

  closed(session: LiveSession): void {
    this.#sessions.delete(session.manifest.id);
  }

  get log(): Logger {
    return this.#d.log;
  }

  get limits(): Config['live'] {
    return this.#d.config.live;
  }

  /** The upload's size limit (VOXDEX_MAX_UPLOAD_MIB), which a call's audio may not pass either. */
  get maxBytes(): number {
    return this.#d.config.maxUploadBytes;
  }

  /** OVERLOADED when the data disk is short of space (as for an upload). */
  checkDisk(): void {
    this.#d.intake.checkDisk();
  }

  #manifestPath(id: string): string {
    return path.join(this.#dir, `${id}.json`);
  }

  /** The recording's folder (format and sealed parts). */
  #recordingPath(id: string): string {
    return path.join(this.#dir, id);
  }
}

/**
 * One call from its client's point of view: audio in, messages out (kept, for the web page's
 * followers), the end (by the client, a dropped connection, a stall, a limit, the service stopping)
 * and the result.
 */
export class LiveSession {
  readonly manifest: Manifest;
  readonly call: LiveCall;
  readonly #calls: LiveCalls;
  readonly #recording: CallRecording;
  readonly #messages: string[] = [];
  readonly #followers = new Set<(m: string | undefined) => void>();
  #transport: LiveTransport | undefined;
  #finishing: Promise<void> | undefined;
  #idle: NodeJS.Timeout | undefined;
  #utterances = 0;
  readonly #alerts: string[] = [];
  /** Why reading is paused: ASR backlog, or audio sent faster than the pace allows. */
  readonly #paused = new Set<'backlog' | 'pace'>();
  readonly #pace: IntakePace;
  #paceTimer: NodeJS.Timeout | undefined;
  #bytes = 0;
  /** Messages read while paused for the pace (what the connection had buffered): taken in order on resume. */
  readonly #held: Uint8Array[] = [];
  #diskCheckedAt = 0;

  constructor(calls: LiveCalls, manifest: Manifest, call: LiveCall, recording: CallRecording) {
    this.#calls = calls;
    this.manifest = manifest;
    this.call = call;
    this.#recording = recording;
    this.#pace = new IntakePace(calls.limits.maxSpeed);
  }

  get destination(): Destination {
    return this.manifest.prepared.destination;
  }

  /** Connects the client: `started` is sent, the idle timer runs. */
  attach(transport: LiveTransport): void {
    this.#transport = transport;
    this.call.onDrain = () => {
      if (this.call.backlogSec < this.#calls.limits.maxBacklogSec / 2) this.#resume('backlog');
    };
    this.emit({ type: 'started', requestid: this.manifest.id });
    this.#touch();
  }

  /**
   * One binary message: audio (empty: the end of the call). A message is taken only once the pace
   * allows its whole length (src/live/intake-pace.ts): until then reading is paused, and what the
   * connection had already read is held, in order.
   */
  audio(data: Uint8Array): void {
    if (this.#finishing) return;
    this.#touch();
    this.#held.push(data);
    if (!this.#paused.has('pace')) this.#drain();
  }

  /** Takes the held messages the pace allows; pauses reading until the next one fits. */
  #drain(): void {
    while (this.#held.length > 0 && !this.#finishing) {
      const wait = this.#pace.waitMs(this.call.audioSec + this.#secondsOf(this.#held[0]!), performance.now());
      if (wait > 0) {
        this.#pause('pace');
        this.#paceTimer = setTimeout(() => this.#resume('pace'), wait);
        return;
      }
      this.#accept(this.#held.shift()!);
    }
  }

  /** Seconds of audio in a message, in the call's format; 0 for the first (it may be a WAV header declaring the format). */
  #secondsOf(data: Uint8Array): number {
    if (this.#bytes === 0) return 0;
    const f = this.call.format;
    return data.length / (f.channels * (f.bitsPerSample / 8) * f.sampleRate);
  }

  #accept(data: Uint8Array): void {
    if (data.length === 0) {
      void this.finish();
      return;
    }
    try {
      this.#take(data.length);
      this.call.audio(data);
    } catch (err) {
      void this.finish(toVoxdexError(err));
      return;
    }
    if (this.call.backlogSec > this.#calls.limits.maxBacklogSec) this.#pause('backlog');
  }

  /** The upload's limits on a call's audio: its size (TOO_LARGE) and the data disk's free space (OVERLOADED, checked every MiB). */
  #take(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.#calls.maxBytes) {
      throw voxdexError('TOO_LARGE', `The call's audio is larger than the upload limit of ${Math.round(this.#calls.maxBytes / 1048576)} MiB (VOXDEX_MAX_UPLOAD_MIB); it was ended and is kept as request ${this.manifest.id}`);
    }
    if (this.#bytes - this.#diskCheckedAt >= 1 << 20) {
      this.#diskCheckedAt = this.#bytes;
      this.#calls.checkDisk();
    }
  }

  /** Stops reading the client's audio. Not reading is not the client's idleness: the idle timer waits until reading resumes. */
  #pause(why: 'backlog' | 'pace'): void {
    if (this.#paused.has(why)) return;
    if (this.#paused.size === 0) this.#transport?.pause();
    this.#paused.add(why);
    clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  #resume(why: 'backlog' | 'pace'): void {
    if (!this.#paused.delete(why)) return;
    if (why === 'pace') this.#drain();
    if (this.#paused.size > 0) return;
    this.#transport?.resume();
    this.#touch();
  }

  /** A text message from the client: `{"type":"end"}` ends the call. */
  text(data: string): void {
    if (this.#finishing) return;
    this.#touch();
    let type: unknown;
    try {
      type = (JSON.parse(data) as { type?: unknown }).type;
    } catch {
      type = undefined;
    }
    if (type === 'end') this.audio(new Uint8Array(0));
    else void this.finish(new VoxdexError('BAD_ARGUMENT', 'Expected binary audio messages, an empty binary message or the text message {"type":"end"} to end the call'));
  }

  /** The client went away: the call ends with what was received; nothing more is sent. */
  dropped(): void {
    this.#transport = undefined;
    void this.finish(undefined, { waitForResult: true });
  }

  /**
   * Ends the call once: the rest decoded and sent, its job created; then (unless `waitForResult` is
   * false) the `result` message with the document, or an error; then the transport is closed. With
   * `error`, that error is sent first and the connection closed at once; the job still completes.
   */
  finish(error?: VoxdexError, o: { waitForResult?: boolean } = {}): Promise<void> {
    return (this.#finishing ??= this.#finish(error, o.waitForResult ?? true));
  }

  async #finish(error: VoxdexError | undefined, waitForResult: boolean): Promise<void> {
    clearTimeout(this.#idle);
    clearTimeout(this.#paceTimer);
    this.#idle = undefined;
    const log = this.#calls.log.child({ requestid: this.manifest.id });
    try {
      if (error) {
        this.emit({ type: 'error', code: error.code, message: error.message });
        this.#close();
      }
      const recorded = await this.call.end();
      await this.#recording.finish();
      if (this.call.audioSec === 0) {
        // No audio, no request: nothing was received to keep.
        this.#calls.discard(this);
        if (!error) this.emit({ type: 'error', code: 'BAD_AUDIO', message: `The call ended before any audio was received; request ${this.manifest.id} was not kept` });
        return;
      }
      await this.#calls.submit(this, recorded);
      log.info({ audiosecs: Math.round(this.call.audioSec * 10) / 10, utterances: this.#utterances, ended: error?.code ?? 'by the client' }, 'live call ended');
      if (!waitForResult) return;
      const outcome = await this.#calls.outcome(this.manifest.id);
      if ('code' in outcome) this.emit({ type: 'error', ...outcome });
      else this.emit({ type: 'result', ...outcome });
    } catch (err) {
      const e = toVoxdexError(err);
      log.error({ err: e }, 'live call failed');
      this.emit({ type: 'error', code: e.code, message: e.message });
    } finally {
      this.#close();
      this.#calls.closed(this);
      for (const f of this.#followers) f(undefined);
      this.#followers.clear();
    }
  }

  /** Sends a message to the client and the followers, and keeps it for later followers. */
  emit(m: LiveMessage): void {
    if (m.type === 'utterance') this.#utterances++;
    if (m.type === 'category') this.#alerts.push(m.name);
    const text = JSON.stringify(m);
    this.#messages.push(text);
    this.#transport?.send(text);
    for (const f of this.#followers) f(text);
  }

  /** Every message so far, then each new one; undefined when the call is over. Returns the unsubscribe. */
  follow(listener: (message: string | undefined) => void): () => void {
    for (const m of this.#messages) listener(m);
    if (this.#finishing && !this.#calls.session(this.manifest.id)) {
      listener(undefined);
      return () => {};
    }
    this.#followers.add(listener);
    return () => this.#followers.delete(listener);
  }

  info(): LiveCallInfo {
    const d = this.destination;
    return {
      requestid: this.manifest.id,
      company: d.company,
      org: d.org,
      folder: d.folder,
      started: this.manifest.started,
      audiosecs: Math.round(this.call.audioSec * 1000) / 1000,
      nchannels: this.call.format.channels,
      utterances: this.#utterances,
      categories: [...this.#alerts],
    };
  }

  #close(): void {
    const t = this.#transport;
    this.#transport = undefined;
    t?.close();
  }

  /** The idle timer: a call with no message for idleSec is ended. */
  #touch(): void {
    if (this.#finishing || this.#paused.size > 0) return;
    if (this.#idle) {
      this.#idle.refresh();
      return;
    }
    const sec = this.#calls.limits.idleSec;
    this.#idle = setTimeout(() => {
      void this.finish(new VoxdexError('IDLE_TIMEOUT', `No message for ${sec} s (VOXDEX_LIVE_IDLE_SEC): the call was ended and is kept as request ${this.manifest.id}`));
    }, sec * 1000);
    this.#idle.unref();
  }
}
