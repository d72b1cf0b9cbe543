/**
 * Which contents were submitted already, by (destination folder, sha256): what makes the drop folder
 * and `voxdex import` submit each file exactly once per folder, across restarts. Keyed per folder on
 * purpose: the same recording sent to another folder is a separate intent, and one company never
 * learns what another company submitted. A row goes submitting → submitted, or → failed (a failed
 * content may be dropped again and is retried). Every adapter runs test/conformance/job-store.conformance.ts.
 */
import type { ErrorInfo } from '../errors.js';
import type { Destination } from '../types.js';

export type LedgerState = 'submitting' | 'submitted' | 'failed';

export interface LedgerEntry {
  sha256: string;
  state: LedgerState;
  requestid?: string;
  source: 'drop' | 'import';
  destination: Destination;
  path: string;
  at: string;
  error?: ErrorInfo;
}

export interface SubmissionLedger {
  get(d: Destination, sha256: string): Promise<LedgerEntry | undefined>;
  /** Records that `sha256` is about to be submitted (replacing a failed or interrupted attempt; never a submitted one). */
  begin(d: Destination, sha256: string, source: 'drop' | 'import', path: string): Promise<void>;
  submitted(d: Destination, sha256: string, requestid: string): Promise<void>;
  /** Records the error unless the content was submitted meanwhile. */
  failed(d: Destination, sha256: string, error: ErrorInfo): Promise<void>;
  /** Forgets an attempt that will be retried as if it never happened (the service was busy). */
  release(d: Destination, sha256: string): Promise<void>;
}
