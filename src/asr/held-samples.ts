/**
 * A live channel's samples held from some point of the call on: appended as they arrive, dropped from
 * the front once no utterance can still need them. Positions are samples from the start of the call.
 */
export class HeldSamples {
  #buf: Float32Array;
  #len = 0;
  /** The call position of the first sample held. */
  #base = 0;

  constructor(capacity: number) {
    this.#buf = new Float32Array(capacity);
  }

  /** The first sample held. */
  get base(): number {
    return this.#base;
  }

  /** Samples received so far (one past the last held). */
  get end(): number {
    return this.#base + this.#len;
  }

  /** The samples held, from `base` (a view: valid until the next append or drop). */
  get view(): Float32Array {
    return this.#buf.subarray(0, this.#len);
  }

  append(x: Float32Array): void {
    if (this.#len + x.length > this.#buf.length) {
      const bigger = new Float32Array(Math.max(this.#buf.length * 2, this.#len + x.length));
      bigger.set(this.#buf.subarray(0, this.#len));
      this.#buf = bigger;
    }
    this.#buf.set(x, this.#len);
    this.#len += x.length;
  }

  /** Lets go of the samples before `at` (no further than what is held). */
  dropBefore(at: number): void {
    const n = Math.min(at, this.end) - this.#base;
    if (n <= 0) return;
    this.#buf.copyWithin(0, n, this.#len);
    this.#len -= n;
    this.#base += n;
  }

  /** A copy of [start, end), clipped to what is held. */
  slice(start: number, end: number): Float32Array {
    const a = Math.max(0, start - this.#base);
    return this.#buf.slice(a, Math.max(a, Math.min(this.#len, end - this.#base)));
  }
}
