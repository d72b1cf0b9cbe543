/**
 * The live endpointer on the Silero VAD: one VadStream per channel (src/vad/stream.ts) scores each
 * 32 ms window as it arrives and its endpointer (the ASR's parameters, src/vad/utterances.ts) decides
 * where utterances end — the rules and the stream the batch segmenter (src/asr/segmenter.ts) runs over
 * a whole file, so a call gives the same utterances live and uploaded. A call at a rate other than 8
 * or 16 kHz is resampled as it arrives to the VAD's rate (streamResampler: the samples `resample`
 * gives the whole file). The call's own samples are held from the first one an utterance may still
 * start at; a finished utterance leaves with its audio.
 *
 * An end is decided `minSilenceMs` (+ up to one 32 ms window) after the speech stops.
 */
import { streamResampler } from '../audio/resample.js';
import type { SileroVad } from '../vad/silero.js';
import { createVadStream, type VadStream, type VadUpdate } from '../vad/stream.js';
import { eventSegment, utteranceEndpointParams, vadRate, type UtteranceVadParams } from '../vad/utterances.js';
import type { Endpointed, Endpointer } from './endpointer.js';
import { HeldSamples } from './held-samples.js';

export interface VadEndpointerOptions {
  sampleRate: number;
  maxUtteranceSec: number;
  params?: Partial<UtteranceVadParams>;
}

export function sileroEndpointer(model: Promise<SileroVad>, o: VadEndpointerOptions): Endpointer {
  const rate = o.sampleRate;
  const resampler = streamResampler(rate, vadRate(rate));
  const stream: Promise<VadStream> = model.then((m) => createVadStream(m, { sampleRate: vadRate(rate), ...utteranceEndpointParams(o.maxUtteranceSec, o.params) }));
  stream.catch(() => undefined); // reported by the pushes
  const held = new HeldSamples(rate * 8);
  // As of the last push scored: no utterance still to come starts before `committed`; `open`: the
  // start of the one in progress. Snapshots taken with that push's events, never mid-push.
  let committed = 0;
  let open: number | undefined;

  const sample = (t: number) => Math.floor(t * rate);
  const scored = (u: VadUpdate): Endpointed => {
    const segments = u.events.flatMap((e) => {
      if (e.type !== 'end') return [];
      const s = eventSegment(e, rate, held.view, held.base);
      return [{ ...s, audio: held.slice(s.start, s.end) }];
    });
    committed = Math.max(committed, sample(u.committed));
    open = u.openStart === undefined ? undefined : sample(u.openStart);
    return { segments, committed };
  };

  return {
    push(samples) {
      held.dropBefore(committed);
      held.append(samples);
      const x = resampler.push(samples);
      return stream.then((s) => s.push(x)).then(scored);
    },
    flush() {
      const x = resampler.end();
      return stream.then(async (s) => [...scored(await s.push(x)).segments, ...scored(await s.end()).segments]);
    },
    audio: (start, end) => held.slice(start, end),
    get openSpeech() {
      return open;
    },
    get received() {
      return held.end;
    },
  };
}
