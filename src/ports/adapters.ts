/**
 * The adapters that follow the configuration in either mode: the blob store (the data dir, or S3
 * with VOXDEX_S3_URL) with its sweep for uploads never acknowledged, and the transcript index
 * (SQLite in the data dir, or Elasticsearch with VOXDEX_ES_URL).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../blobs/blob-store.js';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { S3BlobStore } from '../blobs/s3-blob-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { elasticsearchIndexFromConfig } from '../search/elasticsearch-index.js';
import { SqliteTranscriptIndex } from '../search/sqlite-index.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { JobStore } from '../store/job-store.js';
import { JobPaths } from '../store/paths.js';

interface OpenedBlobs {
  blobs: BlobStore;
  /** Removes the uploads a process stored but died before acknowledging (no job row). */
  removeUnacknowledged(store: JobStore, log: Logger): Promise<void>;
}

/**
 * The blob store of `config`. S3: the bucket must exist and take writes, else the node refuses to
 * start (S3BlobStore.checkBucket says how to create it).
 */
export async function openBlobStore(config: Readonly<Config>): Promise<OpenedBlobs> {
  const s3 = config.s3;
  if (!s3) {
    const paths = new JobPaths(config.dataDir);
    return { blobs: new LocalBlobStore(config.dataDir), removeUnacknowledged: (store, log) => removeOrphanJobDirs(paths, store, log) };
  }
  const blobs = new S3BlobStore({ endpoint: s3.url, region: s3.region, bucket: s3.bucket, prefix: s3.prefix, credentials: s3.credentials });
  try {
    await blobs.checkBucket();
  } catch (err) {
    await blobs.close();
    throw err;
  }
  // In the background: listing object storage may take a while, and a failure is only logged.
  return { blobs, removeUnacknowledged: async (store, log) => void removeOrphanUploads(blobs, store, log) };
}

/** The transcript index of `config`, constructed (init() opens it). */
export function openIndex(config: Readonly<Config>): TranscriptIndex {
  return config.esUrl ? elasticsearchIndexFromConfig(config) : new SqliteTranscriptIndex({ file: path.join(config.dataDir, 'search.sqlite') });
}

/**
 * Removes `uploads/<id>-<name>` files and `jobs/<id>` folders that have no job row: uploads moved into place by a process that died
 * before committing the row, i.e. never acknowledged. Only folders older than a minute, so that a
 * concurrent `voxdex import` between its move and its commit is left alone.
 */
async function removeOrphanJobDirs(paths: JobPaths, store: JobStore, log: Logger): Promise<void> {
  const cutoff = Date.now() - 60_000;
  for (const name of safeReaddir(paths.uploads)) {
    const file = path.join(paths.uploads, name);
    if (statSync(file).mtimeMs > cutoff || (await store.get(name.slice(0, 36)))) continue;
    rmSync(file, { force: true });
    log.info({ file }, 'removed an upload that was never acknowledged');
  }
  for (const id of safeReaddir(paths.jobsDir)) {
    const dir = paths.job(id);
    if (statSync(dir).mtimeMs > cutoff || (await store.get(id))) continue;
    rmSync(dir, { recursive: true, force: true });
    log.info({ dir }, 'removed an upload that was never acknowledged');
  }
}

/**
 * Object storage: uploads of the last two days (keys uploads/<date>/…) older than a minute that have no
 * job row — stored by an API node that died before committing, never acknowledged — are removed.
 * A failure is only logged.
 */
async function removeOrphanUploads(blobs: BlobStore, store: JobStore, log: Logger): Promise<void> {
  try {
    const cutoff = Date.now() - 60_000;
    for (const daysAgo of [1, 0]) {
      const day = new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
      for (const b of await blobs.list(`uploads/${day}/`)) {
        const id = b.key.slice(`uploads/${day}/`.length, `uploads/${day}/`.length + 36);
        if (b.modified.getTime() > cutoff || (await store.get(id))) continue;
        await blobs.delete(b.key);
        log.info({ key: b.key }, 'removed an upload that was never acknowledged');
      }
    }
  } catch (err) {
    log.warn({ err }, 'looking for uploads that were never acknowledged failed');
  }
}

export function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
