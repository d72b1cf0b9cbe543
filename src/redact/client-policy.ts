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
import { applyKinds, parseKinds, type KindsChoice } from './kinds.js';

/**
 * The kinds the company redacts: the default kinds with its `--redact` choice applied (kinds it
 * added, default kinds it turned off). Stored lists from before that choice only ever add.
 */
export function companyKinds(settings: CompanySettings): RedactKind[] {
  return applyKinds(DEFAULT_REDACT_KINDS, { on: settings.redact ?? [], off: settings.redactOff ?? [] });
}

/** The kinds a company holds every request to: under a scrub policy, its kinds; none otherwise. */
export function policyKinds(settings: CompanySettings): readonly RedactKind[] {
  return settings.scrub?.length ? companyKinds(settings) : [];
}

/**
 * The kinds a request's choice (`redact=`) gives under the company's settings: the company's kinds
 * with the request's added and those it turned off removed — except the policy's, which a request
 * never turns off (request-options.ts refuses it; here, before validation, it is ignored).
 */
export function requestKinds(settings: CompanySettings, choice: KindsChoice): RedactKind[] {
  const held = policyKinds(settings);
  return applyKinds(companyKinds(settings), { on: choice.on, off: choice.off.filter((k) => !held.includes(k)) });
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

const NOT_ASKED = new Set(['', 'false', '0', 'tag']);

/** scrubtext/scrubaudio as sent, before validation: on unless plainly off (a bad value fails closed). */
function asked(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0) return false;
  return !NOT_ASKED.has(String(value).trim().toLowerCase());
}

/**
 * For a request not (yet) accepted — its errors, the drop folder's reports and logs: redaction
 * applies when the company has a policy or the request asks for it, with the kinds the request
 * will have once accepted (the one parser, kinds.ts); a list that does not parse is every kind
 * (the request is refused; its name is still shown redacted).
 */
export function clientTextUnderPolicy(settings: CompanySettings, fields: RedactionFields = {}): ClientText {
  if (!settings.scrub?.length && !asked(fields.scrubtext) && !asked(fields.scrubaudio)) return NONE;
  let choice: KindsChoice;
  try {
    choice = parseKinds('redact', fields.redact);
  } catch {
    return redacting(REDACT_KINDS);
  }
  return redacting(requestKinds(settings, choice));
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
