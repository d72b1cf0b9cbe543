/**
 * A request's options (numtrans, scrubtext, scrubaudio, redact, diarize, speakers, minspeakers,
 * maxspeakers, crosstalk, gender, sentiment/emotion, vocab) validated at the edge and combined with the company's settings: the one
 * place that turns form fields, query parameters, a drop-folder sidecar or CLI flags into
 * RequestOptions (docs/service.md, "Request options"). The result is stored with the job and read by
 * the post-ASR stages; nothing downstream re-checks it.
 */
import { voxdexError } from '../errors.js';
import { policyKinds } from '../redact/client-policy.js';
import { checkNewPhrase, phraseLength, VOCAB_MAX_CHARS, vocabDigitsProblem } from '../tenancy/company-settings.js';
import { invalidParameter, parseInteger } from '../is.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS, type CompanySettings, type RedactKind, type RequestOptions } from '../types.js';

export { REDACT_KINDS };
/** `redact=all`: every kind. */
export const ALL_KINDS = 'all';

/** The request fields that make RequestOptions (`emotion` is another name for `sentiment`). */
export const REQUEST_OPTION_FIELDS = ['numtrans', 'scrubtext', 'scrubaudio', 'diarize', 'gender', 'sentiment', 'emotion', 'speakers', 'minspeakers', 'maxspeakers', 'crosstalk', 'vocab', 'redact'] as const;

export type RequestOptionField = (typeof REQUEST_OPTION_FIELDS)[number];

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

export const MAX_SPEAKERS = 10;
export const MAX_VOCAB_PHRASES = 100;

const BOOLEANS: Record<string, boolean> = { true: true, false: false, 1: true, 0: false };

/**
 * Validates the fields and applies the company's settings: its policy (`scrub`) forces scrubtext /
 * scrubaudio on and a request that turns one off is refused (FORBIDDEN, 403, naming the policy); its
 * defaults fill what the request did not send. BAD_ARGUMENT (400) names the accepted values.
 */
