/**
 * The request options as command-line flags of `voxdex transcribe` and `voxdex import`: the same
 * names and values as the HTTP fields (--diarize, --diarize=false, --speakers 2, --vocab LIST, …),
 * validated by the same resolveRequestOptions.
 */
import type { RequestOptionField, RequestOptionValues } from '../jobs/request-options.js';
import { OPTION_TABLE, type OptionSpec } from '../jobs/option-table.js';

const flagged = (flag: OptionSpec['flag']) => OPTION_TABLE.flatMap((o: OptionSpec) => (o.flag === flag ? [o.name] : []));

/** `--name` alone is true; `--name=false` (or 0) turns it off. */
export const OPTION_BOOLEANS: readonly string[] = flagged('boolean');
export const OPTION_VALUED: readonly string[] = flagged('valued');

export const OPTION_HELP: Array<[string, string]> = OPTION_TABLE.flatMap((o: OptionSpec): Array<[string, string]> => (o.help ? [[o.help[0], o.help[1]]] : []));

/** The option flags given (the last of a repeated one), as request fields. */
export function optionFields(opts: Record<string, string[]>): RequestOptionValues {
  const out: RequestOptionValues = {};
  for (const name of [...OPTION_BOOLEANS, ...OPTION_VALUED] as RequestOptionField[]) {
    const v = opts[name]?.at(-1);
    if (v !== undefined) out[name] = v;
  }
  return out;
}
