/**
 * End to end: the real service (createService) watching a real drop folder. A real telephone prompt
 * (asterisk-core-sounds-en-wav) with a sidecar becomes a queued job in the job store; a file for an
 * unknown folder goes to .failed with the service's NOT_FOUND.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createService, type Service } from '../../src/service.js';
import { openSqlite } from '../../src/store/sqlite/sqlite.js';
import { jobStorePath } from '../../src/store/sqlite/sqlite-job-store.js';

const PROMPT = '/usr/share/asterisk/sounds/en_US_f_Allison/agent-loginok.wav';
const e2e = suite('e2e: drop folder through the service');

let root: string;
let service: Service | undefined;

async function until(pred: () => boolean, ms = 30_000): Promise<void> {
  const start = Date.now();
  while (!pred()) {
    if (Date.now() - start > ms) throw new Error(`timed out; drop tree: ${JSON.stringify(tree(path.join(root, 'drop')))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

e2e.before.each(() => {
  root = mkdtempSync(path.join(tmpdir(), 'voxdex-e2e-drop-'));
});
e2e.after.each(async () => {
  await service?.close();
  service = undefined;
  rmSync(root, { recursive: true, force: true });
});

e2e('a dropped recording with a sidecar becomes one job; an unknown folder fails with NOT_FOUND', async () => {
  const config = loadConfig({
    VOXDEX_DATA_DIR: path.join(root, 'data'),
    VOXDEX_DROP_DIR: path.join(root, 'drop'),
    VOXDEX_DROP_STABLE_MS: '200',
    VOXDEX_LOG_LEVEL: 'silent',
    VOXDEX_ASR_THREADS: '1',
    VOXDEX_SHUTDOWN_GRACE_MS: '500',
    VOXDEX_PORT: '0',
  });
  service = await createService(config, { log: createLogger({ logLevel: (process.env.E2E_LEVEL as 'debug') ?? 'silent' }), listen: false });
  await service.tenancy.change((t) => t.addCompany('acme', { org: 'sales', folder: 'calls' }));
  const folder = path.join(root, 'drop', 'acme', 'sales', 'calls');
  const unknown = path.join(root, 'drop', 'acme', 'sales', 'nope');
  mkdirSync(folder, { recursive: true });
  mkdirSync(unknown, { recursive: true });

  writeFileSync(path.join(folder, 'call-0001.json'), JSON.stringify({ agent: 'Ana' }));
  copyFileSync(PROMPT, path.join(folder, 'call-0001.wav.part'));
  const { renameSync } = await import('node:fs');
  renameSync(path.join(folder, 'call-0001.wav.part'), path.join(folder, 'call-0001.wav'));
  copyFileSync(PROMPT, path.join(unknown, 'other.wav'));

  await until(() => existsSync(path.join(folder, '.done', 'call-0001.json')) && existsSync(path.join(unknown, '.failed', 'other.wav.error.json')));
  const db = openSqlite(jobStorePath(service.config.dataDir), 'FULL'); // the SQLite file itself, as an operator would read it
  const jobs = db.prepare('SELECT id, source, company, org, folder, metadata FROM jobs').all() as Record<string, string>[];
  db.close();
  assert.is(jobs.length, 1);
  assert.equal({ ...jobs[0], id: undefined }, { id: undefined, source: 'call-0001.wav', company: 'acme', org: 'sales', folder: 'calls', metadata: '{"agent":"Ana"}' });
  assert.equal(readdirSync(path.join(folder, '.done')).sort(), ['call-0001.json', 'call-0001.wav']);
  const err = JSON.parse(readFileSync(path.join(unknown, '.failed', 'other.wav.error.json'), 'utf8'));
  assert.is(err.code, 'NOT_FOUND');
  assert.ok(readFileSync(path.join(folder, '.done', 'call-0001.wav')).equals(readFileSync(PROMPT)), 'moved intact, nothing deleted');
});

e2e.run();
