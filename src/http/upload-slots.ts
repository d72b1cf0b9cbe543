/**
 * Concurrent uploads per company (and for the root token): a slow or hostile client of one company
 * can hold at most `max` upload connections at a time, whatever its request rate. A slot is taken as
 * soon as the token is known (query string, or the form's token field as it streams in) and given
 * back when the request is answered. Over it: RATE_LIMITED (429, Retry-After) naming the limit.
 */
import { VoxdexError } from '../errors.js';
import type { Principal } from '../tenancy/tenancy.js';

export class UploadSlots {
  readonly #inUse = new Map<string, number>();

  /** `max` 0 disables the limit. */
  constructor(readonly max: number) {}

  /** Takes a slot for `principal`; returns the function that gives it back (idempotent). */
  acquire(principal: Principal): () => void {
    if (this.max === 0) return () => {};
    const key = principal.kind === 'root' ? 'root' : `company:${principal.company}`;
    const n = this.#inUse.get(key) ?? 0;
    if (n >= this.max) {
      const who = principal.kind === 'root' ? 'The root token' : `Company ${principal.company}`;
      throw new VoxdexError(
        'RATE_LIMITED',
        `${who} already has ${n} uploads in progress; at most ${this.max} at a time are accepted (VOXDEX_MAX_CONCURRENT_UPLOADS=${this.max}). Send this one when one of them has finished.`,
        { retryAfterSec: 5 },
      );
    }
    this.#inUse.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inUse.get(key) ?? 1) - 1;
      if (left > 0) this.#inUse.set(key, left);
      else this.#inUse.delete(key);
    };
  }

  /** Uploads in progress for a principal (for tests and metrics). */
  inUse(principal: Principal): number {
    return this.#inUse.get(principal.kind === 'root' ? 'root' : `company:${principal.company}`) ?? 0;
  }
}
