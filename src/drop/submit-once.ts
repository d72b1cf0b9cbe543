/**
 * Submitting one file exactly once by content: the step shared by the drop folder and `voxdex import`.
 * It hashes the file, consults the ledger, reads the sidecar, submits, and says what happened; moving
 * files is the caller's business.
 */
import path from 'node:path';
import { toVoxdexError, type ErrorInfo } from '../errors.js';
import type { RequestOptionValues } from '../jobs/request-options.js';
import type { Destination } from '../types.js';
import { exists, readSidecar, sha256File, sidecarPath } from './files.js';
import type { SubmissionLedger } from '../store/ledger.js';
import type { Submitter } from './submitter.js';
import { NO_REDACTION, type ClientText } from '../redact/client-policy.js';

export type IntakeResult = (
  /** Submitted now. */
  | { kind: 'submitted'; requestid: string; sha256: string; sidecar?: string }
  /** This very file was submitted before (a restart between submit and move). */
  | { kind: 'resumed'; requestid: string; sha256: string; sidecar?: string }
  /** Another file with the same content was submitted to the same folder before: not submitted again. */
  | { kind: 'duplicate'; requestid: string; sha256: string; firstPath: string; sidecar?: string }
  /** The file or its sidecar is bad, or the destination is unknown. */
  | { kind: 'failed'; error: ErrorInfo; sha256?: string; sidecar?: string }
  /** The service cannot take work now (OVERLOADED, NOT_READY, RATE_LIMITED): try again later. */
  | { kind: 'busy'; error: ErrorInfo }
) & {
  /** The file's path as logs, reports and the ledger may hold it: redacted under the company's policy (error messages are too). */
  shown: string;
};

const BUSY = new Set(['OVERLOADED', 'NOT_READY', 'RATE_LIMITED']);

export async function intakeFile(
  file: string,
  destination: Destination,
  source: 'drop' | 'import',
  deps: { ledger: SubmissionLedger; submitter: Submitter; afterSubmit?: () => void; options?: RequestOptionValues },
): Promise<IntakeResult> {
  let sha256: string | undefined;
  let sidecar: string | undefined;
  // Under redaction the ledger, the reports and the logs hold the path redacted (a name like cc-4111….wav).
  let client = clientTextFor(destination, deps, {});
  let shown = client.text(file);
  try {
    sha256 = await sha256File(file);
    if (await exists(sidecarPath(file))) sidecar = sidecarPath(file);
    const side = await readSidecar(file);
    client = clientTextFor(destination, deps, side?.options ?? {});
    shown = client.text(file);
    const known = await deps.ledger.get(destination, sha256);
    if (known?.state === 'submitted') {
      const base = { requestid: known.requestid!, sha256, shown, ...(sidecar ? { sidecar } : {}) };
      return known.path === shown ? { kind: 'resumed', ...base } : { kind: 'duplicate', ...base, firstPath: known.path };
    }
    // 'submitting' here means a previous process died during submit: submit again (at-least-once in
    // that narrow window; the sha256 goes along so the service can recognise the repeat).
    await deps.ledger.begin(destination, sha256, source, shown);
    const { requestid } = await deps.submitter.submit({
      path: file,
      originalName: path.basename(file),
      destination,
      ...(side ? { metadata: side.metadata } : {}),
      ...(deps.options || side?.options ? { options: { ...deps.options, ...side?.options } } : {}),
      source,
      sha256,
    });
    await deps.ledger.submitted(destination, sha256, requestid);
    deps.afterSubmit?.();
    return { kind: 'submitted', requestid, sha256, shown, ...(sidecar ? { sidecar } : {}) };
  } catch (err) {
    const e = toVoxdexError(err);
    const error = client.error({ code: e.code, message: e.message });
    if (BUSY.has(e.code)) {
      if (sha256) await deps.ledger.release(destination, sha256);
      return { kind: 'busy', error, shown };
    }
    if (sha256) await deps.ledger.failed(destination, sha256, error);
    return { kind: 'failed', error, shown, ...(sha256 ? { sha256 } : {}), ...(sidecar ? { sidecar } : {}) };
  }
}

/** Redaction of what is written about the file: the company's policy, or the options (flags, then sidecar) asking for it. */
function clientTextFor(destination: Destination, deps: { submitter: Submitter; options?: RequestOptionValues }, side: RequestOptionValues): ClientText {
  return deps.submitter.clientText?.(destination.company, { ...deps.options, ...side }) ?? NO_REDACTION;
}
