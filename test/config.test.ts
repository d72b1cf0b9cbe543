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

config('VOXDEX_PUBLIC_URL: an http(s) origin with an optional path prefix, trailing slash dropped; anything else refused (issue 21.12)', () => {
  assert.is(loadConfig({}).publicUrl, undefined);
  assert.is(loadConfig({ VOXDEX_PUBLIC_URL: 'https://voxdex.example.org/' }).publicUrl, 'https://voxdex.example.org');
  assert.is(loadConfig({ VOXDEX_PUBLIC_URL: 'https://proxy.example.org/voxdex/' }).publicUrl, 'https://proxy.example.org/voxdex');
  for (const bad of ['voxdex.example.org', 'ftp://x.example', 'https://u:p@x.example', 'https://x.example/?a=1', 'https://x.example/#f']) {
    assert.throws(() => loadConfig({ VOXDEX_PUBLIC_URL: bad }), /for VOXDEX_PUBLIC_URL but received/, bad);
  }
});

const DISTRIBUTED = {
  VOXDEX_DATABASE_URL: 'postgres://voxdex:pw@db.internal:5432/voxdex',
  VOXDEX_S3_URL: 'https://s3.eu-west-1.amazonaws.com/',
  VOXDEX_S3_BUCKET: 'calls-acme',
  VOXDEX_ES_URL: 'http://es.internal:9200',
};

config('the embedded stores are the zero-config default: role all, no database, no object storage', () => {
  const c = loadConfig({});
  assert.equal([c.role, c.databaseUrl, c.s3, c.leaseMs], ['all', undefined, undefined, 30_000]);
});

config('reads the distributed settings: database, S3 with the standard AWS variables, role, lease', () => {
  const c = loadConfig({ ...DISTRIBUTED, VOXDEX_ROLE: 'worker', VOXDEX_S3_PREFIX: 'voxdex/', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 's3cret', VOXDEX_LEASE_SEC: '10' });
  assert.equal([c.role, c.databaseUrl, c.leaseMs], ['worker', DISTRIBUTED.VOXDEX_DATABASE_URL, 10_000]);
  assert.equal(c.s3, { url: 'https://s3.eu-west-1.amazonaws.com', bucket: 'calls-acme', prefix: 'voxdex/', region: 'eu-west-1', credentials: { accessKeyId: 'AKIA1', secretAccessKey: 's3cret' } });
  assert.equal(loadConfig(DISTRIBUTED).s3?.credentials, undefined, 'no keys: the AWS SDK’s default chain (instance roles)');
});

config('refuses a distributed setup that cannot work, naming what is missing', () => {
  const msg = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return 'accepted';
    } catch (err) {
      return (err as Error).message;
    }
  };
  assert.is(msg({ VOXDEX_ROLE: 'api' }), 'Expected a postgres:// URL (role api shares its jobs with other nodes; only role all runs on the embedded store) for VOXDEX_DATABASE_URL but received ""');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_S3_URL: '', VOXDEX_S3_BUCKET: '' }), 'Expected an http:// or https:// URL with VOXDEX_DATABASE_URL (every node must reach the uploads and results) for VOXDEX_S3_URL but received ""');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_ES_URL: '' }), 'Expected an http:// or https:// URL with VOXDEX_DATABASE_URL (every node must search the same transcripts) for VOXDEX_ES_URL but received ""');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_S3_BUCKET: '' }), 'Expected a bucket name with VOXDEX_S3_URL for VOXDEX_S3_BUCKET but received ""');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_S3_BUCKET: 'Calls_ACME' }), 'Expected an S3 bucket name (3-63 characters a-z 0-9 . -) for VOXDEX_S3_BUCKET but received "Calls_ACME"');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_S3_PREFIX: 'a/../b/' }), "Expected a key prefix such as voxdex/ (segments of A-Z a-z 0-9 _ . -, each ending with '/') for VOXDEX_S3_PREFIX but received \"a/../b/\"");
  assert.is(msg({ ...DISTRIBUTED, AWS_ACCESS_KEY_ID: 'AKIA1' }), 'Expected both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither for AWS_SECRET_ACCESS_KEY but received ""');
  assert.is(msg({ ...DISTRIBUTED, VOXDEX_DATABASE_URL: 'mysql://u:hunter2@h/db' }), 'Expected a postgres://user:password@host:port/database URL for VOXDEX_DATABASE_URL but received "mysql://u:***@h/db"');
  assert.is(msg({ VOXDEX_ROLE: 'boss' }), 'Expected one of all, api, worker for VOXDEX_ROLE but received "boss"');
});

config.run();
