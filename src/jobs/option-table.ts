/**
 * The request options, each declared once (docs/service.md, "Request options"): its name, how a
 * flag of `voxdex transcribe|import` takes it, and its help line. The HTTP form and query, drop-folder
 * sidecars and the live query pick the fields by these names (request-options.ts), the CLI's flags and
 * help are read from it (cli/option-flags.ts), and the OpenAPI's form is checked against it
 * (test/e2e/api-fuzz.test.ts). Values are parsed and combined in request-options.ts.
 */
import { KINDS_HELP } from '../redact/kinds.js';

export interface OptionSpec {
  name: string;
  /** boolean: `--name` alone is true, `--name=false` off; valued: `--name VALUE`. */
  flag: 'boolean' | 'valued';
  /** The CLI help's left column and text; an option sharing a line with the one before has none. */
  help?: [string, string];
}

export const OPTION_TABLE = [
  { name: 'numtrans', flag: 'boolean', help: ['--numtrans[=false]', 'numbers as numerals (default on)'] },
  { name: 'scrubtext', flag: 'boolean', help: ['--scrubtext[=tag], --scrubaudio', 'redact sensitive data in the transcript (tag: mark it, keep the words) / the kept audio'] },
  { name: 'scrubaudio', flag: 'boolean' },
  { name: 'redact', flag: 'valued', help: ['--redact KINDS', KINDS_HELP] },
  { name: 'diarize', flag: 'boolean', help: ['--diarize, --speakers N', 'speakers of a mono recording (N from 1 to 10: how many; implies --diarize)'] },
  { name: 'gender', flag: 'boolean', help: ['--gender, --sentiment', 'gender and sentiment per utterance'] },
  { name: 'speakers', flag: 'valued' },
  { name: 'minspeakers', flag: 'valued', help: ['--minspeakers N, --maxspeakers N', 'bounds on the number of speakers found (imply --diarize)'] },
  { name: 'maxspeakers', flag: 'valued' },
  { name: 'crosstalk', flag: 'valued', help: ['--crosstalk drop|keep', "another channel's words heard on a channel: dropped (default) or kept, marked"] },
  { name: 'sentiment', flag: 'boolean' },
  { name: 'emotion', flag: 'boolean' },
  { name: 'vocab', flag: 'valued', help: ['--vocab LIST', 'comma-separated words or phrases recognition favours'] },
] as const satisfies readonly OptionSpec[];

export type RequestOptionField = (typeof OPTION_TABLE)[number]['name'];

/** The request fields that make RequestOptions (`emotion` is another name for `sentiment`). */
export const REQUEST_OPTION_FIELDS = OPTION_TABLE.map((o) => o.name) as readonly RequestOptionField[];
