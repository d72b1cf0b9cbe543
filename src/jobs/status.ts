/** The request status body (docs/service.md, "Results"): state, queue position, files, progress, ETA, callbacks. */
import type { Config } from '../config.js';
import type { ErrorInfo } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { CallbackOutbox, DeliveryStatus } from '../store/outbox.js';

export interface StatusBody {
  requestid: string;
  state: Job['state'];
  queuePosition: number;
  files: { total: number; done: number; failed: number };
  progress: number;
  etaSeconds: number;
  callbacks: { kind: string; state: string; attempts: number; lastError?: string; nextAttemptAt?: string; deliveredAt?: string }[];
  error?: ErrorInfo;
  warning?: string;
}

interface StatusDeps {
  config: Pick<Config, 'asrThreads'>;
  store: JobStore;
  outbox: CallbackOutbox;
  metrics: Pick<Metrics, 'bytesPerSecond'>;
}

export async function requestStatus(job: Job, d: StatusDeps): Promise<StatusBody> {
  const items = await d.store.items(job.id);
  const done = items.filter((i) => i.state === 'done').length;
  const failed = items.filter((i) => i.state === 'failed').length;
  const total = items.length || (job.kind === 'audio' ? 1 : 0);
  const body: StatusBody = {
    requestid: job.id,
    state: job.state,
    queuePosition: await d.store.queuePosition(job.id),
    files: { total, done, failed },
    progress: Math.round(job.progress * 1000) / 1000,
    etaSeconds: await eta(job, d),
    callbacks: (await d.outbox.deliveries(job.id)).map(callbackStatus),
  };
  if (job.error) body.error = job.error;
  if (job.warning) body.warning = job.warning;
  return body;
}

async function eta(job: Job, d: StatusDeps): Promise<number> {
  if (job.state !== 'queued' && job.state !== 'running') return 0;
  const rate = d.metrics.bytesPerSecond() * Math.max(1, d.config.asrThreads);
  let bytes = job.sizeBytes * (1 - job.progress);
  if (job.state === 'queued') {
    for (const j of await d.store.listUnfinished()) {
      if (j.seq >= job.seq) break;
      bytes += j.sizeBytes * (1 - j.progress);
    }
  }
  return Math.max(1, Math.round(bytes / rate));
}

function callbackStatus(d: DeliveryStatus): StatusBody['callbacks'][number] {
  const out: StatusBody['callbacks'][number] = { kind: d.kind, state: d.state, attempts: d.attempts.length };
  if (d.lastError) out.lastError = d.lastError;
  if (d.nextAttemptAt && d.state === 'pending') out.nextAttemptAt = d.nextAttemptAt;
  if (d.deliveredAt) out.deliveredAt = d.deliveredAt;
  return out;
}
