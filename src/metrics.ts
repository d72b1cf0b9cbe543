/**
 * Prometheus metrics (prom-client) on a registry of the service's own (several services may run in
 * one process in tests): queue depth, jobs by state, audio seconds processed, real-time factor per
 * file, callback attempts by outcome, HTTP requests by route class and status.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobState } from './store/job-store.js';

export interface Metrics {
  registry: Registry;
  audioSeconds: Counter;
  filesProcessed: Counter<'outcome'>;
  rtf: Histogram;
  callbackAttempts: Counter<'outcome'>;
  httpRequests: Counter<'route' | 'status'>;
  /** Exponentially weighted upload bytes transcribed per wall second per job slot (for ETAs). */
  bytesPerSecond(): number;
  observeJob(sizeBytes: number, wallSec: number): void;
}

export function createMetrics(sources: { queueDepth: () => number; jobsByState: () => Promise<Record<JobState, number>> }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'voxdex_process_' });
  new Gauge({
    name: 'voxdex_queue_depth',
    help: 'Accepted jobs waiting for a worker slot',
    registers: [registry],
    collect() {
      this.set(sources.queueDepth());
    },
  });
  new Gauge({
    name: 'voxdex_jobs',
    help: 'Jobs in the store by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      for (const [state, n] of Object.entries(await sources.jobsByState())) this.set({ state }, n);
    },
  });
  const audioSeconds = new Counter({ name: 'voxdex_audio_seconds_total', help: 'Seconds of audio transcribed', registers: [registry] });
  const filesProcessed = new Counter({ name: 'voxdex_files_total', help: 'Files processed by outcome', labelNames: ['outcome'], registers: [registry] });
  const rtf = new Histogram({
    name: 'voxdex_real_time_factor',
    help: 'Wall seconds per audio second for one file (decode + transcribe + index)',
    buckets: [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 2, 5],
    registers: [registry],
  });
  const callbackAttempts = new Counter({ name: 'voxdex_callback_attempts_total', help: 'Callback delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] });
  const httpRequests = new Counter({ name: 'voxdex_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'], registers: [registry] });
  let rate = 0;
  return {
    registry,
    audioSeconds,
    filesProcessed,
    rtf,
    callbackAttempts,
    httpRequests,
    bytesPerSecond: () => rate || 50_000,
    observeJob(sizeBytes, wallSec) {
      if (wallSec <= 0) return;
      const r = sizeBytes / wallSec;
      rate = rate ? rate * 0.8 + r * 0.2 : r;
    },
  };
}
