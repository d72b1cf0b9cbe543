/** File helpers shared by the drop folder and `voxdex import`: hashing, sidecars, moving without overwriting. */
import { access, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { voxdexError } from '../errors.js';
import { REQUEST_OPTION_FIELDS, type RequestOptionValues } from '../jobs/request-options.js';

export { sha256File } from '../jobs/content-hash.js';

/** Names that are never inputs: hidden entries, partial uploads, JSON sidecars and error reports. */
export function isCandidateName(name: string): boolean {
  return !name.startsWith('.') && !name.toLowerCase().endsWith('.part') && !name.toLowerCase().endsWith('.json');
}

/** `<dir>/<stem>.json` for `<dir>/<stem>.<ext>`. */
export function sidecarPath(file: string): string {
  const ext = path.extname(file);
  return path.join(path.dirname(file), `${path.basename(file, ext)}.json`);
}

export async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

export interface Sidecar {
  path: string;
  metadata: Record<string, unknown>;
  /** Its `options` object (numtrans, scrubtext, diarize, …), taken out of the metadata. */
  options?: RequestOptionValues;
}

/**
 * Reads the sidecar beside `file`, if any: a JSON object of metadata whose `options` key, when
 * present, holds the request's options. Throws BAD_ARGUMENT when it is not a JSON object, or
 * `options` is not one of known fields.
 */
export async function readSidecar(file: string): Promise<Sidecar | undefined> {
  const p = sidecarPath(file);
  let text: string;
  try {
    text = await readFile(p, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw voxdexError('BAD_ARGUMENT', `Sidecar ${path.basename(p)} is not valid JSON (${(err as Error).message}); fix it and drop the file again`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw voxdexError('BAD_ARGUMENT', `Sidecar ${path.basename(p)} must hold a JSON object of metadata fields`);
  }
  const { options, ...metadata } = parsed as Record<string, unknown>;
  if (options === undefined) return { path: p, metadata };
  const fields = REQUEST_OPTION_FIELDS as readonly string[];
  if (!options || typeof options !== 'object' || Array.isArray(options) || Object.keys(options).some((k) => !fields.includes(k))) {
    throw voxdexError('BAD_ARGUMENT', `Sidecar ${path.basename(p)}: "options" must be a JSON object of ${fields.join(', ')}; fix it and drop the file again`);
  }
  return { path: p, metadata, options: options as RequestOptionValues };
}

/** A name in `dir` that does not exist yet: `name`, else `stem~2.ext`, `stem~3.ext`, … */
export async function freeName(dir: string, name: string): Promise<string> {
  const ext = path.extname(name);
  const stem = path.basename(name, ext);
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? name : `${stem}~${i}${ext}`;
    if (!(await exists(path.join(dir, candidate))) && !(await exists(path.join(dir, `${candidate}.error.json`)))) return candidate;
  }
}

/** Moves `file` into `dir` (created if needed) without overwriting anything; returns the new path. */
export async function moveInto(file: string, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = path.join(dir, await freeName(dir, path.basename(file)));
  await rename(file, target);
  return target;
}

/** Writes `value` as `file` whole or not at all (a reader never sees a half-written report). */
export async function writeJson(file: string, value: unknown): Promise<void> {
  const partial = `${file}.part`;
  await writeFile(partial, `${JSON.stringify(value, null, 2)}\n`);
  await rename(partial, file);
}
