/** Types shared across stages, the ASR core, the service and search. */
import type { Config } from './config.js';
import type { Logger } from './log.js';

/** What every pipeline stage receives besides its input. A stage knows nothing about HTTP. */
export interface StageContext {
  jobId: string;
  signal: AbortSignal;
  log: Logger;
  config: Readonly<Config>;
}

export type Stage<I, O> = (input: I, ctx: StageContext) => Promise<O>;

// ---------------------------------------------------------------- audio

export type SampleEncoding = 'pcm_u8' | 'pcm_s16' | 'pcm_s24' | 'pcm_s32' | 'pcm_f32' | 'mulaw' | 'alaw';

export interface AudioFormat {
  encoding: SampleEncoding;
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** The recording's own format when ffmpeg transcoded it ("MPEG audio"); this format is then ffmpeg's output. */
  transcodedFrom?: string;
}

/** Decoded audio: one Float32Array per channel, samples in [-1, 1). */
export interface DecodedAudio {
  format: AudioFormat;
  channels: Float32Array[];
  /** Frames per channel / sampleRate. */
  durationSec: number;
  /** Problems the decoder tolerated (e.g. "data chunk size 0; read to end of file"). */
  warnings: string[];
}

/** One channel at the ASR model's rate, ready for the engine. */
export interface ChannelPcm {
  channel: number;
  sampleRate: number;
  samples: Int16Array;
}

// ---------------------------------------------------------------- request options (docs/service.md, "Request options")

/**
 * What redaction replaces (docs/redaction.md), in the order they are listed to users: card numbers,
 * card security codes, expiry dates, social security numbers, other runs of 6+ digits (the default
 * kinds), and those asked for by name: PINs, and the personal data of docs/pii.md — bank account and
 * routing numbers, phone numbers, emails, people's names, street addresses, dates of birth, ID numbers.
 * The one list every edge checks `redact=` against (request, company settings, CLI).
 */
export const REDACT_KINDS = ['card', 'cvv', 'expiry', 'ssn', 'digits', 'pin', 'bank', 'phone', 'email', 'name', 'address', 'dob', 'id'] as const;
export type RedactKind = (typeof REDACT_KINDS)[number];
/** The default kinds (the card kinds and digits; the established service's): on whenever redaction runs, named kinds add to them, `-KIND` turns one off (src/redact/kinds.ts). */
export const DEFAULT_REDACT_KINDS: readonly RedactKind[] = ['card', 'cvv', 'expiry', 'ssn', 'digits'];

/**
 * A request's options after validation and company policy (src/jobs/request-options.ts): stored
 * with the job and read by the stage table (src/pipeline/stage-table.ts) from `FileWork.options`.
 */
export interface RequestOptions {
  /** Numbers written as numerals (default true). */
  numtrans: boolean;
  /** Sensitive spans replaced in every form the transcript takes. */
  scrubtext: boolean;
  /** The stored recording silenced over every redacted span. */
  scrubaudio: boolean;
  /** The kinds scrubtext/scrubaudio redact. */
  redact: RedactKind[];
  /** `scrubtext=tag`: spans of the kinds are marked (`pii` on each event), not replaced; scrubtext is then false. */
  tag?: boolean;
  /** Utterances split where the speaker changes; `metadata.speaker`. */
  diarize: boolean;
  /** Number of speakers hinted by the request (1..10); absent: estimated. */
  speakers?: number;
  /** Bounds on the number estimated (1..10, minspeakers ≤ maxspeakers). */
  minspeakers?: number;
  maxspeakers?: number;
  /** Another channel's words heard on a channel: dropped (default), or kept marked `metadata.crosstalk`. */
  crosstalk?: 'drop' | 'keep';
  /** The company's agent channel and agent phrases (roles, docs/speakers.md); not request fields. */
  agentChannel?: number;
  agentPhrases?: string[];
  /** `metadata.gender` per utterance. */
  gender: boolean;
  /** `metadata.sentiment` per utterance, top-level `sentiment` (request field `sentiment` or `emotion`). */
  sentiment: boolean;
  /** Words or phrases recognition favours (the request's and the company's). */
  vocab: string[];
}

/**
 * A company's settings (stored by tenancy): its redaction policy and its defaults for request
 * options. Every field is optional; absent means the product default.
 */
