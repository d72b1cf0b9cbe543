/**
 * A live call's job runs the one pipeline (src/pipeline/file-runner.ts) on its recording like any
 * upload, except that its words were already decoded while the call went on: this Transcriber hands
 * the pipeline those utterances instead of decoding the file again. The recording must be the one
 * the utterances came from (same channels); otherwise the real ASR transcribes it.
 */
import type { TranscribeResult, Transcriber } from '../asr/transcriber.js';

export function recordedTranscriber(recorded: TranscribeResult, asr: Transcriber): Transcriber {
  return {
    registry: asr.registry,
    ready: () => asr.ready(),
    liveModel: (model, rate) => asr.liveModel(model, rate),
    decodeLive: (model, samples, o) => asr.decodeLive(model, samples, o),
    get liveQueued() {
      return asr.liveQueued;
    },
    async transcribe(audio, opts) {
      if (audio.channels.length !== recorded.nchannels) return asr.transcribe(audio, opts);
      opts.onProgress?.(1);
      const utterances = recorded.utterances.map((u) => ({ ...u, metadata: { ...u.metadata, source: opts.source }, events: u.events.map((e) => ({ ...e })) }));
      return { ...recorded, utterances, audiosecs: Math.round(audio.durationSec * 1000) / 1000, chaninfo: recorded.chaninfo.map((c) => ({ ...c, audiosecs: Math.round(audio.durationSec * 1000) / 1000 })) };
    },
    close: () => Promise.resolve(),
  };
}
