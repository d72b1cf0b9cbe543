/**
 * Every parameter of the /transcribe routes is single-valued: a name given twice (twice in the form,
 * twice in the query string, or once in each) is 400 BAD_ARGUMENT naming it, as on /search. Taking
 * the first or the last would let `token=<a>&token=<b>` be admitted as one company and filed as another.
 */
import { voxdexError } from '../errors.js';
import { setOwn } from '../is.js';

export function repeatedField(name: string) {
  return voxdexError('BAD_ARGUMENT', `The parameter ${JSON.stringify(name.slice(0, 64))} was given more than once; give it once.`);
}

/** Records `name` in `seen`; throws when it was already there. */
export function takeOnce(seen: Set<string>, name: string): void {
  if (seen.has(name)) throw repeatedField(name);
  seen.add(name);
}

/** Query parameters (as parsed by polka: an array when repeated) as single strings; a repeat throws. */
export function singleValues(query: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) {
      if (value.length > 1) throw repeatedField(name);
      setOwn(out, name, value[0] ?? '');
    } else setOwn(out, name, value);
  }
  return out;
}

/** Form fields (formidable: name → values) merged into `params`; a name repeated or already in `params` throws. */
export function mergeOnce(params: Record<string, string>, fields: Record<string, string[] | undefined>): void {
  const seen = new Set(Object.keys(params));
  for (const [name, values] of Object.entries(fields)) {
    for (const value of values ?? []) {
      takeOnce(seen, name);
      setOwn(params, name, value);
    }
  }
}
