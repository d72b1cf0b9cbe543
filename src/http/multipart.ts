/**
 * Reads a `/transcribe` upload: multipart/form-data (or urlencoded) streamed by formidable straight
 * to a temporary file under the data dir, with the size limit enforced while streaming (TOO_LARGE,
 * 413, before the rest is read). Fields may come in any order and also as query parameters (the form
 * wins). Parameter names of the established service that voxdex does not implement yet are accepted
 * and named in `warnings`; any other name is UNKNOWN_PARAMETER (400) listing the accepted names.
 */
import formidable from 'formidable';
import { mkdirSync, rmSync } from 'node:fs';
import { voxdexError, VoxdexError } from '../errors.js';
import type { Req } from './server.js';

/** The parameters voxdex implements on POST /transcribe. */
export const TRANSCRIBE_PARAMS = ['token', 'file', 'zpass', 'callback', 'model', 'output', 'callbackerror', 'metadata', 'datetime'] as const;

/** Names the established service knows and voxdex does not implement yet: accepted with a warning. */
export const COMPAT_PARAMS = [
  'diarize',
  'emotion',
  'gender',
  'sentiment',
  'scrubtext',
  'scrubaudio',
  'numtrans',
  'lid',
  'filetype',
  'realtime',
  'outzip',
  'callbackurl',
  'callbackfmt',
] as const;

export interface UploadedFile {
  /** Temporary path under the data dir; the caller moves or removes it. */
  path: string;
  /** The client's file name, reduced to its base name. */
  name: string;
  size: number;
}

export interface UploadForm {
  params: Record<string, string>;
  file?: UploadedFile;
  /** Not-yet-implemented compatibility parameters that were sent, by name. */
  ignored: string[];
}

/** Checks parameter names: compat names go to `ignored`, unknown names throw UNKNOWN_PARAMETER. */
export function checkParamNames(names: Iterable<string>, accepted: readonly string[], ignored: string[]): void {
  for (const name of names) {
    if (accepted.includes(name)) continue;
    if ((COMPAT_PARAMS as readonly string[]).includes(name)) {
      if (!ignored.includes(name)) ignored.push(name);
      continue;
    }
    throw voxdexError('UNKNOWN_PARAMETER', `Unknown parameter ${JSON.stringify(name.slice(0, 64))}; accepted parameters: ${accepted.join(', ')}`);
  }
}

/** The query string's parameters as single strings (the last value of a repeated name). */
export function queryParams(req: Req): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query ?? {})) out[k] = Array.isArray(v) ? v[v.length - 1]! : v;
  return out;
}

export async function readUpload(req: Req, options: { tmpDir: string; maxBytes: number }): Promise<UploadForm> {
  const ignored: string[] = [];
  const query = queryParams(req);
  checkParamNames(Object.keys(query), TRANSCRIBE_PARAMS, ignored);

  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes + 64 * 1024) throw tooLarge(options.maxBytes);

  const type = String(req.headers['content-type'] ?? '');
  const params: Record<string, string> = { ...query };
  if (!/^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(type)) {
    req.resume();
    return { params, ignored };
  }

  mkdirSync(options.tmpDir, { recursive: true });
  const started: string[] = [];
  const form = formidable({
    uploadDir: options.tmpDir,
    maxFileSize: options.maxBytes,
    maxTotalFileSize: options.maxBytes,
    maxFiles: 1,
    maxFields: 100,
    maxFieldsSize: 1024 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    keepExtensions: false,
  });
  form.on('fileBegin', (_name, file) => started.push(file.filepath));
  let fields: formidable.Fields;
  let files: formidable.Files;
  try {
    [fields, files] = await form.parse(req);
  } catch (err) {
    for (const p of started) rmSync(p, { force: true });
    throw mapFormidableError(err, options.maxBytes);
  }
  const cleanup = () => started.forEach((p) => rmSync(p, { force: true }));
  try {
    for (const [name, values] of Object.entries(fields)) {
      if (values && values.length > 0) params[name] = values[values.length - 1]!;
    }
    checkParamNames([...Object.keys(fields), ...Object.keys(files)], TRANSCRIBE_PARAMS, ignored);
    const uploaded = files.file?.[0];
    if (!uploaded) return { params, ignored };
    const name = (uploaded.originalFilename ?? 'upload').split(/[\\/]/).pop() || 'upload';
    return { params, ignored, file: { path: uploaded.filepath, name, size: uploaded.size } };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/**
 * The parameters of a request without a file (result, cancel, delete): the query string plus, when
 * the body is a urlencoded or multipart form, its fields (the form wins), read with the same parser
 * as uploads. Names are checked against `accepted` (UNKNOWN_PARAMETER otherwise).
 */
export async function readFields(req: Req, accepted: readonly string[]): Promise<Record<string, string>> {
  const params = queryParams(req);
  checkParamNames(Object.keys(params), accepted, []);
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data|^application\/x-www-form-urlencoded/i.test(type)) {
    req.resume();
    return params;
  }
  const form = formidable({ maxFiles: 0, maxFileSize: 0, maxFields: 20, maxFieldsSize: 64 * 1024 });
  let fields: formidable.Fields;
  try {
    [fields] = await form.parse(req);
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === 1015 || code === 1016 || code === 1009) throw voxdexError('BAD_ARGUMENT', `This request takes no file; send only the parameters ${accepted.join(', ')}`);
    throw mapFormidableError(err, 0);
  }
  checkParamNames(Object.keys(fields), accepted, []);
  for (const [name, values] of Object.entries(fields)) {
    if (values && values.length > 0) params[name] = values[values.length - 1]!;
  }
  return params;
}

function tooLarge(maxBytes: number) {
  return new VoxdexError(
    'TOO_LARGE',
    `The upload is larger than the limit of ${Math.round(maxBytes / 1048576)} MiB; split the archive or ask the operator to raise VOXDEX_MAX_UPLOAD_MIB`,
    { closeConnection: true },
  );
}

function mapFormidableError(err: unknown, maxBytes: number) {
  const code = (err as { code?: number }).code;
  if (code === 1009 || code === 1016) return tooLarge(maxBytes);
  if (code === 1015) return voxdexError('BAD_ARGUMENT', 'Send exactly one file in the form field "file" (one audio file or one zip/7z archive)');
  if (code === 1006 || code === 1007) return voxdexError('BAD_ARGUMENT', 'Too many or too large form fields; send only the documented parameters');
  if (code === 1002) return new VoxdexError('BAD_ARGUMENT', 'The upload was aborted before it was complete; send it again', { closeConnection: true });
  return voxdexError('BAD_ARGUMENT', `The form could not be read (${(err as Error).message}); send multipart/form-data with the audio in the field "file"`);
}
