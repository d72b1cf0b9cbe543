/**
 * One live call through the one pipeline, as its audio arrives (docs/live.md, docs/pipeline.md):
 *
 *   audio message → recording (call-recording.ts, durable as it arrives)
 *                 → per channel: endpointer (an utterance has ended) → ASR pool, ahead of batch work
 *                 → the stage table's per-utterance parts (live-stages.ts: numbers, roles; then, once
 *                   the redaction hold lets it go, redaction over the call so far, readable text,
 *                   sentiment) → `utterance` message → the categories stage over the call so far (alerts)
 *
 * and at the end, every utterance still open is decoded and sent; end() resolves to the call's
 * utterances as the ASR gave them (a TranscribeResult), which the call's job hands to the batch driver
 * instead of decoding the recording again (src/live/recorded-transcriber.ts): the same table, its
 * whole-call parts (speakers, silenced audio, metrics, categories) included, once, as for an upload.
 * Nothing here stores anything but the recording; the job is src/jobs/live-calls.ts's.
 */
import type { LiveModel, TranscribeResult, Transcriber } from '../asr/transcriber.js';
import { resampleToInt16 } from '../audio/resample.js';
import { toVoxdexError, voxdexError, type ErrorInfo } from '../errors.js';
import { AudioInput } from '../live/audio-input.js';
import type { CallRecording } from '../live/call-recording.js';
import type { Endpointed, Endpointer, LiveSegment } from '../asr/endpointer.js';
import { LocalAgreement, partialText } from '../live/partials.js';
import type { Logger } from '../log.js';
import { LiveRedaction } from '../redact/engine.js';
import { marksText, redactionKinds, redactMode } from '../redact/stage.js';
import { categoryDocument, type Categorize } from '../analytics/categories-stage.js';
import { documentUtterance } from '../stages/document.js';
import type { AudioFormat, Destination, PipelineStage, RequestOptions, TranscriptDocument, Utterance, WordEvent } from '../types.js';
import { LiveStages } from './live-stages.js';
import { stageTable } from './stage-table.js';

export type LiveMessage =
  | { type: 'started'; requestid: string }
  | { type: 'partial'; channel: number; text: string }
  | ({ type: 'utterance' } & Utterance)
  | { type: 'category'; name: string; at: number }
  | ({ type: 'result' } & TranscriptDocument)
  | ({ type: 'error' } & ErrorInfo);

export interface LiveCallInput {
  requestid: string;
  /** The call's name in its document (`source`). */
  source: string;
  destination: Destination;
  options: RequestOptions;
  /** Registry name/alias or 'auto'. */
  model: string;
  /** The declared audio shape (a WAV header in the first message replaces it). */
  format: AudioFormat;
  partials: boolean;
  recording: CallRecording;
}

export interface LiveCallLimits {
  /** Longest call, seconds of audio. */
  maxCallSec: number;
  /** Least time between two partial decodes of a channel, seconds. */
  partialEverySec: number;
}

export interface LiveCallDeps {
  transcriber: Pick<Transcriber, 'liveModel' | 'decodeLive' | 'liveQueued'>;
  log: Logger;
  limits: LiveCallLimits;
  /** The company's categories the call so far is in (src/analytics/categories.ts `categorizer`). */
  categorize?: Categorize;
}

