import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { VoxdexError } from '../src/errors.js';

const config = suite('config');

config('applies the contract defaults with an empty environment', () => {
  const c = loadConfig({});
  assert.is(c.port, 8017);
  assert.is(c.host, '127.0.0.1');
  assert.is(c.dataDir, path.resolve('./data'));
  assert.is(c.rootTokenFile, path.join(path.resolve('./data'), 'root.token'));
  assert.is(c.dropDir, undefined);
  assert.is(c.esUrl, undefined);
  assert.is(c.maxUploadBytes, 250 * 1024 * 1024);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.archive));
});

config('reads the contract environment names', () => {
  const c = loadConfig({ VOXDEX_PORT: '9000', VOXDEX_HOST: '0.0.0.0', VOXDEX_DATA_DIR: '/tmp/vx', VOXDEX_DROP_DIR: '/tmp/drop', VOXDEX_ES_URL: 'http://127.0.0.1:9200/' });
  assert.is(c.port, 9000);
  assert.is(c.host, '0.0.0.0');
  assert.is(c.dataDir, '/tmp/vx');
  assert.is(c.dropDir, '/tmp/drop');
  assert.is(c.esUrl, 'http://127.0.0.1:9200');
});

config('rejects a bad value with a message naming the variable and what it expects', () => {
  try {
    loadConfig({ VOXDEX_PORT: '80a' });
    assert.unreachable('should throw');
  } catch (err) {
    assert.instance(err, VoxdexError);
    assert.is((err as VoxdexError).code, 'BAD_ARGUMENT');
    assert.is((err as Error).message, 'Expected an integer between 0 and 65535 for VOXDEX_PORT but received "80a"');
  }
  assert.throws(() => loadConfig({ VOXDEX_ES_URL: 'ftp://x' }), /Expected an http:\/\/ or https:\/\/ URL for VOXDEX_ES_URL/);
  assert.throws(() => loadConfig({ VOXDEX_LOG_LEVEL: 'loud' }), /one of fatal, error/);
});

config.run();
