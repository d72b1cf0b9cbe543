/**
 * The install skip for onnxruntime-node's postinstall lives in scripts/install.sh's environment, not in
 * a project .npmrc: npm warns about an unknown project config key on every `npx voxdex` otherwise.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = suite('npm config');

npm('npx voxdex prints no npm warning about the project config', () => {
  const r = spawnSync('npx', ['--no-install', 'voxdex', 'models', '--help'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: voxdex models\n/);
  assert.not.match(r.stderr, /Unknown project config/);
  // No project .npmrc key that npm does not know (keys npm knows may come back later).
  if (existsSync(path.join(ROOT, '.npmrc'))) assert.not.match(readFileSync(path.join(ROOT, '.npmrc'), 'utf8'), /onnxruntime/);
});

npm('scripts/install.sh skips onnxruntime-node\'s download for npm ci through its environment', () => {
  assert.match(readFileSync(path.join(ROOT, 'scripts/install.sh'), 'utf8'), /^\s*ONNXRUNTIME_NODE_INSTALL=skip npm ci /m);
});

npm.run();