export function resolveRequestOptions(fields: RequestOptionValues, settings: CompanySettings, company = 'this company'): RequestOptions {
  const sentiment = optionalBoolean('sentiment', fields.sentiment);
  const emotion = optionalBoolean('emotion', fields.emotion);
  if (sentiment !== undefined && emotion !== undefined && sentiment !== emotion) {
    throw voxdexError('BAD_ARGUMENT', `sentiment=${sentiment} and emotion=${emotion} disagree; emotion is another name for sentiment: send one of them`);
  }
  const tag = scrubTag(fields.scrubtext, settings, company);
  const scrubtext = policyBoolean('text', tag ? false : optionalBoolean('scrubtext', fields.scrubtext), settings, company);
  const scrubaudio = policyBoolean('audio', optionalBoolean('scrubaudio', fields.scrubaudio), settings, company);
  const options: RequestOptions = {
    numtrans: optionalBoolean('numtrans', fields.numtrans) ?? settings.numtrans ?? true,
    scrubtext,
    scrubaudio,
    redact: redactKinds(fields.redact, settings),
    ...(tag ? { tag } : {}),
    diarize: optionalBoolean('diarize', fields.diarize) ?? settings.diarize ?? false,
    gender: optionalBoolean('gender', fields.gender) ?? settings.gender ?? false,
    sentiment: sentiment ?? emotion ?? settings.sentiment ?? false,
    vocab: [...new Set([...(settings.vocab ?? []).filter((p) => vocabDigitsProblem(p) === undefined), ...vocabulary(fields.vocab)])],
  };
  for (const name of ['speakers', 'minspeakers', 'maxspeakers'] as const) {
    const v = fields[name];
    if (!absent(v)) options[name] = typeof v === 'number' ? integerValue(name, v) : parseInteger(name, String(v), 1, MAX_SPEAKERS);
  }
  checkSpeakerBounds(options);
  if (typeof settings.agentChannel === 'number') options.agentChannel = settings.agentChannel;
  if (settings.agentPhrases?.length) options.agentPhrases = settings.agentPhrases;
  const crosstalk = fields.crosstalk;
  if (!absent(crosstalk)) {
    if (crosstalk !== 'drop' && crosstalk !== 'keep') throw invalidParameter('crosstalk', 'drop or keep', crosstalk);
    options.crosstalk = crosstalk;
  }
  return options;
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

function absent(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function optionalBoolean(name: string, value: unknown): boolean | undefined {
  if (absent(value)) return undefined;
  if (typeof value === 'boolean') return value;
  const b = typeof value === 'string' || typeof value === 'number' ? BOOLEANS[String(value)] : undefined;
  if (b === undefined) throw invalidParameter(name, 'one of true, false, 1, 0', value);
  return b;
}

function integerValue(name: string, n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SPEAKERS) throw invalidParameter(name, `an integer between 1 and ${MAX_SPEAKERS}`, n);
  return n;
}

/** The company policy wins: on is forced; turning it off is refused. */
function policyBoolean(what: 'text' | 'audio', requested: boolean | undefined, settings: CompanySettings, company: string): boolean {
  if (!settings.scrub?.includes(what)) return requested ?? false;
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
function scrubTag(value: unknown, settings: CompanySettings, company: string): boolean {
  if (typeof value !== 'string' || value.trim().toLowerCase() !== 'tag') return false;
  if (settings.scrub?.includes('text')) {
    throw voxdexError(
      'FORBIDDEN',
      `company ${company}'s policy redacts text (voxdex company set ${company} --scrub ${settings.scrub.join(',')}); scrubtext=tag keeps the words and is not allowed`,
    );
  }
  return true;
}

/** A comma-separated list (or a sidecar's array of strings), trimmed, empty entries dropped. */
function list(name: string, value: unknown): string[] {
  if (absent(value)) return [];
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || !items.every((x) => typeof x === 'string')) throw invalidParameter(name, 'a comma-separated list', value);
  return (items as string[]).map((x) => x.trim()).filter((x) => x !== '');
}

/**
 * The company's kinds plus what the request adds: a request's `redact=` never narrows the policy
 * (`redact=cvv` under `--scrub text` is every default kind, cvv among them). Without a policy or
 * company kinds, the request's list is what it asked for; nothing asked: the default kinds.
 */
function redactKinds(value: unknown, settings: CompanySettings): RedactKind[] {
  const asked = list('redact', value).map((k) => k.toLowerCase()).flatMap((k) => (k === ALL_KINDS ? [...REDACT_KINDS] : [k]));
  const unknown = asked.find((k) => !(REDACT_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) throw invalidParameter('redact', `a comma-separated list of ${REDACT_KINDS.join(', ')}, or all`, unknown);
  const kinds = new Set<string>([...policyKinds(settings), ...asked]);
  return kindsInOrder(kinds.size > 0 ? kinds : new Set(DEFAULT_REDACT_KINDS));
}

function kindsInOrder(kinds: ReadonlySet<string>): RedactKind[] {
  return REDACT_KINDS.filter((k) => kinds.has(k));
}

/**
 * The options a job runs with: those it was accepted with, made at least as strict as the company's
 * settings when it runs (docs/redaction.md, "Policy is the floor": a policy applies to what runs after it is set, queued and
 * resumed work included). It only ever adds: scrubtext/scrubaudio on, the policy's kinds.
 */
export function policyFloor(options: RequestOptions, settings: CompanySettings): RequestOptions {
  const scrub = settings.scrub ?? [];
  const { tag, ...rest } = options;
  const scrubtext = options.scrubtext || scrub.includes('text');
  return {
    ...rest,
    // scrubtext=tag keeps the words: not under a text policy.
    ...(tag && !scrubtext ? { tag } : {}),
    scrubtext,
    scrubaudio: options.scrubaudio || scrub.includes('audio'),
    redact: kindsInOrder(new Set([...options.redact, ...policyKinds(settings)])),
    // Stored before phrases with digits were refused: never written.
    vocab: options.vocab.filter((p) => vocabDigitsProblem(p) === undefined),
  };
}

function vocabulary(value: unknown): string[] {
  const phrases = list('vocab', value);
  if (phrases.length > MAX_VOCAB_PHRASES) {
    throw voxdexError('BAD_ARGUMENT', `vocab has ${phrases.length} phrases; send at most ${MAX_VOCAB_PHRASES} (comma-separated), or add the company's list with voxdex vocab add`);
  }
  const long = phrases.find((p) => phraseLength(p) > VOCAB_MAX_CHARS);
  if (long !== undefined) throw invalidParameter('vocab', `phrases of at most ${VOCAB_MAX_CHARS} characters`, long);
  const bad = phrases.find((p) => /[\x00-\x1f\x7f]/.test(p));
  if (bad !== undefined) throw invalidParameter('vocab', 'phrases without control characters', bad);
  for (const p of phrases) checkNewPhrase(p, 'The vocab phrase');
  return phrases;
}