interface Channel {
  channel: number;
  endpointer: Endpointer;
  /** Every utterance starting before this sample is decoded or in flight (the endpointer's last push). */
  committed: number;
  /** The pushes the endpointer has not answered yet. */
  endpointing: Set<Promise<void>>;
  /** Decodes in flight: their speech start, seconds. */
  inflight: Map<number, number>;
  speechSec: number;
  partial: LocalAgreement;
  partialBusy: boolean;
  partialAt: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export class LiveCall {
  readonly input: LiveCallInput;
  readonly #deps: LiveCallDeps;
  readonly #emit: (m: LiveMessage) => void;
  readonly #audio: AudioInput;
  #model: LiveModel | undefined;
  #channels: Channel[] = [];
  #seq = 0;
  #uttid = 0;
  /** The call so far as the ASR gave it (for the job). */
  readonly #recorded: Utterance[] = [];
  readonly #table: readonly PipelineStage[];
  /** The table's per-utterance parts over the call so far (set with the audio's shape). */
  #stages: LiveStages | undefined;
  /** Indexes into #stages.call not sent yet (held back under redaction). */
  #held: number[] = [];
  readonly #sent: Utterance[] = [];
  readonly #alerted = new Set<string>();
  #categories: Promise<void> = Promise.resolve();
  readonly #work = new Set<Promise<void>>();
  #failed: unknown;
  #ended = false;
  #frames = 0;
  #owed = 0;
  #notes: string[] = [];
  /** Called when the backlog shrinks (the transport resumes reading). */
  onDrain: (() => void) | undefined;
  /** Under scrubtext or scrubtext=tag: the call's redaction as it goes (which utterances are settled, and how they read). */
  readonly #redaction: LiveRedaction | undefined;

  constructor(input: LiveCallInput, deps: LiveCallDeps, emit: (m: LiveMessage) => void) {
    this.input = input;
    this.#redaction = marksText(input.options) ? new LiveRedaction(redactionKinds(input.options), redactMode(input.options)) : undefined;
    this.#deps = deps;
    this.#emit = emit;
    this.#audio = new AudioInput(input.format);
    this.#table = stageTable({ ...(deps.categorize ? { categorize: deps.categorize } : {}) });
  }

  /** Seconds of audio received. */
  get audioSec(): number {
    return this.#frames / this.#audio.format.sampleRate;
  }

  /**
   * Seconds of audio handed to the ASR and not decoded yet: what back-pressure watches (audio that
   * waits for the rest of its utterance is not owed by the ASR, and counts in no backlog).
   */
  get backlogSec(): number {
    return this.#owed;
  }

  get format(): AudioFormat {
    return this.#audio.format;
  }

  /**
   * One binary message of audio. Throws (a VoxdexError) on audio that cannot be taken: a bad WAV
   * header, the call's length limit, a recording that could not be written.
   */
  audio(message: Uint8Array): void {
    if (this.#ended) throw voxdexError('BAD_ARGUMENT', 'The call has ended; no more audio is taken');
    if (this.#failed !== undefined) throw toVoxdexError(this.#failed);
    const first = !this.#audio.started;
    const chunk = this.#audio.push(message);
    if (first) this.#begin();
    const rate = this.#audio.format.sampleRate;
    const frames = chunk.channels[0]?.length ?? 0;
    if ((this.#frames + frames) / rate > this.#deps.limits.maxCallSec) {
      throw voxdexError('TOO_LARGE', `The call is longer than the limit of ${this.#deps.limits.maxCallSec} s (VOXDEX_LIVE_MAX_CALL_SEC); it was ended and is kept as request ${this.input.requestid}`);
    }
    this.#frames += frames;
    this.input.recording.append(chunk.bytes).catch((err: unknown) => {
      this.#failed ??= voxdexError('STORAGE_UNAVAILABLE', `The call's audio could not be written (${(err as Error).message}); it was ended`, err);
    });
    for (const c of this.#channels) {
      this.#endpoint(c, chunk.channels[c.channel]!);
      if (this.input.partials) this.#partial(c);
    }
  }

  /** The channel's new audio to its endpointer; each utterance it ends goes to the ASR. */
  #endpoint(c: Channel, samples: Float32Array): void {
    const push: Promise<void> = c.endpointer
      .push(samples)
      .then((e: Endpointed) => {
        for (const s of e.segments) this.#decode(c, s);
        c.committed = e.committed;
        // Time passed on this channel: a held word may have left every recognizer's reach.
        this.#release();
      })
      .catch((err: unknown) => {
        this.#failed ??= err;
        this.#deps.log.warn({ err: toVoxdexError(err) }, 'live endpointing failed');
      })
      .finally(() => c.endpointing.delete(push));
    c.endpointing.add(push);
  }

  /** The call's audio is complete: decodes what is still open, sends every utterance; resolves to the call's ASR result. */
  async end(): Promise<TranscribeResult | undefined> {
    this.#ended = true;
    for (const c of this.#channels) {
      await Promise.all([...c.endpointing]);
      try {
        for (const s of await c.endpointer.flush()) this.#decode(c, s);
      } catch (err) {
        this.#failed ??= err;
      }
    }
    while (this.#work.size > 0) await Promise.allSettled([...this.#work]);
    this.#release();
    await this.#categories;
    // A decode that failed leaves the job to transcribe the recording itself.
    return this.#model && this.#failed === undefined ? this.#result(this.#model) : undefined;
  }

  #begin(): void {
    const format = this.#audio.format;
    this.input.recording.start(format).catch((err: unknown) => {
      this.#failed ??= voxdexError('STORAGE_UNAVAILABLE', `The call's audio could not be written (${(err as Error).message}); it was ended`, err);
    });
    this.#model = this.#deps.transcriber.liveModel(this.input.model, format.sampleRate);
    this.#channels = Array.from({ length: format.channels }, (_, channel) => ({
      channel,
      endpointer: this.#model!.segmenter.endpointer({ sampleRate: format.sampleRate, maxUtteranceSec: this.#model!.maxUtteranceSec }),
      committed: 0,
      endpointing: new Set(),
      inflight: new Map(),
      speechSec: 0,
      partial: new LocalAgreement(),
      partialBusy: false,
      partialAt: 0,
    }));
    this.#stages = new LiveStages(this.#table, this.input.options, format.channels);
  }

