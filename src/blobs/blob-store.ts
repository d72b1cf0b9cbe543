/**
 * The blob store interface: where a request's bytes live — the accepted upload, one transcript
 * document per finished file (the pipeline's checkpoint), an archive member's audio (for playback)
 * and the result file. Keys are relative,
 * `/`-separated paths (`uploads/<id>-<name>`, `jobs/<id>/transcripts/<n>.json`, `jobs/<id>/result.json`).
 *
 * Durability contract (what the job store relies on): every write has resolved only once the bytes
 * survive a crash of this process and of the machine (local: file fsync + directory fsync; S3: the
 * PUT answered 200), so a job row that names a key is committed only after the key is durable.
 * Writes are atomic: a reader sees the whole object or none.
 *
 * Adapters: LocalBlobStore (a directory, the embedded default) and S3BlobStore (any S3-compatible
 * object store). Both run one conformance suite (test/conformance/blob-store.test.ts).
 */
import type { Readable } from 'node:stream';

export interface BlobInfo {
  key: string;
  size: number;
  modified: Date;
}

/** A local file holding a blob's bytes, for tools that need a path (unpacking, decoding). */
export interface LocalCopy {
  path: string;
  /** Removes the copy when it was a temporary one (never the blob itself). */
  release(): Promise<void>;
}

export interface BlobStore {
  /** `local` or `s3`, for logs and /health. */
  readonly kind: 'local' | 's3';
  /** The key a newly accepted upload is stored under (each adapter's layout: blobKeys.upload). */
  uploadKey(id: string, safeName: string): string;
  /** Takes over a local file received by this process (it is moved or uploaded, then gone) as `key`, durably. */
  putFile(key: string, file: string): Promise<void>;
  /** Writes `data` as `key`, durably and atomically (replacing what was there). */
  put(key: string, data: Uint8Array | string): Promise<void>;
  /** The blob's bytes, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
  /** A stream of the blob and its size, or undefined when there is none. */
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** The blob as a local file: the file itself (local) or a copy in `tmpDir` (S3). Throws NOT_FOUND when missing. */
  localCopy(key: string, tmpDir: string): Promise<LocalCopy>;
  /** Removes a blob; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every blob whose key starts with `prefix` (which must end with `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** Every blob whose key starts with `prefix`, in key order. */
  list(prefix: string): Promise<BlobInfo[]>;
  /** Whether the store answers (for /health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The keys of a request's blobs. Uploads are `uploads/<id>-<name>` in the data dir (one flat directory:
 * one directory fsync per upload, shared by concurrent ones) and `uploads/<UTC date>/<id>-<name>` in
 * object storage (the start-up sweep for uploads that were never acknowledged lists only recent days).
 */
export const blobKeys = {
  upload: (id: string, safeName: string, dated?: Date) => (dated ? `uploads/${dated.toISOString().slice(0, 10)}/${id}-${safeName}` : `uploads/${id}-${safeName}`),
  job: (id: string) => `jobs/${id}/`,
  transcript: (id: string, idx: number) => `jobs/${id}/transcripts/${idx}.json`,
  /** An archive member's audio, kept for playback (a single-file request plays its upload). */
  memberAudio: (id: string, idx: number) => `jobs/${id}/audio/${idx}.wav`,
  result: (id: string, ext: string) => `jobs/${id}/result.${ext}`,
};

const KEY = /^(?!\/)(?:[^/\0]+\/)*[^/\0]+$/;

/** Throws on a key that is empty, absolute, has empty, `.` or `..` segments, or NUL bytes. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((s) => s === '.' || s === '..')) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  return key;
}

export function checkPrefix(prefix: string): string {
  if (!prefix.endsWith('/')) throw new Error(`a blob prefix must end with '/': ${JSON.stringify(prefix)}`);
  checkKey(prefix.slice(0, -1));
  return prefix;
}
