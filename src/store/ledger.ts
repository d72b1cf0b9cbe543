/**
 * Which contents were submitted already, by (destination folder, sha256): what makes the drop folder
 * and `voxdex import` submit each file exactly once per folder, across restarts. Keyed per folder on
 * purpose: the same recording sent to another folder is a separate intent, and one company never
 * learns what another company submitted. A row goes submitting → submitted, or → failed (a failed
 * content may be dropped again and is retried). Every adapter runs test/conformance/job-store.conformance.ts.
 */
import type { ErrorInfo } from '../errors.js';
import type { Destination } from '../types.js';

type LedgerState = 'submitting' | 'submitted' | 'failed';

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

/** A row of the `intake_files` table, as both SQL adapters read it. */
export interface LedgerRow {
  sha256: string;
  state: LedgerState;
  requestid: string | null;
  source: 'drop' | 'import';
  company: string;
  org: string;
  folder: string;
  path: string;
  updated_at: string;
  error: string | null;
}

export function ledgerEntry(r: LedgerRow): LedgerEntry {
  const e: LedgerEntry = {
    sha256: r.sha256,
    state: r.state,
    source: r.source,
    destination: { company: r.company, org: r.org, folder: r.folder },
    path: r.path,
    at: r.updated_at,
  };
  if (r.requestid) e.requestid = r.requestid;
  if (r.error) e.error = JSON.parse(r.error) as ErrorInfo;
  return e;
}
