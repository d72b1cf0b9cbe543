/**
 * The BlobStore conformance suite, run against the local directory adapter and against a real S3
 * server (MinIO started by scripts/minio.sh: VOXDEX_TEST_S3_URL, VOXDEX_TEST_S3_BUCKET and the AWS_*
 * credentials; `bash scripts/test.sh` starts it). Each S3 run works under its own key prefix and
 * removes it afterwards.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../src/blobs/blob-store.js';
import { LocalBlobStore } from '../../src/blobs/local-blob-store.js';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.js';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createService } from '../../src/service.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function conformance(name: string, open: () => BlobStore, cleanup: (store: BlobStore) => Promise<void>) {
  const s = suite(`blob-store: ${name}`);
  let store: BlobStore;
  let tmp = '';
  s.before.each(() => {
    store = open();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'vx-blob-'));
  });
  s.after.each(async () => {
    await cleanup(store);
    await store.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  s('writes, reads back and replaces an object; a missing key reads as undefined', async () => {
    await store.put('jobs/a/transcripts/0.json', '{"words":[]}');
    assert.equal((await store.get('jobs/a/transcripts/0.json'))?.toString(), '{"words":[]}');
    await store.put('jobs/a/transcripts/0.json', Buffer.from([1, 2, 3]));
    assert.equal([...(await store.get('jobs/a/transcripts/0.json'))!], [1, 2, 3]);
    assert.is(await store.get('jobs/a/transcripts/1.json'), undefined);
    assert.is(await store.get('jobs/missing/result.json'), undefined);
  });

  s('takes over a received file: the bytes are stored under the key and the local file is gone', async () => {
    const file = path.join(tmp, 'incoming-call.wav');
    const bytes = randomBytes(200_000);
    writeFileSync(file, bytes);
    await store.putFile('uploads/0001-call 7.wav', file);
    assert.is(existsSync(file), false);
    assert.ok(bytes.equals((await store.get('uploads/0001-call 7.wav'))!));
  });

  s('stores a file larger than one part whole (S3: as a multipart upload)', async () => {
    const file = path.join(tmp, 'big.wav');
    const bytes = randomBytes(11 * 1024 * 1024 + 17);
    writeFileSync(file, bytes);
    await store.putFile('uploads/0002-big.wav', file);
    const opened = (await store.open('uploads/0002-big.wav'))!;
    assert.is(opened.size, bytes.length);
    assert.ok(bytes.equals(await readAll(opened.stream)));
  });

  s('opens a stream with the size, and undefined for a missing key', async () => {
    await store.put('jobs/b/result.txt', 'hello world\n');
    const o = (await store.open('jobs/b/result.txt'))!;
    assert.is(o.size, 12);
    assert.is((await readAll(o.stream)).toString(), 'hello world\n');
    assert.is(await store.open('jobs/b/result.json'), undefined);
  });

  s('gives a local file with the bytes; releasing it never removes the object; a missing key is NOT_FOUND', async () => {
    await store.put('uploads/0003-x.zip', 'PK-bytes');
    const copy = await store.localCopy('uploads/0003-x.zip', path.join(tmp, 'work'));
    assert.is(readFileSync(copy.path, 'utf8'), 'PK-bytes');
    await copy.release();
    assert.is((await store.get('uploads/0003-x.zip'))?.toString(), 'PK-bytes');
    try {
      await store.localCopy('uploads/0004-none.zip', path.join(tmp, 'work'));
      assert.unreachable('a missing key has no local copy');
    } catch (err) {
      assert.is((err as { code?: string }).code, 'NOT_FOUND');
      assert.is((err as Error).message, 'The stored file uploads/0004-none.zip is missing');
    }
  });

  s('lists by prefix in key order with sizes; a prefix is a folder (jobs/a/ does not list jobs/ab/)', async () => {
    await store.put('jobs/a/transcripts/1.json', 'bb');
    await store.put('jobs/a/result.json', 'a');
    await store.put('jobs/a/transcripts/0.json', 'ccc');
    await store.put('jobs/ab/result.json', 'dddd');
    const listed = await store.list('jobs/a/');
    assert.equal(
      listed.map((b) => [b.key, b.size]),
      [
        ['jobs/a/result.json', 1],
        ['jobs/a/transcripts/0.json', 3],
        ['jobs/a/transcripts/1.json', 2],
      ],
    );
    assert.ok(listed.every((b) => Math.abs(b.modified.getTime() - Date.now()) < 120_000));
    assert.equal(await store.list('jobs/none/'), []);
  });

  s('deletes one object (twice is fine) and a whole prefix, leaving its neighbours', async () => {
    await store.put('jobs/c/result.json', '1');
    await store.put('jobs/c/transcripts/0.json', '2');
    await store.put('jobs/cd/result.json', '3');
    await store.put('uploads/0005-c.wav', '4');
    await store.delete('uploads/0005-c.wav');
    await store.delete('uploads/0005-c.wav');
    assert.is(await store.get('uploads/0005-c.wav'), undefined);
    await store.deletePrefix('jobs/c/');
    assert.equal(await store.list('jobs/c/'), []);
    assert.is((await store.get('jobs/cd/result.json'))?.toString(), '3');
  });

  s('refuses keys that could escape or alias (.., empty segments, empty key)', async () => {
    for (const key of ['a/../b', 'a//b', '', 'jobs/./x', 'x/']) {
      try {
        await store.put(key, 'x');
        assert.unreachable(`key ${JSON.stringify(key)} was accepted`);
      } catch (err) {
        assert.is((err as Error).message, `invalid blob key ${JSON.stringify(key)}`);
      }
    }
  });

  s('answers ping', async () => {
    assert.is(await store.ping(), true);
  });

  s.run();
}

let localRoot = '';
conformance(
  'local directory',
  () => {
    localRoot = mkdtempSync(path.join(os.tmpdir(), 'vx-blob-root-'));
    return new LocalBlobStore(localRoot);
  },
  async () => rmSync(localRoot, { recursive: true, force: true }),
);

const s3Url = process.env.VOXDEX_TEST_S3_URL;
if (!s3Url) {
  const missing = suite('blob-store: s3');
  missing('needs a real S3 server: run the suite with bash scripts/test.sh (it starts MinIO via scripts/minio.sh)', () => {
    assert.unreachable('VOXDEX_TEST_S3_URL is not set');
  });
  missing.run();
} else {
  let prefix = '';
  conformance(
    'S3 (MinIO)',
    () => {
      prefix = `vxtest-${randomUUID()}/`;
      return new S3BlobStore({
        endpoint: s3Url,
        region: process.env.AWS_REGION ?? 'us-east-1',
        bucket: process.env.VOXDEX_TEST_S3_BUCKET ?? 'voxdex-test',
        prefix,
        credentials: { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '' },
        partBytes: 5 * 1024 * 1024,
      });
    },
    async (store) => {
      for (const p of ['jobs/', 'uploads/']) await store.deletePrefix(p);
    },
  );

  const errs = suite('blob-store: S3 errors');
  errs('an unreachable S3 server is STORAGE_UNAVAILABLE (503, retryable) naming the key, without the credentials', async () => {
    const store = new S3BlobStore({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      bucket: 'b',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret-value' },
    });
    try {
      await store.put('jobs/x/result.json', '{}');
      assert.unreachable('the put succeeded');
    } catch (err) {
      const e = err as { code?: string; status?: number; retryable?: boolean; message: string };
      assert.is(e.code, 'STORAGE_UNAVAILABLE');
      assert.is(e.status, 503);
      assert.is(e.retryable, true);
      assert.match(e.message, /^Object storage could not store jobs\/x\/result\.json: /);
      assert.not.match(e.message, /very-secret-value/);
    } finally {
      await store.close();
    }
    assert.is(await new S3BlobStore({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'b', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }).ping(), false);
  });
  errs('works with the frozen credentials loadConfig hands out', async () => {
    const store = new S3BlobStore({
      endpoint: s3Url,
      region: process.env.AWS_REGION ?? 'us-east-1',
      bucket: process.env.VOXDEX_TEST_S3_BUCKET ?? 'voxdex-test',
      credentials: Object.freeze({ accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '' }),
    });
    try {
      assert.is(await store.ping(), true);
    } finally {
      await store.close();
    }
  });
  errs('a node whose bucket is missing refuses to start, saying how to create the bucket; an existing one passes the write check and keeps nothing', async () => {
    const bucket = process.env.VOXDEX_TEST_S3_BUCKET ?? 'voxdex-test';
    const credentials = { accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '' };
    const prefix = `vxtest-${randomUUID()}/`;
    const good = new S3BlobStore({ endpoint: s3Url, region: 'us-east-1', bucket, prefix, credentials });
    try {
      await good.checkBucket();
      assert.equal(await good.list('.voxdex-write-check/'), []);
    } finally {
      await good.close();
    }
    const missing = `voxdex-missing-${randomBytes(4).toString('hex')}`;
    const expected = `The bucket ${missing} does not exist at ${s3Url}: create it (MinIO: mc mb ALIAS/${missing}; AWS: aws s3 mb s3://${missing}) or set VOXDEX_S3_BUCKET to one that exists, then start again.`;
    const data = mkdtempSync(path.join(os.tmpdir(), 'vx-nobucket-'));
    try {
      const config = loadConfig({
        VOXDEX_DATA_DIR: data,
        VOXDEX_PORT: '0',
        VOXDEX_S3_URL: s3Url,
        VOXDEX_S3_BUCKET: missing,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      });
      const started = await createService(config, { log: silentLogger, listen: false }).then(
        async (svc) => {
          await svc.close();
          return 'started';
        },
        (err: { code?: string; message: string }) => `${err.code}: ${err.message}`,
      );
      assert.is(started, `STORAGE_UNAVAILABLE: ${expected}`);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
  errs.run();
}
