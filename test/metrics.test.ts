/** The Prometheus registry the service serves at GET /metrics. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMetrics } from '../src/metrics.js';

const m = suite('metrics');

m('names carry one voxdex_ prefix: process and Node.js defaults are voxdex_process_… and voxdex_nodejs_…, never doubled', async () => {
  const metrics = createMetrics({ queueDepth: () => 3, jobsByState: async () => ({ queued: 3, running: 1, done: 7, failed: 0, cancelled: 0 }) });
  const text = await metrics.registry.metrics();
  const names = [...new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!))];
  assert.ok(names.length > 10, names.join(' '));
  for (const name of names) {
    assert.match(name, /^voxdex_/, name);
    assert.not.match(name, /^voxdex_process_process_|^voxdex_process_nodejs_/, name);
  }
  for (const name of ['voxdex_process_cpu_seconds_total', 'voxdex_process_resident_memory_bytes', 'voxdex_nodejs_heap_size_total_bytes', 'voxdex_queue_depth', 'voxdex_jobs', 'voxdex_http_requests_total']) {
    assert.ok(names.includes(name), name);
  }
  assert.match(text, /^voxdex_queue_depth 3$/m);
  assert.match(text, /^voxdex_jobs\{state="done"\} 7$/m);
});

m.run();
