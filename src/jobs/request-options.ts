/**
 * A request's options (the one option table, option-table.ts) read by the table's parsers at the
 * edge and combined with the company's settings and with each other: the one place that turns form
 * fields, query parameters, a live call's query, a drop-folder sidecar or CLI flags into
 * RequestOptions (docs/service.md, "Request options"). The result is stored with the job and read by
 * the post-ASR stages; nothing downstream re-checks it.
 */
import { voxdexError } from '../errors.js';
import { policyKinds, requestKinds } from '../redact/client-policy.js';
import { inOrder, type KindsChoice } from '../redact/kinds.js';
import { vocabDigitsProblem } from '../tenancy/company-settings.js';
import { COMPANY_DEFAULTS, optionSpec, readOption, REQUEST_OPTION_FIELDS, type RequestOptionField } from './option-table.js';
import { MAX_SPEAKERS } from './option-values.js';
import type { CompanySettings, RedactKind, RequestOptions } from '../types.js';

export { REQUEST_OPTION_FIELDS, type RequestOptionField };

/**
 * The fields as received: strings from a form, query or CLI flag; a sidecar's JSON values may also be
 * booleans, numbers or (vocab, redact) arrays of strings. Absent or '' means "not sent".
 */
export type RequestOptionValues = Partial<Record<RequestOptionField, unknown>>;

/** The request option fields among `params` (a form, a query, a sidecar's `options`). */
export function pickRequestOptions(params: Readonly<Record<string, unknown>>): RequestOptionValues {
  const out: RequestOptionValues = {};
  for (const name of REQUEST_OPTION_FIELDS) if (params[name] !== undefined) out[name] = params[name];
  return out;
}

/**
 * Validates the fields and applies the company's settings: its policy (`scrub`) forces scrubtext /
 * scrubaudio on and a request that turns one off is refused (FORBIDDEN, 403, naming the policy); its
 * defaults fill what the request did not send. BAD_ARGUMENT (400) names the accepted values.
 */
export function resolveRequestOptions(fields: RequestOptionValues, settings: CompanySettings, company = 'this company'): RequestOptions {
  const sentiment = readOption('sentiment', fields);
  const emotion = readOption('emotion', fields);
  if (sentiment !== undefined && emotion !== undefined && sentiment !== emotion) {
    throw voxdexError('BAD_ARGUMENT', `sentiment=${sentiment} and emotion=${emotion} disagree; emotion is another name for sentiment: send one of them`);
  }
  const scrub = readOption('scrubtext', fields);
  const tag = scrub === 'tag' && scrubTag(settings, company);
  const scrubtext = policyBoolean('scrubtext', tag ? false : (scrub as boolean | undefined), settings, company);
  const scrubaudio = policyBoolean('scrubaudio', readOption('scrubaudio', fields), settings, company);
  // The request's value, else the company's (COMPANY_DEFAULTS), else the table's default.
  const flag = (name: (typeof COMPANY_DEFAULTS)[number]) => readOption(name, fields) ?? settings[name] ?? optionSpec(name).default;
  const options: RequestOptions = {
    numtrans: flag('numtrans'),
    scrubtext,
    scrubaudio,
    redact: redactKinds(readOption('redact', fields), settings, company),
    ...(tag ? { tag } : {}),
    diarize: flag('diarize'),
    gender: flag('gender'),
    sentiment: sentiment ?? emotion ?? flag('sentiment'),
    vocab: [...new Set([...(settings.vocab ?? []).filter((p) => vocabDigitsProblem(p) === undefined), ...readOption('vocab', fields)])],
  };
  for (const name of ['speakers', 'minspeakers', 'maxspeakers'] as const) {
    const n = readOption(name, fields);
    if (n !== undefined) options[name] = n;
  }
  checkSpeakerBounds(options);
  impliedDiarize(options, readOption('diarize', fields));
  if (typeof settings.agentChannel === 'number') options.agentChannel = settings.agentChannel;
  if (settings.agentPhrases?.length) options.agentPhrases = settings.agentPhrases;
  const crosstalk = readOption('crosstalk', fields);
  if (crosstalk !== undefined) options.crosstalk = crosstalk;
  return options;
}

/**
 * `speakers`, `minspeakers` and `maxspeakers` only make sense with diarize: they imply it (over the
 * company's default); with `diarize=false` sent beside them the request is refused (BAD_ARGUMENT).
 */
function impliedDiarize(o: RequestOptions, diarize: boolean | undefined): void {
  const counts = (['speakers', 'minspeakers', 'maxspeakers'] as const).filter((n) => o[n] !== undefined);
  if (counts.length === 0) return;
  if (diarize === false) {
    throw voxdexError('BAD_ARGUMENT', `${counts.map((n) => `${n}=${o[n]}`).join(' and ')} counts the speakers diarize finds, and diarize=false was sent; send diarize=true or leave diarize out (${counts[0]} implies it)`);
  }
  o.diarize = true;
}

