/**
 * The request options, each declared once (docs/service.md, "Request options"): its name, how a
 * flag of `voxdex transcribe|import` takes it, its help line, its control on the web page's upload
 * form and its OpenAPI description. The HTTP form and query, drop-folder sidecars and the live query
 * pick the fields by these names (request-options.ts, http/upload-form.ts), the CLI's flags and help
 * are read from it (cli/option-flags.ts), the web page builds its controls from it
 * (ui/src/option-controls.ts), and docs/openapi.json's form is checked against it
 * (test/e2e/api-fuzz.test.ts). Each names its value's parser (option-values.ts); request-options.ts
 * combines the values with the company's settings.
 */
import { KINDS_HELP, parseKinds } from '../redact/kinds.js';
import { DEFAULT_REDACT_KINDS, REDACT_KINDS } from '../types.js';
import { booleanValue, choiceValue, countValue, scrubValue, vocabValue } from './option-values.js';

/** How the web page's upload form shows an option (ui/src/option-controls.ts builds it). */
export type OptionControl =
  | { control: 'checkbox'; label: string; hint?: string }
  | { control: 'count' | 'text'; label: string; hint: string; placeholder: string }
  | { control: 'select'; label: string; hint: string; choices: ReadonlyArray<readonly [string, string]> }
  /** The redaction kinds, one box each (the default kinds ticked). */
  | { control: 'kinds'; label: string };

export interface OptionSpec {
  name: string;
  /** Its CLI flag: boolean, `--name` alone is true, `--name=false` off; valued, `--name VALUE`; none: HTTP only. */
  flag?: 'boolean' | 'valued';
  /** Reads a value as sent (option-values.ts; the kinds: redact/kinds.ts); undefined or empty: not sent. */
  parse: (name: string, value: unknown) => unknown;
  /** A boolean's value when neither the request nor the company sets it. */
  default?: boolean;
  /** The company's settings may change the default (`voxdex company set CO --diarize on`). */
  companyDefault?: true;
  /** The company's scrub policy for this target forces it on (a request's `false` is 403): its floor. */
  policy?: 'text' | 'audio';
  /** The CLI help's left column and text; an option sharing a line with the one before has none. */
  help?: readonly [string, string];
  /** Its control on the web page's upload form; none: not offered there. */
  ui?: OptionControl;
  /** Its description in docs/openapi.json (`TranscribeForm`), checked by test/e2e/api-fuzz.test.ts. */
  openapi: string;
}

const REDACT_OPENAPI = `(ours) Comma-separated redaction kinds (${REDACT_KINDS.join(', ')}) or all, added to the default kinds (${DEFAULT_REDACT_KINDS.join(', ')}) and the company's; -KIND turns one off (name,-cvv). A kind both named and turned off, or every kind turned off, is 400; turning off a kind of the company's policy is 403 (docs/redaction.md, Kinds).`;