  /** Every utterance of this channel starting before this time (seconds) has been decoded. */
  #horizon(c: Channel): number {
    const rate = this.#audio.format.sampleRate;
    return Math.min(c.committed / rate, ...c.inflight.values());
  }

  #decode(c: Channel, s: LiveSegment): void {
    const model = this.#model!;
    const rate = this.#audio.format.sampleRate;
    const id = this.#seq++;
    c.inflight.set(id, s.speechStart / rate);
    c.speechSec += (s.speechEnd - s.speechStart) / rate;
    c.partial.reset();
    const pcm = resampleToInt16(s.audio, rate, model.sampleRate);
    const owed = (s.end - s.start) / rate;
    this.#owed += owed;
    const t0 = performance.now();
    const work = this.#deps.transcriber
      .decodeLive(model, pcm, { offsetSec: s.start / rate, vocab: this.input.options.vocab })
      .then(({ words, notes }) => {
        this.#notes.push(...notes);
        this.#deps.log.debug({ channel: c.channel, sec: round3((s.end - s.start) / rate), ms: Math.round(performance.now() - t0) }, 'live utterance decoded');
        this.#decoded(c.channel, words);
      })
      .catch((err: unknown) => {
        this.#failed ??= err;
        this.#deps.log.warn({ err: toVoxdexError(err) }, 'a live utterance failed to decode');
      })
      .finally(() => {
        c.inflight.delete(id);
        this.#owed -= owed;
        this.#work.delete(work);
        this.#release();
        this.onDrain?.();
      });
    this.#work.add(work);
  }

  #decoded(channel: number, words: WordEvent[]): void {
    if (words.length === 0) return;
    const raw: Utterance = {
      start: words[0]!.start,
      end: words[words.length - 1]!.end,
      confidence: round3(words.reduce((n, w) => n + w.confidence, 0) / words.length),
      metadata: { channel, uttid: this.#uttid++, source: this.input.source, model: this.#model!.spec.name },
      events: words,
    };
    this.#recorded.push(raw);
    this.#held.push(this.#stages!.ended(raw));
  }

  /** Sends the utterances whose redaction is decided (all of them when redaction leaves the words as they are). */
  #release(): void {
    if (this.#held.length === 0) return;
    const stages = this.#stages!;
    let ready = this.#held;
    let settled: Map<number, Utterance> | undefined;
    if (this.#redaction) {
      const now = this.#ended && this.#work.size === 0 ? Infinity : Math.min(...this.#channels.map((c) => this.#horizon(c)));
      settled = this.#redaction.settle(stages.call, this.#held, now);
      ready = this.#held.filter((i) => settled!.has(i));
      if (ready.length === 0) return;
    }
    ready = this.#inTimeOrder(ready);
    if (ready.length === 0) return;
    const sent = new Set(ready);
    this.#held = this.#held.filter((i) => !sent.has(i));
    for (const i of ready) {
      // The engine's redaction of the settled utterance is the redaction line's part, live (docs/pipeline.md).
      const u = documentUtterance(stages.released(i, settled?.get(i)), this.input.source, this.#model!.spec.name);
      this.#sent.push(u);
      this.#emit({ type: 'utterance', ...u });
    }
    this.#alerts(Math.max(...ready.map((i) => stages.call[i]!.end)));
  }

  /**
   * Of the utterances ready to go, those no earlier utterance of their channel still waits before (held,
   * or in the ASR), in time order: each voice's utterances go through the stages after the hold in the
   * order batch folds them (a sentence left open goes on in the next one, docs/pipeline.md).
   */
  #inTimeOrder(ready: readonly number[]): number[] {
    const call = this.#stages!.call;
    const going = new Set(ready);
    const waiting = this.#held.filter((i) => !going.has(i)).map((i) => call[i]!);
    return ready
      .filter((i) => {
        const u = call[i]!;
        const c = this.#channels[u.metadata.channel];
        const before = (start: number) => start < u.start;
        return !waiting.some((w) => w.metadata.channel === u.metadata.channel && before(w.start)) && ![...(c?.inflight.values() ?? [])].some(before);
      })
      .sort((a, b) => call[a]!.start - call[b]!.start || a - b);
  }

  /** Category alerts: the categories stage over the call so far (as sent); each category once per call, when first matched. */
  #alerts(at: number): void {
    const soFar = this.#table.find((s) => s.soFar)?.soFar;
    if (!soFar) return;
    const document = categoryDocument(this.input.requestid, this.#sent, this.#channels.length);
    this.#categories = this.#categories
      .then(() => soFar(this.input.destination, document))
      .then((names) => {
        for (const name of names) {
          if (this.#alerted.has(name)) continue;
          this.#alerted.add(name);
          this.#emit({ type: 'category', name, at: round3(at) });
        }
      })
      .catch((err: unknown) => this.#deps.log.warn({ err }, 'live category matching failed'));
  }

  /** Partial text of the channel's open utterance, at most every partialEverySec, one decode at a time. */
  #partial(c: Channel): void {
    const open = c.endpointer.openSpeech;
    const now = performance.now();
    // Best effort: never ahead of a finished utterance waiting for a thread.
    if (open === undefined || c.partialBusy || now - c.partialAt < this.#deps.limits.partialEverySec * 1000 || this.#deps.transcriber.liveQueued > 0) return;
    const rate = this.#audio.format.sampleRate;
    if ((c.endpointer.received - open) / rate < 0.5) return;
    c.partialBusy = true;
    c.partialAt = now;
    const pcm = resampleToInt16(c.endpointer.audio(open, c.endpointer.received), rate, this.#model!.sampleRate);
    const work = this.#deps.transcriber
      .decodeLive(this.#model!, pcm, { offsetSec: open / rate, vocab: this.input.options.vocab })
      .then(({ words }) => {
        // The utterance ended meanwhile (its start moves a little as the noise floor is re-estimated).
        const now = c.endpointer.openSpeech;
        if (now === undefined || Math.abs(now - open) > rate / 2) return;
        const stable = c.partial.add(words.map((w) => w.word));
        if (stable) this.#emit({ type: 'partial', channel: c.channel, text: partialText(stable, this.input.options, this.#masked(c.channel, words.slice(0, stable.length))) });
      })
      .catch(() => undefined) // partials are best effort
      .finally(() => {
        c.partialBusy = false;
        this.#work.delete(work);
      });
    this.#work.add(work);
  }

  /** Under scrubtext with personal-data kinds: what the partial shows instead of its words that are, or may become, redacted. */
  #masked(channel: number, partial: readonly WordEvent[]): Map<number, string> | undefined {
    return this.input.options.scrubtext ? this.#redaction?.maskPartial(this.#stages!.call, partial, channel) : undefined;
  }

  #result(model: LiveModel): TranscribeResult {
    const words = this.#recorded.flatMap((u) => u.events);
    const audiosecs = round3(this.audioSec);
    return {
      model: model.spec.name,
      utterances: this.#recorded.map((u) => ({ ...u, events: u.events.slice() })),
      chaninfo: this.#channels.map((c) => ({ channel: c.channel, audiosecs, speechsecs: round3(c.speechSec) })),
      confidence: words.length ? round3(words.reduce((n, w) => n + w.confidence, 0) / words.length) : undefined,
      audiosecs,
      nchannels: this.#channels.length,
      notes: this.#notes,
    };
  }
}
