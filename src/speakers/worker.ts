/**
 * The speakers worker thread: loads the speaker encoder and the VAD once (on its first task that diarizes)
 * and runs speakersOfRecording (crosstalk, diarization, gender). Results and errors go back as plain objects ({ code, message }).
 */
import type { ErrorInfo } from '../errors.js';
import { sileroVad } from '../vad/silero.js';
import type { DiarizeChannel, DiarizeModels } from './diarize.js';
import { speakersOfRecording, type RecordingOptions, type RecordingSpeakers } from './recording.js';
import { loadSpeakerEncoder } from './encoder.js';

export interface SpeakersTask {
  channels: DiarizeChannel[];
  options: RecordingOptions;
}

export type SpeakersResult = ({ ok: true; cpuMs: number } & Omit<RecordingSpeakers, 'turns'>) | { ok: false; error: ErrorInfo };

let models: Promise<DiarizeModels> | undefined;

async function loadModels(): Promise<DiarizeModels> {
  const [encoder, vad] = await Promise.all([loadSpeakerEncoder(), sileroVad()]);
  return { encoder, vad };
}

/** The thread's models, loaded on the first task that diarizes (a failed load is retried on the next). */
function threadModels(): Promise<DiarizeModels> {
  if (!models) {
    models = loadModels();
    models.catch(() => (models = undefined));
  }
  return models;
}

export default async function run(task: SpeakersTask): Promise<SpeakersResult> {
  try {
    const c0 = process.cpuUsage();
    const r = await speakersOfRecording(threadModels, task.channels, task.options);
    const c = process.cpuUsage(c0);
    return { ok: true, utterances: r.utterances, speakers: r.speakers, crosstalkWords: r.crosstalkWords, cpuMs: (c.user + c.system) / 1000 };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return { ok: false, error: { code: typeof e?.code === 'string' ? e.code : 'INTERNAL', message: String(e?.message ?? err) } as ErrorInfo };
  }
}
