/**
 * Utterance endpoints from a stream of per-window speech probabilities (pure; no model): the hysteresis of
 * the authors' get_speech_timestamps (speech from `threshold` up, silence below `negThreshold`, in between
 * keeps the current state), made incremental. A run of speech becomes an utterance once it has lasted
 * `minSpeechMs` ('start' event) and ends after `minSilenceMs` below negThreshold ('end' event, with the
 * utterance's padded start and end; speech shorter than `shortSpeechMs` needs `shortSilenceMs` instead). Padding never reaches back past the previous utterance's end.
 * An utterance longer than `maxSpeechS` is cut at its longest pause of ≥ 98 ms, else where it stands.
 */

export interface EndpointParams {
  /** Speech from this probability up (0.5, the authors' default). */
  threshold: number;
  /** Silence below this probability (threshold − 0.15, the authors' default). */
  negThreshold: number;
  /** Shorter runs of speech are dropped (250 ms). */
  minSpeechMs: number;
  /** Silence that ends an utterance (100 ms). */
  minSilenceMs: number;
  /** Silence that ends an utterance whose speech is shorter than `shortSpeechMs` (default: minSilenceMs). */
  shortSilenceMs: number;
  /** Speech shorter than this needs `shortSilenceMs` to end (0: no such rule). */
  shortSpeechMs: number;
  /** Added to each side of an utterance (30 ms). */
  padMs: number;
  /** Longer utterances are cut (default: never). */
  maxSpeechS: number;
}

export const DEFAULT_ENDPOINT_PARAMS: Readonly<EndpointParams> = Object.freeze({
  threshold: 0.5,
  negThreshold: 0.35,
  minSpeechMs: 250,
  minSilenceMs: 100,
  shortSilenceMs: 100,
  shortSpeechMs: 0,
  padMs: 30,
  maxSpeechS: Infinity,
});

/**
 * Times in seconds from the start of the stream. An 'end' event's `start`/`end` are padded;
 * `speechStart`/`speechEnd` are the speech inside (unpadded).
 */
export type VadEvent = { type: 'start'; time: number } | { type: 'end'; start: number; end: number; speechStart: number; speechEnd: number };

export interface Endpointer {
  /** The next window's speech probability; the events it completes. */
  push(prob: number): VadEvent[];
  /** The stream ended after `totalSamples` samples: closes an utterance still open. */
  finish(totalSamples: number): VadEvent[];
  /** Inside an utterance (announced or not yet long enough)? */
  readonly inSpeech: boolean;
  /**
   * Where the utterance in progress starts (padded, seconds) when inside one; else undefined. An
   * utterance not yet announced may still be dropped (shorter than minSpeechMs).
   */
  readonly openStart: number | undefined;
  /** Every utterance that will end later starts at or after this time (seconds). */
  readonly committed: number;
}

/** Fills unset parameters with the defaults (negThreshold follows threshold unless given). */
export function endpointParams(p: Partial<EndpointParams> = {}): EndpointParams {
  const threshold = p.threshold ?? DEFAULT_ENDPOINT_PARAMS.threshold;
  const minSilenceMs = p.minSilenceMs ?? DEFAULT_ENDPOINT_PARAMS.minSilenceMs;
  return { ...DEFAULT_ENDPOINT_PARAMS, ...p, threshold, negThreshold: p.negThreshold ?? Math.max(threshold - 0.15, 0.01), minSilenceMs, shortSilenceMs: p.shortSilenceMs ?? minSilenceMs };
}

const MIN_PAUSE_AT_MAX_MS = 98;

export function createEndpointer(rate: number, windowSize: number, params: Partial<EndpointParams> = {}): Endpointer {
  const p = endpointParams(params);
  const ms = (x: number) => (rate * x) / 1000;
  const minSpeech = ms(p.minSpeechMs);
  const minSilence = ms(p.minSilenceMs);
  const shortSilence = ms(p.shortSilenceMs);
  const shortSpeech = ms(p.shortSpeechMs);
  const pad = ms(p.padMs);
  const maxSpeech = rate * p.maxSpeechS - windowSize - 2 * pad;
  const minPauseAtMax = ms(MIN_PAUSE_AT_MAX_MS);

  let window = 0; // index of the next window
  let triggered = false;
  let announced = false;
  let start = 0; // first sample of the current run of speech
  let startPadded = 0;
  let tempEnd = -1; // first sample of the silence that may end it
  let lastEnd = 0; // padded end of the last utterance
  let pauses: { at: number; len: number }[] = [];

  const sec = (samples: number) => samples / rate;

  function announce(events: VadEvent[]): void {
    if (announced) return;
    announced = true;
    startPadded = Math.max(0, lastEnd, start - pad);
    events.push({ type: 'start', time: sec(startPadded) });
  }

  /** Ends the current utterance at `end` (unpadded) when it is long enough; `limit`: samples seen. */
  function close(end: number, limit: number, events: VadEvent[]): void {
    if (announced || end - start > minSpeech) {
      announce(events);
      const padded = Math.min(end + pad, limit);
      events.push({ type: 'end', start: sec(startPadded), end: sec(padded), speechStart: sec(start), speechEnd: sec(end) });
      lastEnd = padded;
    }
    triggered = false;
    announced = false;
    tempEnd = -1;
    pauses = [];
  }

  function cutAtMax(cur: number, speech: boolean, events: VadEvent[]): void {
    if (pauses.length > 0) {
      const longest = pauses.reduce((a, b) => (b.len > a.len ? b : a));
      const keepTempEnd = tempEnd;
      const later = pauses.filter((x) => x.at > longest.at);
      close(longest.at, cur + windowSize, events);
      triggered = true;
      start = longest.at + longest.len;
      tempEnd = keepTempEnd;
      pauses = later; // still inside the utterance that goes on
      return;
    }
    close(cur, cur, events); // no pause to cut at: cut here, unpadded
    if (speech) {
      triggered = true;
      start = cur;
    }
  }

  return {
    push(prob) {
      const events: VadEvent[] = [];
      const cur = window * windowSize;
      window++;
      const speech = prob >= p.threshold;
      if (speech && tempEnd >= 0) {
        if (cur - tempEnd > minPauseAtMax) pauses.push({ at: tempEnd, len: cur - tempEnd });
        tempEnd = -1;
      }
      if (speech && !triggered) {
        triggered = true;
        start = cur;
      } else if (triggered && cur - start > maxSpeech) {
        // Reaching the limit just as the speech stops is its natural end (within the limit: maxSpeech leaves a window).
        if (prob < p.negThreshold) close(tempEnd >= 0 ? tempEnd : cur, cur + windowSize, events);
        else cutAtMax(cur, speech, events);
      } else if (triggered && prob < p.negThreshold) {
        if (tempEnd < 0) tempEnd = cur;
        if (cur - tempEnd >= (tempEnd - start < shortSpeech ? shortSilence : minSilence)) close(tempEnd, cur + windowSize, events);
      }
      if (triggered && !announced && tempEnd < 0 && cur + windowSize - start >= minSpeech) announce(events);
      return events;
    },
    finish(totalSamples) {
      const events: VadEvent[] = [];
      if (triggered) close(tempEnd >= 0 ? tempEnd : totalSamples, totalSamples, events);
      return events;
    },
    get inSpeech() {
      return triggered;
    },
    get openStart() {
      return triggered ? sec(announced ? startPadded : Math.max(0, lastEnd, start - pad)) : undefined;
    },
    get committed() {
      // A run of speech not started yet starts at the next window at the earliest, padded back.
      return this.openStart ?? sec(Math.max(0, lastEnd, window * windowSize - pad));
    },
  };
}