export interface CompanySettings {
  /** Redaction policy: forces scrubtext / scrubaudio on for every request of the company. */
  scrub?: Array<'text' | 'audio'>;
  /** The kinds the company adds to the default kinds (`voxdex company set --redact name`; docs/redaction.md, "Kinds"). */
  redact?: RedactKind[];
  /** The default kinds the company turned off (`--redact -cvv`). */
  redactOff?: RedactKind[];
  numtrans?: boolean;
  diarize?: boolean;
  gender?: boolean;
  sentiment?: boolean;
  /** The company's vocabulary (voxdex vocab add). */
  vocab?: string[];
  /** The channel its agents are recorded on (roles on calls with several channels); null in a change removes it. */
  agentChannel?: number | null;
  /** Phrases of its agents' script, beside the built-in ones (roles recognised from what is said). */
  agentPhrases?: string[];
}

// ---------------------------------------------------------------- transcript document (docs/service.md, "Results")

/**
 * What an event is (docs/service.md, "Results"): a spoken `word`, a `filler` (an engine's non-speech
 * token: `<sil>`, `[noise]`, `++breath++`) or a `redacted` word (its `word` the replacement). Set once
 * where it is decided — the ASR (src/asr/transcriber.ts), redaction (src/redact/redact.ts) — and read
 * through src/text/event-kind.ts, which derives it for documents stored before events carried it.
 */
