/**
 * Reads a `/transcribe` upload: multipart/form-data (or urlencoded) streamed by formidable straight
 * to a temporary file under the data dir, sealed as it arrives (src/audio/sealed-file.ts: no byte
 * of the recording is on disk in plain form, even mid-upload), with the size limit enforced while streaming (TOO_LARGE,
 * 413, before the rest is read). Fields may come in any order and also as query parameters (the form
 * wins). Parameter names of the established service that voxdex does not implement yet are accepted
 * and named in `warnings`; any other name is UNKNOWN_PARAMETER (400) listing the accepted names.
 */
import formidable from 'formidable';
import { mkdirSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { AudioSeal } from '../audio/sealed-file.js';
import { toVoxdexError, voxdexError, VoxdexError } from '../errors.js';
import { REQUEST_OPTION_FIELDS } from '../jobs/option-table.js';
import type { Req } from './server.js';
import { mergeOnce, singleValues, takeOnce } from './single-fields.js';

/** The parameters voxdex implements on POST /transcribe. */
export const TRANSCRIBE_PARAMS = ['token', 'file', 'zpass', 'callback', 'model', 'output', 'callbackerror', 'metadata', 'datetime', ...REQUEST_OPTION_FIELDS] as const;

/**
 * Names the established service knows (and ours: vocab, redact) that voxdex does not
 * implement yet: accepted with a warning. The request options among them are validated and stored
 * with the job already (jobs/request-options.ts); each name leaves this list when its stage lands.
 */
export const COMPAT_PARAMS = [
  'lid',
  'filetype',
  'realtime',
  'outzip',
  'callbackurl',
  'callbackfmt',
] as const;

export interface UploadedFile {
  /** Temporary path under the data dir, sealed with the installation's key; the caller moves or removes it. */
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

/** The query string's parameters as single strings (a repeated name is 400). */
export function queryParams(req: Req): Record<string, string> {
  return singleValues(req.query ?? {});
}

export interface ReadUploadOptions {
  tmpDir: string;
  /** The key the file is sealed with as it streams to disk. */
  seal: AudioSeal;
  maxBytes: number;
  /**
   * Called with each form field as it arrives, before the rest of the body is read (the token field
   * usually precedes the file): throwing refuses the request at once, its partial file removed.
   */
  onField?: (name: string, value: string) => void | Promise<void>;
}

const FORM_TYPES = /^multipart\/form-data|^application\/x-www-form-urlencoded/i;

/**
 * A part is a file when its Content-Disposition has a filename, whatever its Content-Type, or none
 * at all: python requests (`files=[("file", fh)]`) and hand-written clients send file parts without
 * one. formidable alone treats a part without Content-Type as a text field.
 */
function partsWithFilenameAreFiles(form: ReturnType<typeof formidable>): void {
  type Part = { originalFilename?: string | null; mimetype?: string | null };
  const f = form as unknown as { onPart(part: Part): unknown; _handlePart(part: Part): unknown };
  f.onPart = (part) => {
    if (typeof part.originalFilename === 'string' && !part.mimetype) part.mimetype = 'application/octet-stream';
    return f._handlePart(part);
  };
}

/** A request body that is not a form: 415 naming what to send. Only when there is a body at all. */
function checkFormType(req: Req): boolean {
  const type = String(req.headers['content-type'] ?? '');
  if (FORM_TYPES.test(type)) return true;
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return false;
  throw new VoxdexError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The request body is ${type ? JSON.stringify(type.split(';')[0]!.trim()) : 'of no declared type'}; send multipart/form-data with the audio in the field "file" (curl -F token=... -F file=@call.wav), or application/x-www-form-urlencoded for parameters only`,
    { closeConnection: true },
  );
}

export async function readUpload(req: Req, options: ReadUploadOptions): Promise<UploadForm> {
  const ignored: string[] = [];
  const query = queryParams(req);
  checkParamNames(Object.keys(query), TRANSCRIBE_PARAMS, ignored);

  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes + 64 * 1024) throw tooLarge(options.maxBytes);

  const params: Record<string, string> = { ...query };
  if (!checkFormType(req)) {
    req.resume();
    return { params, ignored };
  }

  mkdirSync(options.tmpDir, { recursive: true });
  // Our own write streams (sealing ones), so that a refused upload's files are removed only once they
  // are closed (a stream destroyed while it opens would create the file after an early unlink).
  const streams: Array<{ path: string; stream: Writable }> = [];
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
    fileWriteStreamHandler: (file) => {
      const path = (file as unknown as { filepath: string }).filepath;
      const stream = options.seal.writer(path);
      streams.push({ path, stream });
      return stream;
    },
  });
  partsWithFilenameAreFiles(form);
  let refused: unknown;
  let refuse!: (err: unknown) => void;
  const refusal = new Promise<never>((_, reject) => (refuse = reject));
  // A repeated field is refused as it arrives, before the hook below sees it (listeners run in order).
  const seen = new Set(Object.keys(query));
  form.on('field', (name: string) => {
    if (refused !== undefined) return;
    try {
      takeOnce(seen, name);
    } catch (err) {
      refused = err;
      req.pause();
      refuse(err);
    }
  });
  if (options.onField) {
    form.on('field', (name: string, value: string) => {
      if (refused !== undefined) return;
      Promise.resolve()
        .then(() => options.onField!(name, value))
        .catch((err: unknown) => {
          if (refused !== undefined) return;
          refused = err;
          req.pause();
          refuse(err);
        });
    });
  }
  const removeFiles = async () => {
    await Promise.all(
      streams.map(({ stream }) => (stream.closed ? undefined : new Promise<void>((resolve) => (stream.once('close', () => resolve()), stream.destroy())))),
    );
    for (const { path } of streams) rmSync(path, { force: true });
  };
  let fields: formidable.Fields;
  let files: formidable.Files;
  const parsing = form.parse(req);
  parsing.catch(() => {}); // settled below, or abandoned after a refusal
  try {
    [fields, files] = await Promise.race([parsing, refusal]);
  } catch (err) {
    await removeFiles();
    if (refused !== undefined) throw Object.assign(toVoxdexError(refused), { closeConnection: true });
    throw mapFormidableError(err, options.maxBytes);
  }
  try {
    mergeOnce(params, fields);
    checkParamNames([...Object.keys(fields), ...Object.keys(files)], TRANSCRIBE_PARAMS, ignored);
    const uploaded = files.file?.[0];
    if (!uploaded) return { params, ignored };
    const name = (uploaded.originalFilename ?? 'upload').split(/[\\/]/).pop() || 'upload';
    return { params, ignored, file: { path: uploaded.filepath, name, size: uploaded.size } };
  } catch (err) {
    await removeFiles();
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
  partsWithFilenameAreFiles(form);
  let fields: formidable.Fields;
  try {
    [fields] = await form.parse(req);
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === 1015 || code === 1016 || code === 1009) throw voxdexError('BAD_ARGUMENT', `This request takes no file; send only the parameters ${accepted.join(', ')}`);
    throw mapFormidableError(err, 0);
  }
  checkParamNames(Object.keys(fields), accepted, []);
  mergeOnce(params, fields);
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
