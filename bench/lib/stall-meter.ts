/**
 * The longest stretch of CPU this thread spends between two turns of its event loop: what a request
 * arriving meanwhile (`/status`) waits on an idle machine. A timer re-armed at every turn reads the
 * thread's CPU clock (the native addon's CLOCK_THREAD_CPUTIME_ID), so load does not inflate it.
 */
import { threadCpuMs } from '../../src/addon/native.js';

export interface StallMeter {
  /** The longest stretch since the last mark (or the start), ms of CPU; starts a new phase. */
  mark(): number;
  stop(): void;
}

export function stallMeter(): StallMeter {
  let last = threadCpuMs();
  let max = 0;
  let timer: NodeJS.Timeout;
  const turn = () => {
    const now = threadCpuMs();
    max = Math.max(max, now - last);
    last = now;
    timer = setTimeout(turn, 1);
  };
  timer = setTimeout(turn, 1);
  return {
    mark() {
      const m = Math.max(max, threadCpuMs() - last);
      max = 0;
      return m;
    },
    stop: () => clearTimeout(timer),
  };
}

/** Runs `work` and measures the longest stretch while it ran. */
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const meter = stallMeter();
  try {
    const result = await work();
    return { result, stallMs: meter.mark() };
  } finally {
    meter.stop();
  }
}
