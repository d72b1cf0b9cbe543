/**
 * Prometheus metrics (prom-client) on a registry of the service's own (several services may run in
 * one process in tests): queue depth, jobs by state, audio seconds processed, real-time factor per
 * file, callback attempts by outcome, HTTP requests by route class and status.
 */
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from 'prom-client';
import type { JobState } from './store/job-store.js';

export interface Metrics {
  registry: Registry;
  audioSeconds: Counter;
  filesProcessed: Counter<'outcome'>;
  rtf: Histogram;
  callbackAttempts: Counter<'outcome'>;
  httpRequests: Counter<'route' | 'status'>;
  /** Distributed mode: seconds one claim of the shared queue took (found a job or not), and one settle (final state + callback). */
  claimSeconds: Summary;
  settleSeconds: Summary;
  /** Exponentially weighted upload bytes transcribed per wall second per job slot (for ETAs). */
  bytesPerSecond(): number;
  observeJob(sizeBytes: number, wallSec: number): void;
}

export function createMetrics(sources: { queueDepth: () => number | Promise<number>; jobsByState: () => Promise<Record<JobState, number>> }): Metrics {
  const registry = new Registry();
  // prom-client's defaults are already named process_… and nodejs_…: voxdex_process_cpu_seconds_total, voxdex_nodejs_heap_size_total_bytes.
  collectDefaultMetrics({ register: registry, prefix: 'voxdex_' });
  new Gauge({
    name: 'voxdex_queue_depth',
    help: 'Accepted jobs waiting for a worker slot (with PostgreSQL: queued in the shared queue)',
    registers: [registry],
    async collect() {
      this.set(await sources.queueDepth());
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
  const quantiles = { percentiles: [0.5, 0.9, 0.99], maxAgeSeconds: 600, ageBuckets: 5 };
  const claimSeconds = new Summary({ name: 'voxdex_claim_seconds', help: 'Seconds one claim of the shared job queue took', registers: [registry], ...quantiles });
  const settleSeconds = new Summary({ name: 'voxdex_settle_seconds', help: 'Seconds one settle (final state and callback, one transaction) took', registers: [registry], ...quantiles });
  let rate = 0;
  return {
    registry,
    audioSeconds,
    filesProcessed,
    rtf,
    callbackAttempts,
    httpRequests,
    claimSeconds,
    settleSeconds,
    bytesPerSecond: () => rate || 50_000,
    observeJob(sizeBytes, wallSec) {
      if (wallSec <= 0) return;
      const r = sizeBytes / wallSec;
      rate = rate ? rate * 0.8 + r * 0.2 : r;
    },
  };
}