export const OPTION_TABLE = [
  {
    name: 'numtrans',
    flag: 'boolean',
    parse: booleanValue,
    default: true,
    companyDefault: true,
    help: ['--numtrans[=false]', 'numbers as numerals (default on)'],
    ui: { control: 'checkbox', label: 'Numbers as numerals' },
    openapi: "`true` (default), `false`, `1` or `0`: numbers written as numerals ($42.50, 8:45, 3rd, digit strings); `false` keeps spoken words (docs/numbers.md).",
  },
  {
    name: 'scrubtext',
    flag: 'boolean',
    parse: scrubValue,
    default: false,
    policy: 'text',
    help: ['--scrubtext[=tag], --scrubaudio', 'redact sensitive data in the transcript (tag: mark it, keep the words) / the kept audio'],
    ui: { control: 'checkbox', label: 'Redact the text' },
    openapi: "`true`, `false`, `1` or `0`: sensitive spans (kinds in `redact`) replaced in every form the transcript takes: `#` per digit, `\"redacted\": kind` (docs/redaction.md). A company policy (`voxdex company set CO --scrub …`) turns it on; `false` under that policy is 403 `FORBIDDEN`.",
  },
  {
    name: 'scrubaudio',
    flag: 'boolean',
    parse: booleanValue,
    default: false,
    policy: 'audio',
    ui: { control: 'checkbox', label: 'Silence redacted audio' },
    openapi: "`true`, `false`, `1` or `0`: the stored recording silent over every redacted span plus 0.25 s; the unredacted upload is deleted once the job is done. A company policy (`voxdex company set CO --scrub …`) turns it on; `false` under that policy is 403 `FORBIDDEN`.",
  },
  {
    name: 'redact',
    flag: 'valued',
    parse: parseKinds,
    help: ['--redact KINDS', KINDS_HELP],
    ui: { control: 'kinds', label: 'Kinds (ticked: the default card numbers, security codes, expiry dates, SSNs, long digit runs; untick one to turn it off)' },
    openapi: REDACT_OPENAPI,
  },
  {
    name: 'diarize',
    flag: 'boolean',
    parse: booleanValue,
    default: false,
    companyDefault: true,
    help: ['--diarize, --speakers N', 'speakers of a mono recording (N from 1 to 10: how many; implies --diarize)'],
    ui: { control: 'checkbox', label: 'Tell speakers apart', hint: '(mono calls)' },
    openapi: "`true`, `false`, `1` or `0`. On a single channel, utterances are split where the speaker changes and carry `metadata.speaker` (`S1`, `S2`, … in order of first appearance); on several channels each channel is `C<n>` (`C<n>S1`, … when a channel holds several voices). `text`/`srt`/`vtt` name the speaker (`[mm:ss] S1: …`).",
  },
  {
    name: 'gender',
    flag: 'boolean',
    parse: booleanValue,
    default: false,
    companyDefault: true,
    help: ['--gender, --sentiment', 'gender and sentiment per utterance'],
    ui: { control: 'checkbox', label: 'Gender of each utterance' },
    openapi: "`true`, `false`, `1` or `0`. Each utterance's `metadata.gender`: `male` or `female` (median pitch; per speaker when diarized).",
  },
  {
    name: 'speakers',
    flag: 'valued',
    parse: countValue,
    ui: { control: 'count', label: 'Speakers', hint: 'If known, 1–10', placeholder: 'found' },
    openapi: "(ours) Number of speakers per channel for diarization, an integer from 1 to 10 (default: estimated). Implies diarize=true; sent with diarize=false: 400.",
  },
  {
    name: 'minspeakers',
    flag: 'valued',
    parse: countValue,
    help: ['--minspeakers N, --maxspeakers N', 'bounds on the number of speakers found (imply --diarize)'],
    ui: { control: 'count', label: 'At least', hint: 'Speakers, if the exact number is not known', placeholder: '1' },
    openapi: "(ours) Fewest speakers per channel diarization may find, 1 to 10 (at most maxspeakers). Implies diarize=true; sent with diarize=false: 400.",
  },
  {
    name: 'maxspeakers',
    flag: 'valued',
    parse: countValue,
    ui: { control: 'count', label: 'At most', hint: 'Speakers', placeholder: '10' },
    openapi: "(ours) Most speakers per channel diarization may find, 1 to 10. Implies diarize=true; sent with diarize=false: 400.",
  },
  {
    name: 'crosstalk',
    flag: 'valued',
    parse: choiceValue(['drop', 'keep'] as const),
    help: ['--crosstalk drop|keep', "another channel's words heard on a channel: dropped (default) or kept, marked"],
    ui: { control: 'select', label: 'Crosstalk', hint: 'Another line heard on a channel', choices: [['', 'Dropped (default)'], ['keep', 'Kept, marked as crosstalk']] },
    openapi: "(ours) On several channels, another channel's speech heard on a channel (bleed) is dropped from the transcript, the index, the metrics and the categories (drop, the default), or kept in the transcript as utterances marked metadata.crosstalk (keep).",
  },
  {
    name: 'sentiment',
    flag: 'boolean',
    parse: booleanValue,
    default: false,
    companyDefault: true,
    ui: { control: 'checkbox', label: 'Sentiment' },
    openapi: "`true`, `false`, `1` or `0` (default: the company's setting, else false): each utterance's `metadata.sentiment` (Positive, Mostly Positive, Neutral, Mostly Negative, Negative) and `metadata.sentimentscore` in [-1, 1], and the top-level `sentiment` per channel or speaker (docs/analytics.md).",
  },
  {
    name: 'emotion',
    parse: booleanValue,
    openapi: "Another name for `sentiment` (the established service's); both given and different: 400.",
  },
  {
    name: 'vocab',
    flag: 'valued',
    parse: vocabValue,
    help: ['--vocab LIST', 'comma-separated words or phrases recognition favours'],
    ui: { control: 'text', label: 'Vocabulary', hint: 'Names and terms to favour, comma-separated', placeholder: 'Acme Gold, Platinum Plus' },
    openapi: "(ours) Comma-separated words or phrases recognition favours, added to the company's list (`voxdex vocab add`): at most 100, each at most 50 characters; words spelled in the vocabulary are written as spelled there (docs/moonshine.md, \"Vocabulary\").",
  },
] as const satisfies readonly OptionSpec[];

export type RequestOptionField = (typeof OPTION_TABLE)[number]['name'];

/** The request fields that make RequestOptions (`emotion` is another name for `sentiment`). */
export const REQUEST_OPTION_FIELDS = OPTION_TABLE.map((o) => o.name) as readonly RequestOptionField[];

export type Named<N extends RequestOptionField> = Extract<(typeof OPTION_TABLE)[number], { name: N }>;

/** An option's row of the table. */
export function optionSpec<N extends RequestOptionField>(name: N): Named<N> {
  return OPTION_TABLE.find((o) => o.name === name) as Named<N>;
}

/** The value of option `name` among `fields`, read by the table's parser for it. */
export function readOption<N extends RequestOptionField>(name: N, fields: Partial<Record<RequestOptionField, unknown>>): ReturnType<Named<N>['parse']> {
  return optionSpec(name).parse(name, fields[name]) as ReturnType<Named<N>['parse']>;
}

/** The options whose default a company sets (`voxdex company set CO --diarize on`, CompanySettings). */
export const COMPANY_DEFAULTS = OPTION_TABLE.flatMap((o) => ('companyDefault' in o ? [o.name] : []));
