/**
 * BlobStore over S3-compatible object storage (@aws-sdk/client-s3): Amazon S3, MinIO, Ceph RGW…
 * A PUT answered 200 is durable and atomic by S3's contract, which is the ordering the job store
 * needs (the object exists before the row that names it commits). Files above PART_BYTES go up as
 * a multipart upload (aborted on failure, so no half object is ever visible).
 *
 * Keys live under an optional prefix in one bucket. With an endpoint URL (VOXDEX_S3_URL) requests
 * are path-style (`<endpoint>/<bucket>/<key>`), which every S3-compatible server accepts.
 * Credentials: those given (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN read by
 * loadConfig), else the SDK's default chain (instance roles, profiles).
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { voxdexError } from '../errors.js';
import { blobKeys, checkKey, checkPrefix, type BlobInfo, type BlobStore, type LocalCopy } from './blob-store.js';

interface S3BlobStoreOptions {
  /** Endpoint URL of an S3-compatible server; undefined = Amazon S3 of `region`. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Prepended to every key (e.g. `voxdex/`); '' for none. */
  prefix?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Objects larger than this are sent as a multipart upload (default 64 MiB; S3's minimum part is 5 MiB). */
  partBytes?: number;
}

const PART_BYTES = 64 * 1024 * 1024;
const MAX_PARTS = 10_000;

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';

  uploadKey(id: string, safeName: string): string {
    return blobKeys.upload(id, safeName, new Date());
  }
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #where: string;
  readonly #prefix: string;
  readonly #partBytes: number;

  constructor(o: S3BlobStoreOptions) {
    this.#s3 = new S3Client({
      region: o.region,
      ...(o.endpoint ? { endpoint: o.endpoint, forcePathStyle: true } : {}),
      // A copy: the SDK annotates the credentials object it is given (the config's is frozen).
      ...(o.credentials ? { credentials: { ...o.credentials } } : {}),
      maxAttempts: 3,
    });
    this.#bucket = o.bucket;
    this.#where = o.endpoint ?? `Amazon S3 (${o.region})`;
    this.#prefix = o.prefix ? checkPrefix(o.prefix) : '';
    this.#partBytes = Math.max(5 * 1024 * 1024, o.partBytes ?? PART_BYTES);
  }

  #key(key: string): string {
    return this.#prefix + checkKey(key);
  }

  async putFile(key: string, file: string): Promise<void> {
    const Key = this.#key(key);
    const { size } = await stat(file);
    if (size <= this.#partBytes) {
      await this.#call('store', key, () => this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: createReadStream(file), ContentLength: size })));
    } else {
      await this.#multipart(key, Key, file, size);
    }
    await unlink(file);
  }

  async #multipart(key: string, Key: string, file: string, size: number): Promise<void> {
    const partBytes = Math.max(this.#partBytes, Math.ceil(size / MAX_PARTS));
    const { UploadId } = await this.#call('store', key, () => this.#s3.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key })));
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let start = 0, n = 1; start < size; start += partBytes, n++) {
        const end = Math.min(size, start + partBytes);
        const r = await this.#call('store', key, () =>
          this.#s3.send(
            new UploadPartCommand({
              Bucket: this.#bucket,
              Key,
              UploadId,
              PartNumber: n,
              Body: createReadStream(file, { start, end: end - 1 }),
              ContentLength: end - start,
            }),
          ),
        );
        parts.push({ ETag: r.ETag!, PartNumber: n });
      }
      await this.#call('store', key, () =>
        this.#s3.send(new CompleteMultipartUploadCommand({ Bucket: this.#bucket, Key, UploadId, MultipartUpload: { Parts: parts } })),
      );
    } catch (err) {
      await this.#s3.send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key, UploadId })).catch(() => undefined);
      throw err;
    }
  }

  async put(key: string, data: Uint8Array | string): Promise<void> {
    const Key = this.#key(key);
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    await this.#call('store', key, () => this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: body, ContentLength: body.byteLength })));
  }

  async get(key: string): Promise<Buffer | undefined> {
    const r = await this.#getObject(key);
    if (!r) return undefined;
    return Buffer.from(await r.body.transformToByteArray());
  }

  async open(key: string): Promise<{ stream: Readable; size: number } | undefined> {
    const r = await this.#getObject(key);
    return r && { stream: r.body as unknown as Readable, size: r.size };
  }

  async localCopy(key: string, tmpDir: string): Promise<LocalCopy> {
    const r = await this.#getObject(key);
    if (!r) throw voxdexError('NOT_FOUND', `The stored file ${key} is missing`);
    mkdirSync(tmpDir, { recursive: true });
    const file = path.join(tmpDir, `${randomUUID()}-${path.posix.basename(key)}`);
    try {
      await pipeline(r.body as unknown as Readable, createWriteStream(file));
    } catch (err) {
      await rm(file, { force: true });
      throw unavailable('read', key, err);
    }
    return { path: file, release: () => rm(file, { force: true }) };
  }

  async delete(key: string): Promise<void> {
    const Key = this.#key(key);
    await this.#call('delete', key, () => this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const keys = (await this.list(prefix)).map((b) => b.key);
      if (keys.length === 0) return;
      for (let i = 0; i < keys.length; i += 1000) {
        const Objects = keys.slice(i, i + 1000).map((k) => ({ Key: this.#key(k) }));
        await this.#call('delete', prefix, () => this.#s3.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects, Quiet: true } })));
      }
    }
  }

  async list(prefix: string): Promise<BlobInfo[]> {
    const Prefix = this.#prefix + checkPrefix(prefix);
    const out: BlobInfo[] = [];
    let ContinuationToken: string | undefined;
    do {
      const r = await this.#call('list', prefix, () => this.#s3.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix, ContinuationToken })));
      for (const o of r.Contents ?? []) {
        out.push({ key: o.Key!.slice(this.#prefix.length), size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) });
      }
      ContinuationToken = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * Start-up check: the bucket exists (HeadBucket) and takes writes (a tiny object put and deleted
   * again), else STORAGE_UNAVAILABLE saying what is wrong and how to fix it, so that a node with a
   * missing or read-only bucket refuses to start instead of failing each upload.
   */
  async checkBucket(): Promise<void> {
    const bucket = this.#bucket;
    try {
      await this.#s3.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (isNotFound(err) || (err as { name?: string }).name === 'NoSuchBucket') {
        throw voxdexError(
          'STORAGE_UNAVAILABLE',
          `The bucket ${bucket} does not exist at ${this.#where}: create it (MinIO: mc mb ALIAS/${bucket}; AWS: aws s3 mb s3://${bucket}) or set VOXDEX_S3_BUCKET to one that exists, then start again.`,
          err,
        );
      }
      if (status === 403) {
        throw voxdexError('STORAGE_UNAVAILABLE', `The credentials may not use the bucket ${bucket} at ${this.#where} (HTTP 403): check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and the bucket's policy.`, err);
      }
      throw unavailable('reach the bucket', bucket, err);
    }
    const probe = `.voxdex-write-check/${randomUUID()}`;
    try {
      await this.#s3.send(new PutObjectCommand({ Bucket: bucket, Key: this.#key(probe), Body: Buffer.from('ok'), ContentLength: 2 }));
      await this.#s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: this.#key(probe) }));
    } catch (err) {
      const e = err as { name?: string; message?: string };
      throw voxdexError(
        'STORAGE_UNAVAILABLE',
        `The bucket ${bucket} at ${this.#where} exists but does not take writes (${e.name ?? 'Error'}: ${e.message ?? String(err)}): give these credentials s3:PutObject and s3:DeleteObject on it.`,
        err,
      );
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.#s3.send(new HeadBucketCommand({ Bucket: this.#bucket }));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#s3.destroy();
  }

  async #getObject(key: string) {
    const Key = this.#key(key);
    try {
      const r = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key }));
      return { body: r.Body!, size: r.ContentLength ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw unavailable('read', key, err);
    }
  }

  async #call<T>(what: string, key: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw unavailable(what, key, err);
    }
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

function unavailable(what: string, key: string, err: unknown) {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode ? ` (HTTP ${e.$metadata.httpStatusCode})` : '';
  return voxdexError('STORAGE_UNAVAILABLE', `Object storage could not ${what} ${key}: ${e.name ?? 'Error'}: ${e.message ?? String(err)}${status}`, err);
}
