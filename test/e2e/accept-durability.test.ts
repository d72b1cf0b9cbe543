/**
 * The accept path's durable writes (docs/service.md, "Accepting a request": requestid only once the upload and the job record are
 * on disk): the upload is fsynced, renamed into the flat uploads/ directory and that directory fsynced
 * — nothing else from JS (the job row is one SQLite WAL commit with synchronous=FULL). DELETE removes
 * the upload; an upload with no job row (the process died before the commit) is removed at start.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs, { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import type { Service } from '../../src/service.js';
import { makeCall, makeTempDir, removeDir } from '../fixtures/make-audio.js';
import { getJson, startInProcess, upload, waitResult } from './harness.js';

const ad = suite('e2e: accept durability');
let dir = '';
let dataDir = '';
let svc: Service | undefined;
let token = '';
let call = '';

ad.before(async () => {
  dir = makeTempDir('voxdex-accept-');
  dataDir = path.join(dir, 'data');
  svc = await startInProcess(dataDir, { VOXDEX_ASR_THREADS: '1' });
  token = (await svc.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }))).token;
  call = await makeCall(dir, { seconds: 1, encoding: 'mulaw', name: 'call.wav' });
});

ad.after(async () => {
  await svc?.close();
  removeDir(dir);
});

/** Records the path of every fsync made from JS (fs.fsyncSync and fs/promises FileHandle.sync) while `fn` runs. */
async function fsyncedPaths(fn: () => Promise<void>): Promise<string[]> {
  const { openSync, fsyncSync } = fs;
  const openAsync = fsp.open;
  const names = new Map<number, string>();
  const synced: string[] = [];
  fs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(p, ...rest);
    names.set(fd, String(p));
    return fd;
  }) as typeof fs.openSync;
  fs.fsyncSync = ((fd: number) => {
    synced.push(names.get(fd) ?? `fd ${fd}`);
    return fsyncSync(fd);
  }) as typeof fs.fsyncSync;
  fsp.open = (async (p: fs.PathLike, ...rest: unknown[]) => {
    const fh = await (openAsync as (...a: unknown[]) => Promise<fsp.FileHandle>)(p, ...rest);
    const sync = fh.sync.bind(fh);
    fh.sync = () => {
      synced.push(String(p));
      return sync();
    };
    return fh;
  }) as typeof fsp.open;
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    fs.openSync = openSync;
    fs.fsyncSync = fsyncSync;
    fsp.open = openAsync;
    syncBuiltinESMExports();
  }
  return synced;
}

ad('fsyncs an upload once and the uploads directory once before answering, and keeps it at uploads/<id>-<name>', async () => {
  const warm = await upload(svc!.url, { file: call, fields: { token } }); // the once-per-process fsyncs of the data dir
  assert.is((await waitResult(svc!.url, token, warm.body.requestid)).status, 200);
  let id = '';
  const synced = await fsyncedPaths(async () => {
    const r = await upload(svc!.url, { file: call, name: 'call 7.wav', fields: { token } });
    assert.is(r.status, 200);
    id = r.body.requestid;
  });
  const accept = synced.filter((p) => !p.startsWith(path.join(dataDir, 'jobs')));
  assert.is(accept.length, 2, JSON.stringify(synced));
  assert.match(accept[0]!, new RegExp(`^${path.join(dataDir, 'incoming')}/`));
  assert.is(accept[1], path.join(dataDir, 'uploads'));
  const stored = path.join(dataDir, 'uploads', `${id}-call 7.wav`);
  assert.ok(existsSync(stored), readdirSync(path.join(dataDir, 'uploads')).join(', '));
  assert.is((await svc!.store.get(id))!.uploadPath, `uploads/${id}-call 7.wav`, 'the job row names the upload by its blob key');
  assert.equal(readdirSync(path.join(dataDir, 'incoming')), []);

  assert.is((await waitResult(svc!.url, token, id)).status, 200);
  const del = await getJson(`${svc!.url}/transcribe/result?token=${token}&requestid=${id}`, { method: 'DELETE' });
  assert.is(del.status, 200);
  assert.is(existsSync(stored), false);
  assert.is(existsSync(path.join(dataDir, 'jobs', id)), false);
});

ad('removes at start an upload that has no job row (never acknowledged), and keeps acknowledged ones', async () => {
  const kept = await upload(svc!.url, { file: call, fields: { token } });
  assert.is((await waitResult(svc!.url, token, kept.body.requestid)).status, 200);
  await svc!.close();
  svc = undefined;
  const orphan = path.join(dataDir, 'uploads', '0b7f6c1e-3f2a-4d5b-9c8d-7e6f5a4b3c2d-lost.wav');
  writeFileSync(orphan, 'RIFF');
  const old = new Date(Date.now() - 120_000);
  utimesSync(orphan, old, old);
  svc = await startInProcess(dataDir, { VOXDEX_ASR_THREADS: '1' });
  assert.is(existsSync(orphan), false);
  assert.ok(existsSync(path.join(dataDir, (await svc.store.get(kept.body.requestid))!.uploadPath)));
  assert.is((await getJson(`${svc.url}/transcribe/result?token=${token}&requestid=${kept.body.requestid}`)).status, 200);
});

ad.run();
