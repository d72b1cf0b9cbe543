/**
 * The speakers worker thread: loads the speaker encoder once (on its first task) and runs
 * diarizeRecording. Results and errors go back as plain objects ({ code, message }).
 */
import type { ErrorInfo } from '../errors.js';
import { diarizeRecording, type DiarizeChannel, type DiarizeOptions, type SpeakerUtterance } from './diarize.js';
import { loadSpeakerEncoder, type SpeakerEncoder } from './encoder.js';

export interface SpeakersTask {
  channels: DiarizeChannel[];
  options: DiarizeOptions;
}

export type SpeakersResult =
  | { ok: true; utterances: SpeakerUtterance[]; speakers: number[]; cpuMs: number }
  | { ok: false; error: ErrorInfo };

let encoder: Promise<SpeakerEncoder> | undefined;

export default async function run(task: SpeakersTask): Promise<SpeakersResult> {
  try {
    if (!encoder) {
      encoder = loadSpeakerEncoder();
      encoder.catch(() => (encoder = undefined)); // a fixed install can be retried
    }
    const c0 = process.cpuUsage();
    const r = await diarizeRecording(await encoder, task.channels, task.options);
    const c = process.cpuUsage(c0);
    return { ok: true, utterances: r.utterances, speakers: r.channels.map((ch) => ch.speakers), cpuMs: (c.user + c.system) / 1000 };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return { ok: false, error: { code: typeof e?.code === 'string' ? e.code : 'INTERNAL', message: String(e?.message ?? err) } as ErrorInfo };
  }
}
