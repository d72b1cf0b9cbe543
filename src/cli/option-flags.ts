/**
 * The request options as command-line flags of `voxdex transcribe` and `voxdex import`: the same
 * names and values as the HTTP fields (--diarize, --diarize=false, --speakers 2, --vocab LIST, …),
 * validated by the same resolveRequestOptions.
 */
import type { RequestOptionValues } from '../jobs/request-options.js';
import { OPTION_TABLE, type OptionSpec } from '../jobs/option-table.js';

/** `--name` alone is true; `--name=false` (or 0) turns it off (`emotion` is the HTTP name only). */
export const OPTION_BOOLEANS: readonly string[] = OPTION_TABLE.filter((o) => o.flag === 'boolean' && o.name !== 'emotion').map((o) => o.name);
export const OPTION_VALUED: readonly string[] = OPTION_TABLE.filter((o) => o.flag === 'valued').map((o) => o.name);

export const OPTION_HELP: Array<[string, string]> = OPTION_TABLE.flatMap((o: OptionSpec): Array<[string, string]> => (o.help ? [[o.help[0], o.help[1]]] : []));

/** The option flags given (the last of a repeated one), as request fields. */
export function optionFields(opts: Record<string, string[]>): RequestOptionValues {
  const out: RequestOptionValues = {};
  for (const { name } of OPTION_TABLE) {
    const v = opts[name]?.at(-1);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
