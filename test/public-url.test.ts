import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isValidHost, linkOrigin } from '../src/http/public-url.js';
import type { Req } from '../src/http/server.js';

const pub = suite('public url');
const req = (headers: Record<string, string>) => ({ headers }) as unknown as Req;

pub('a Host header is a host name, IPv4 or bracketed IPv6, with an optional port 1-65535', () => {
  for (const ok of ['localhost', 'voxdex.example.org', 'voxdex.example.org:8017', '10.0.0.7:80', '[::1]', '[2001:db8::1]:443', 'a-b.c']) assert.ok(isValidHost(ok), ok);
  for (const bad of ['a"b<c>', '', 'a b', 'x:0', 'x:65536', 'x:', '[::1', '[zz]', '::1', '-a.b', 'a..b', 'a/b', 'a@b', `${'a'.repeat(64)}.b`]) assert.not.ok(isValidHost(bad), bad);
});

pub('links start with VOXDEX_PUBLIC_URL when set, whatever the Host; else with the validated Host', () => {
  assert.is(linkOrigin(req({ host: 'a"b<c>' }), 'https://voxdex.example.org/prefix'), 'https://voxdex.example.org/prefix');
  assert.is(linkOrigin(req({ host: 'voxdex.lan:8017', 'x-forwarded-proto': 'https' }), undefined), 'https://voxdex.lan:8017');
  assert.is(linkOrigin(req({}), undefined), 'http://localhost');
  assert.throws(() => linkOrigin(req({ host: 'a"b<c>' }), undefined), /^The Host header "a\\"b<c>" is not a host name or IP address with an optional port/);
});

pub.run();
