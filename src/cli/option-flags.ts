/**
 * The request options as command-line flags of `voxdex transcribe` and `voxdex import`: the same
 * names and values as the HTTP fields (--diarize, --diarize=false, --speakers 2, --vocab LIST, …),
 * validated by the same resolveRequestOptions.
 */
import type { RequestOptionValues } from '../jobs/request-options.js';
import { KINDS_HELP } from '../redact/kinds.js';

/** `--name` alone is true; `--name=false` (or 0) turns it off. */
export const OPTION_BOOLEANS = ['numtrans', 'scrubtext', 'scrubaudio', 'diarize', 'gender', 'sentiment'] as const;
export const OPTION_VALUED = ['speakers', 'minspeakers', 'maxspeakers', 'crosstalk', 'vocab', 'redact'] as const;

export const OPTION_HELP: Array<[string, string]> = [
  ['--numtrans[=false]', 'numbers as numerals (default on)'],
  ['--scrubtext[=tag], --scrubaudio', 'redact sensitive data in the transcript (tag: mark it, keep the words) / the kept audio'],
  ['--redact KINDS', KINDS_HELP],
  ['--diarize, --speakers N', 'speakers of a mono recording (N from 1 to 10: how many)'],
  ['--minspeakers N, --maxspeakers N', 'bounds on the number of speakers found'],
  ['--crosstalk drop|keep', "another channel's words heard on a channel: dropped (default) or kept, marked"],
  ['--gender, --sentiment', 'gender and sentiment per utterance'],
  ['--vocab LIST', 'comma-separated words or phrases recognition favours'],
];

/** The option flags given (the last of a repeated one), as request fields. */
export function optionFields(opts: Record<string, string[]>): RequestOptionValues {
  const out: RequestOptionValues = {};
  for (const name of [...OPTION_BOOLEANS, ...OPTION_VALUED]) {
    const v = opts[name]?.at(-1);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