export const EVENT_KINDS = ['word', 'filler', 'redacted'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export interface WordEvent {
  word: string;
  start: number;
  end: number;
  confidence: number;
  /** What the event is; absent on documents stored before events carried it (read it through eventKind()). */
  kind?: EventKind;
  /** Set on a replaced event: its `word` is `#` per digit (`###` otherwise, `[NAME]`… for the personal-data kinds). */
  redacted?: RedactKind;
  /** `scrubtext=tag`: the event lies in a span of this kind; its word is kept. */
  pii?: RedactKind;
  /**
   * In the pipeline only, between the ASR and the readable-text stage (src/readable/stage.ts), which
   * removes it: the written form of the written word this event begins ("$25."), '' on the later
   * events of that word. Never in a document, a checkpoint, the index, a log or a message.
   */
  written?: string;
}

export type SentimentLabel = 'Positive' | 'Mostly Positive' | 'Neutral' | 'Mostly Negative' | 'Negative';

export type Gender = 'male' | 'female';

export interface Utterance {
  start: number;
  end: number;
  confidence: number;
  metadata: {
    channel: number;
    uttid: number;
    source?: string;
    model?: string;
    /** `S1`, `S2`, … (diarized mono) or `C<channel>`. */
    speaker?: string;
    gender?: Gender;
    sentiment?: SentimentLabel;
    /** In [-1, 1]. */
    sentimentscore?: number;
    /** Another channel's speech heard on this one (crosstalk=keep; dropped otherwise). */
    crosstalk?: boolean;
    /** `agent` or `customer` (calls with several channels or speakers whose roles are known, docs/speakers.md). */
    role?: 'agent' | 'customer';
  };
  /**
   * The utterance as written: capitals, punctuation, numerals (src/readable/utterance-text.ts), the
   * same words as `events`, redacted the same way. Set by the readable-text stage.
   */
  text?: string;
  events: WordEvent[];
}

/** Always-on call metrics (top-level `metrics`); keys of talksecs/wordsperminute are channels or speakers. */
export interface CallMetrics {
  overtalksecs: number;
  silencesecs: number;
  longestsilencesecs: number;
  talksecs: Record<string, number>;
  wordsperminute: Record<string, number>;
  /** Times each channel or speaker started talking over another (≥ 1 s; docs/analytics.md). */
  interruptions?: Record<string, number>;
}

/** Per role (`agent`, `customer`): who it is and how it spoke (top-level `roles`, docs/speakers.md). */
export interface RoleSummary {
  /** The channels or speakers in this role. */
  parties: string[];
  talksecs: number;
  wordsperminute: number;
  interruptions: number;
  /** With sentiment=true: the role's utterances together. */
  sentiment?: { label: SentimentLabel; score: number };
}

export interface ChannelInfo {
  channel: number;
  audiosecs: number;
  speechsecs: number;
}

export interface TranscriptDocument {
  asr: string;
  model: string;
  confidence?: number;
  audiosecs: number;
  nchannels: number;
  started?: string;
  donedate?: string;
  requestid: string;
  source: string;
  streamtags?: { metadata?: Record<string, unknown> };
  chaninfo: ChannelInfo[];
  utterances: Utterance[];
  /** Per channel or speaker: the label and score of their utterances together. */
  sentiment?: Record<string, { label: SentimentLabel; score: number }>;
  metrics?: CallMetrics;
  /** Names of the company's categories this call matches. */
  categories?: string[];
  /** Agent and customer, when the call's roles are known. */
  roles?: Partial<Record<'agent' | 'customer', RoleSummary>>;
  /** What redaction was applied (absent: none was asked); not indexed. */
  redaction?: AppliedRedaction;
  warning?: string;
}

/** A result's account of its redaction (docs/redaction.md, "Kinds"): which kinds, and how. */
export interface AppliedRedaction {
  /** `redacted` (scrubtext), `tagged` (scrubtext=tag: marked, words kept) or `kept`. */
  text: 'redacted' | 'tagged' | 'kept';
  /** `silenced` (scrubaudio) or `kept`. */
  audio: 'silenced' | 'kept';
  /** The kinds applied, in the listed order. */
  kinds: RedactKind[];
  /** The default kinds turned off (`redact=-cvv`, or a company's `--redact -cvv`); absent when none. */
  off?: RedactKind[];
}

/** What the ASR returns for one recording (asr/transcriber.ts). */
export interface TranscribeResult {
  /** The model's registry name (what `auto` resolved to). */
  model: string;
  utterances: Utterance[];
  chaninfo: ChannelInfo[];
  /** Mean word confidence; undefined when no word was recognised. */
  confidence: number | undefined;
  audiosecs: number;
  nchannels: number;
  /** What the engine's safeguards did, one entry per event ("forced-past-eos", "non-speech", ...). */
  notes: string[];
}

/**
 * One recording between the ASR and its transcript document, as the stages of the one table see it
 * (src/pipeline/stage-table.ts; docs/pipeline.md). A stage's whole-call part is a
 * `Stage<FileWork, FileWork>`: it reads `options` and returns the work with `result.utterances` (and
 * `summary`, `warnings`, `audio`) changed.
 */
export interface FileWork {
  requestid: string;
  /** The file's name in the request (the upload's name or the archive member's). */
  source: string;
  /** The request's options after company policy. */
  options: RequestOptions;
  /** Where the transcript goes; absent in `voxdex transcribe`. */
  destination?: Destination;
  /** The decoded recording, every channel (utterances' `metadata.channel` indexes `audio.channels`). */
  audio: DecodedAudio;
  /** The ASR's words, then each stage's. */
  result: TranscribeResult;
  /** Top-level document fields the stages add. */
  summary: Pick<TranscriptDocument, 'sentiment' | 'metrics' | 'categories' | 'roles'>;
  /** Go into the document's `warning`, in order. */
  warnings: string[];
  /** ISO 8601 time the file's processing started. */
  started: string;
  /** The request's and the file's custom fields (`streamtags.metadata`). */
  metadata?: Record<string, unknown>;
}

export type OutputFormat = 'json' | 'jsontop' | 'text' | 'srt' | 'vtt';

// ---------------------------------------------------------------- tenancy

/** Where a transcript lives: company → organization → folder. */
export interface Destination {
  company: string;
  org: string;
  folder: string;
}

/** A call in progress, as GET /live/calls lists it (and the web page shows it). */
export interface LiveCallInfo {
  requestid: string;
  company: string;
  org: string;
  folder: string;
  started: string;
  audiosecs: number;
  nchannels: number;
  utterances: number;
  categories: string[];
}

// ---------------------------------------------------------------- the stage table

/**
 * The call as a stage's per-utterance part sees it (docs/pipeline.md): a file's every utterance (batch),
 * or a live call's utterances so far. Each stage has its own view: the utterances as the stages before
 * it left them.
 */
export interface CallView {
  readonly options: RequestOptions;
  readonly nchannels: number;
  /** Every utterance known so far, in the order they became known; the one at hand is at its index. */
  readonly utterances: readonly Utterance[];
  /** The utterance this stage gave out last for the same voice (channel and speaker). */
  previous(u: Utterance): Utterance | undefined;
  /** A value of the call so far (the call redacted, its roles), computed once while no utterance is added. */
  once<T>(f: () => T): T;
}

/** What a stage does to one utterance (`i`: its index in `call.utterances`); pure, a new object when it changes it. */
export type UtterancePart = (u: Utterance, i: number, call: CallView) => Utterance;

/** One line of the stage table (src/pipeline/stage-table.ts): a stage's per-utterance part, its whole-call part, or both. */
export interface PipelineStage {
  readonly name: string;
  /** Batch: folded over the file's utterances in time order. Live: on each utterance as it ends (or, `held`, as it is released). */
  readonly utterance?: UtterancePart;
  /** Live: the per-utterance part waits for the redaction hold (src/redact/engine.ts); it and every later part run as an utterance is sent. */
  readonly held?: boolean;
  /** Batch: after the per-utterance part. Live: once, in the call's job, over the whole call. */
  readonly call?: Stage<FileWork, FileWork>;
  /** Live: category names the call so far (as sent) is in, asked each time utterances are sent (alerts). */
  readonly soFar?: (destination: Destination, document: TranscriptDocument) => Promise<string[]>;
}
