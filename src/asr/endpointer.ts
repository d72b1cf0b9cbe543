/**
 * Endpointing one channel of a live call: as audio arrives, find the utterances that have ended
 * (speech followed by at least a pause) so each can be decoded at once. Samples are counted from the
 * start of the call at the call's own rate. Two endpointers behind one interface, chosen with the
 * batch segmenter (src/asr/segmenter.ts), so that live and batch cut a call alike: the energy one here
 * (the default) and the Silero VAD's (src/asr/vad-endpointer.ts, VOXDEX_SEGMENTER=silero).
 *
 * The energy endpointer runs the batch segmenter (src/audio/segment.ts: energy over 10 ms frames, an
 * adaptive noise floor, the same pause, padding and length rules) over the audio not yet cut plus a
 * few seconds before it (for the noise floor), every `everySec` of new audio: a segment is finished
 * once `minPauseSec` of non-speech follows it, or when the next one has begun (speech longer than the
 * longest utterance is cut at its quietest point).
 */
import { SEGMENT_DEFAULTS, segmentSamples } from '../audio/segment.js';
import { toInt16 } from '../audio/resample.js';
import { HeldSamples } from './held-samples.js';

/** One finished utterance, in samples from the start of the call, with its audio. */
export interface LiveSegment {
  start: number;
  end: number;
  speechStart: number;
  speechEnd: number;
  /** The samples of [start, end) at the call's rate. */
  audio: Float32Array;
}

/** What a push decided. */
export interface Endpointed {
  /** The utterances that ended. */
  segments: LiveSegment[];
  /** Every utterance that starts before this sample has been returned, by this push or before. */
  committed: number;
}

export interface Endpointer {
  /**
   * Adds samples (the endpointer keeps them: the caller may reuse its array); resolves to the
   * utterances that ended. Pushes are taken in the order made, awaited or not.
   */
  push(samples: Float32Array): Promise<Endpointed>;
  /** The call ended (after every push): every utterance still open. */
  flush(): Promise<LiveSegment[]>;
  /** The audio of [start, end) (samples from the start of the call), while it is still held. */
  audio(start: number, end: number): Float32Array;
  /** Speech has begun and not ended: its start (for partial results), else undefined. */
  readonly openSpeech: number | undefined;
  /** Samples received so far. */
  readonly received: number;
}

export interface EndpointerOptions {
  sampleRate: number;
  maxUtteranceSec: number;
  /** Non-speech after an utterance that ends it (default: the batch segmenter's pause). */
  minPauseSec?: number;
  /** How often the audio is looked at, seconds of new audio (default 0.1). */
  everySec?: number;
  /** Audio kept before the last cut for the noise floor, seconds (default 3). */
  historySec?: number;
}

export function energyEndpointer(o: EndpointerOptions): Endpointer {
  const rate = o.sampleRate;
  const minPause = o.minPauseSec ?? SEGMENT_DEFAULTS.minPauseSec;
  const every = Math.round((o.everySec ?? 0.1) * rate);
  const history = Math.round((o.historySec ?? 3) * rate);
  // Speech has ended once a pause longer than the segmenter bridges follows it (its padding, shorter, is in it).
  const trailing = Math.round((Math.max(minPause, SEGMENT_DEFAULTS.padSec) + 0.02) * rate);
  // cut: every utterance before it has been returned.
  const held = new HeldSamples(rate * 8);
  let cut = 0;
  let lookedAt = 0;
  let open: number | undefined;
  // Dropped at the next push, so that the audio of the segments just returned can still be read.
  let dropTo = 0;

  const analyse = (final: boolean): LiveSegment[] => {
    const base = held.base;
    const len = held.end - base;
    lookedAt = held.end;
    const segments = segmentSamples(toInt16(held.view), rate, { maxUtteranceSec: o.maxUtteranceSec, minPauseSec: minPause });
    const out: LiveSegment[] = [];
    open = undefined;
    segments.forEach((s, i) => {
      const abs = { start: Math.max(cut, base + s.start), end: base + s.end, speechStart: base + s.speechStart, speechEnd: base + s.speechEnd };
      if (abs.speechEnd <= cut) return; // returned before
      const ended = final || i < segments.length - 1 || len - s.speechEnd >= trailing;
      if (!ended) {
        open = abs.speechStart;
        return;
      }
      out.push({ ...abs, audio: held.slice(abs.start, abs.end) });
    });
    if (out.length > 0) {
      cut = out[out.length - 1]!.end;
      dropTo = cut;
    } else if (open === undefined) {
      // Silence only: nothing before the last pause can still become an utterance.
      dropTo = Math.max(cut, held.end - trailing);
    }
    return out;
  };

  return {
    push(samples) {
      held.dropBefore(dropTo - history); // the noise floor looks back `history` before the audio not yet cut
      held.append(samples);
      const segments = held.end - lookedAt >= every ? analyse(false) : [];
      return Promise.resolve({ segments, committed: open ?? Math.max(cut, held.end - trailing) });
    },
    flush: () => Promise.resolve(analyse(true)),
    audio: (start, end) => held.slice(start, end),
    get openSpeech() {
      return open;
    },
    get received() {
      return held.end;
    },
  };
}
