/**
 * Under redaction (scrubtext or scrubaudio, asked or the company's policy), what the client sent
 * beside the audio is redacted before anything is written: the file name (job row, blob key, index,
 * result and callback), archive-member names (job items, result zip, errors.json), `metadata` and
 * sidecar values, and error messages that may quote them (job row, callback, logs, drop-folder
 * reports). One object per request or job says how; client-text.ts does the finding.
 */
import type { ErrorInfo } from '../errors.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS, type CompanySettings, type RedactKind, type RequestOptions } from '../types.js';
import { redactJson, redactText } from './client-text.js';

/**
 * The kinds a company holds every request to: its `--redact` kinds; under a scrub policy without
 * them, the default kinds (a policy of `--scrub text` redacts what scrubtext=true does). None otherwise.
 */
export function policyKinds(settings: CompanySettings): readonly RedactKind[] {
  if (settings.redact?.length) return settings.redact;
  return settings.scrub?.length ? DEFAULT_REDACT_KINDS : [];
}

/** The request fields redaction looks at before they are validated (a form's strings, a sidecar's values). */
export interface RedactionFields {
  scrubtext?: unknown;
  scrubaudio?: unknown;
  redact?: unknown;
}

export interface ClientText {
  /** Whether anything is redacted (false: every method returns its input). */
  readonly active: boolean;
  /** Free text: a file or member name, a note, a message. */
  text(s: string): string;
  /** A metadata object (values read with their field names as context; names redacted too). */
  metadata<T extends Record<string, unknown> | undefined>(m: T): T;
  /** An error with its message redacted. */
  error<E extends Pick<ErrorInfo, 'message'>>(e: E): E;
}

/** Nothing redacted. */
export const NO_REDACTION: ClientText = { active: false, text: (s) => s, metadata: (m) => m, error: (e) => e };
const NONE = NO_REDACTION;

function redacting(kinds: readonly RedactKind[]): ClientText {
  if (kinds.length === 0) return NONE;
  return {
    active: true,
    text: (s) => redactText(s, kinds),
    metadata: (m) => (m === undefined ? m : (redactJson(m, kinds) as typeof m)),
    error: (e) => ({ ...e, message: redactText(e.message, kinds) }),
  };
}

/** For a job: its options as it runs (after the policy floor). */
export function clientTextOf(options: Pick<RequestOptions, 'scrubtext' | 'scrubaudio' | 'redact'>): ClientText {
  return options.scrubtext || options.scrubaudio ? redacting(options.redact) : NONE;
}

const TRUE = new Set(['true', '1']);

/**
 * For a request not (yet) accepted — its errors, the drop folder's reports and logs: redaction
 * applies when the company has a policy or the request asks for it, with the default kinds at least
 * (failing closed: the request's own list may not have been read yet).
 */
export function clientTextUnderPolicy(settings: CompanySettings, fields: RedactionFields = {}): ClientText {
  const asked = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && TRUE.has(v.trim().toLowerCase()));
  if (!settings.scrub?.length && !asked(fields.scrubtext) && !asked(fields.scrubaudio)) return NONE;
  const named = typeof fields.redact === 'string' ? fields.redact.split(',') : Array.isArray(fields.redact) ? fields.redact : [];
  const kinds = new Set<string>([...DEFAULT_REDACT_KINDS, ...policyKinds(settings), ...named.map((k) => String(k).trim().toLowerCase())]);
  return redacting(REDACT_KINDS.filter((k) => kinds.has(k)));
}

/**
 * Names made unique after redaction (two members `cc-4111….wav` and `cc-5555….wav` both become
 * `cc-################.wav`): the second is `cc-################~2.wav`, as the drop folder names
 * a second copy. Deterministic in the order given, so a resumed job names its members the same way.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let candidate = name;
    for (let i = 2; seen.has(candidate); i++) candidate = `${stem}~${i}${ext}`;
    seen.add(candidate);
    return candidate;
  });
}
