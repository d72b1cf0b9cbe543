/** The boundary between intake (drop folder, `voxdex import`) and the service that accepts work. */
import type { RequestOptionValues } from '../jobs/request-options.js';
import type { ClientText, RedactionFields } from '../redact/client-policy.js';
import type { Destination } from '../types.js';

export interface SubmitInput {
  /** Absolute path of the audio file or archive. The service must have its own durable copy before resolving. */
  path: string;
  /** The name the file arrived under (becomes the request's source name). */
  originalName: string;
  destination: Destination;
  /** From the `<name>.json` sidecar, when there is one: a JSON object. */
  metadata?: Record<string, unknown>;
  /** Request options: `voxdex import`'s flags, overridden field by field by the sidecar's `options`. */
  options?: RequestOptionValues;
  source: 'drop' | 'import';
  /** sha256 of the content (hex): a key the service may use to make a repeated submission a no-op. */
  sha256?: string;
}

/**
 * Implemented by the service. Resolves once the request is durably queued; throws a VoxdexError for a
 * bad file or an unknown destination (NOT_FOUND), or a retryable one (OVERLOADED, NOT_READY) when it
 * cannot take work right now.
 */
export interface Submitter {
  submit(input: SubmitInput): Promise<{ requestid: string }>;
  /**
   * How names and messages about a file for `company` are written (the ledger's path, reports,
   * logs): redacted under the company's policy or when the options ask for redaction. Absent: as they are.
   */
  clientText?(company: string, fields: RedactionFields): ClientText;
}
