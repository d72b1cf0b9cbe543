/**
 * How fast a live call's audio is taken (docs/live.md, "Limits"): no faster than `maxSpeed` times
 * real time, after a first burst of PACE_BURST_SEC of audio (what a client buffers before it starts
 * sending at the pace of the call). A client that sends faster is not refused: the server stops
 * reading its connection (back-pressure, the client's own sends wait in its socket) until the
 * call's clock has caught up.
 */

/** Seconds of audio a call may send ahead of its pace (a client's start-up buffer). */
export const PACE_BURST_SEC = 2;

export class IntakePace {
  readonly #maxSpeed: number;
  #startMs: number | undefined;

  constructor(maxSpeed: number) {
    this.#maxSpeed = maxSpeed;
  }

  /**
   * How long to wait, ms, before the call's audio may reach `audioSec` (what it has taken plus the
   * next message) at time `nowMs` (0 = take it now). The clock starts at the first call.
   */
  waitMs(audioSec: number, nowMs: number): number {
    this.#startMs ??= nowMs;
    const dueMs = this.#startMs + (Math.max(0, audioSec - PACE_BURST_SEC) / this.#maxSpeed) * 1000;
    return Math.max(0, Math.ceil(dueMs - nowMs));
  }
}