/** minspeakers ≤ maxspeakers, and speakers (the exact number) inside them. */
function checkSpeakerBounds(o: RequestOptions): void {
  if (o.minspeakers !== undefined && o.maxspeakers !== undefined && o.minspeakers > o.maxspeakers) {
    throw voxdexError('BAD_ARGUMENT', `minspeakers=${o.minspeakers} is more than maxspeakers=${o.maxspeakers}; send minspeakers ≤ maxspeakers`);
  }
  if (o.speakers !== undefined && ((o.minspeakers ?? 1) > o.speakers || (o.maxspeakers ?? MAX_SPEAKERS) < o.speakers)) {
    throw voxdexError('BAD_ARGUMENT', `speakers=${o.speakers} is outside minspeakers/maxspeakers; send either the exact number (speakers) or bounds (minspeakers, maxspeakers)`);
  }
}

/** The options of a request that sent none, for a company without settings (jobs stored before options existed). */
export function defaultRequestOptions(): RequestOptions {
  return resolveRequestOptions({}, {});
}




/** The company policy wins: on is forced; turning it off is refused. */
function policyBoolean(name: 'scrubtext' | 'scrubaudio', requested: boolean | undefined, settings: CompanySettings, company: string): boolean {
  const { policy: what, default: otherwise } = optionSpec(name);
  if (!settings.scrub?.includes(what)) return requested ?? otherwise;
  if (requested === false) {
    throw voxdexError(
      'FORBIDDEN',
      `company ${company}'s policy redacts ${what} (voxdex company set ${company} --scrub ${settings.scrub.join(',')}); scrub${what}=false is not allowed`,
    );
  }
  return true;
}

/**
 * `scrubtext=tag`: mark the spans without replacing them. Refused (FORBIDDEN, 403) when the
 * company's policy redacts text: marking would keep what the policy removes.
 */
function scrubTag(settings: CompanySettings, company: string): boolean {
  if (settings.scrub?.includes('text')) {
    throw voxdexError(
      'FORBIDDEN',
      `company ${company}'s policy redacts text (voxdex company set ${company} --scrub ${settings.scrub.join(',')}); scrubtext=tag keeps the words and is not allowed`,
    );
  }
  return true;
}


/**
 * The kinds (docs/redaction.md, "Kinds"): the company's kinds (the default kinds unless it chose
 * otherwise) with the request's choice applied — named kinds added, `-KIND` turned off. A policy's
 * kind is never turned off (FORBIDDEN, 403); turning every kind off is refused (BAD_ARGUMENT).
 */
function redactKinds(choice: KindsChoice, settings: CompanySettings, company: string): RedactKind[] {
  const held = policyKinds(settings);
  const refused = choice.off.filter((k) => held.includes(k));
  if (refused.length > 0) {
    throw voxdexError(
      'FORBIDDEN',
      `company ${company}'s policy redacts ${refused.join(', ')} (voxdex company set ${company} --scrub ${settings.scrub!.join(',')}); redact=${refused.map((k) => `-${k}`).join(',')} is not allowed`,
    );
  }
  const kinds = requestKinds(settings, choice);
  if (kinds.length === 0) throw voxdexError('BAD_ARGUMENT', 'redact turns every kind off; to redact nothing send scrubtext=false (and scrubaudio=false) instead');
  return kinds;
}

/**
 * The options a job runs with: those it was accepted with, made at least as strict as the company's
 * settings when it runs (docs/redaction.md, "Policy is the floor": a policy applies to what runs after it is set, queued and
 * resumed work included). It only ever adds: scrubtext/scrubaudio on, the policy's kinds.
 */
export function policyFloor(options: RequestOptions, settings: CompanySettings): RequestOptions {
  // Each option the table ties to a scrub target is on when the company's policy names that target.
  const floor = (name: 'scrubtext' | 'scrubaudio') => options[name] || (settings.scrub ?? []).includes(optionSpec(name).policy);
  const { tag, ...rest } = options;
  const scrubtext = floor('scrubtext');
  return {
    ...rest,
    // scrubtext=tag keeps the words: not under a text policy.
    ...(tag && !scrubtext ? { tag } : {}),
    scrubtext,
    scrubaudio: floor('scrubaudio'),
    redact: inOrder([...options.redact, ...policyKinds(settings)]),
    // Stored before phrases with digits were refused: never written.
    vocab: options.vocab.filter((p) => vocabDigitsProblem(p) === undefined),
  };
}

