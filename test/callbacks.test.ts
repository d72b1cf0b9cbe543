import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { backoffDelay, nextDelay, parseRetryAfter, retrySchedule, shouldRetry } from '../src/callbacks/backoff.js';
import { buildMultipart } from '../src/callbacks/multipart-body.js';
import { computeSignature, signatureHeader, verifySignature } from '../src/callbacks/signature.js';
import { checkCallbackUrl, embeddedIpv4, isForbiddenAddress, resolveCallbackUrl } from '../src/callbacks/url-guard.js';
import { VoxdexError } from '../src/errors.js';

const policy = suite('callbacks: retry policy');
const opts = { baseDelayMs: 30_000, maxDelayMs: 8 * 3_600_000, jitter: 0.2 };

policy('publishes the default schedule: 10 attempts spread over about 24 hours', () => {
  const s = retrySchedule(10, opts);
  assert.equal(s, [30_000, 90_000, 270_000, 810_000, 2_430_000, 7_290_000, 21_870_000, 28_800_000, 28_800_000]);
  const totalH = s.reduce((a, b) => a + b, 0) / 3_600_000;
  assert.ok(totalH > 24 && totalH < 26, `total ${totalH} h`);
});

policy('backoff grows exponentially, is capped, and jitter only shortens the wait', () => {
  assert.is(backoffDelay(1, opts, () => 0), 30_000);
  assert.is(backoffDelay(1, opts, () => 1), 24_000);
  assert.is(backoffDelay(2, opts, () => 0.5), 81_000);
  assert.is(backoffDelay(50, opts, () => 0), 28_800_000);
  assert.is(backoffDelay(5000, opts, () => 0), 28_800_000);
  for (let i = 0; i < 100; i++) {
    const d = backoffDelay(3, opts);
    assert.ok(d >= 216_000 && d <= 270_000, String(d));
  }
});

policy('one function decides: 5xx, 401, 403, 404, 408, 409, 425, 429 and network errors retry; other 4xx and refused targets stop', () => {
  const r = (status: number) => shouldRetry({ type: 'response', status });
  assert.equal([500, 502, 503, 301, 401, 403, 404, 408, 409, 425, 429].map(r), [true, true, true, true, true, true, true, true, true, true, true]);
  assert.equal([400, 405, 410, 413, 415, 422].map(r), [false, false, false, false, false, false]);
  assert.is(r(200), false);
  assert.is(shouldRetry({ type: 'network', code: 'RESPONSE_TIMEOUT', message: 'x' }), true);
  assert.is(shouldRetry({ type: 'refused', message: 'metadata' }), false);
  assert.is(shouldRetry({ type: 'response', status: 500 }, 9, 10), true);
  assert.is(shouldRetry({ type: 'response', status: 500 }, 10, 10), false);
});

policy('Retry-After lengthens the wait when reasonable and is ignored when absurd', () => {
  const small = { baseDelayMs: 100, maxDelayMs: 10_000, jitter: 0 };
  assert.is(parseRetryAfter('3', 0), 3000);
  assert.is(parseRetryAfter(new Date(60_000).toUTCString(), 0), 60_000);
  assert.is(parseRetryAfter('soon', 0), undefined);
  assert.is(nextDelay({ type: 'response', status: 429, retryAfterMs: 3000 }, 1, small), 3000);
  assert.is(nextDelay({ type: 'response', status: 429, retryAfterMs: 50 }, 1, small), 100);
  assert.is(nextDelay({ type: 'response', status: 503, retryAfterMs: 86_400_000 }, 1, small), 100);
});

const sig = suite('callbacks: signature');

sig('verifies a signature over the exact bytes and rejects any change', () => {
  const body = Buffer.from('--b\r\nhello\r\n--b--\r\n');
  const h = signatureHeader(body, 'sekrit', 1_700_000_000);
  assert.is(h, `t=1700000000,v1=${computeSignature(body, 'sekrit', 1_700_000_000)}`);
  assert.match(h, /^t=1700000000,v1=[0-9a-f]{64}$/);
  assert.ok(verifySignature(h, body, 'sekrit', 300, 1_700_000_100));
  assert.not.ok(verifySignature(h, Buffer.from('--b\r\nhellO\r\n--b--\r\n'), 'sekrit', 300, 1_700_000_100));
  assert.not.ok(verifySignature(h, body, 'other', 300, 1_700_000_100));
  assert.not.ok(verifySignature(h, body, 'sekrit', 300, 1_700_000_301), 'too old: replay');
  assert.not.ok(verifySignature('t=abc,v1=zz', body, 'sekrit'));
  assert.not.ok(verifySignature(undefined, body, 'sekrit'));
});

sig('matches an independent HMAC computation of "<t>.<body>"', async () => {
  const { createHmac } = await import('node:crypto');
  const body = Buffer.from([0, 1, 2, 255]);
  const expected = createHmac('sha256', 'k').update(Buffer.concat([Buffer.from('42.'), body])).digest('hex');
  assert.is(computeSignature(body, 'k', 42), expected);
});

const mp = suite('callbacks: multipart body');

mp('builds a body a standard multipart parser reads back byte for byte', async () => {
  const data = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x0d, 0x0a, 0x2d, 0x2d, 0x00, 0xff]);
  const { body, contentType } = buildMultipart({ requestid: 'r-1' }, { name: 'file', filename: 'r-1.zip', contentType: 'application/zip', data }, 'voxdex-fixed');
  assert.is(contentType, 'multipart/form-data; boundary=voxdex-fixed');
  const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  assert.is(form.get('requestid'), 'r-1');
  const file = form.get('file') as File;
  assert.is(file.name, 'r-1.zip');
  assert.is(file.type, 'application/zip');
  assert.equal(Buffer.from(await file.arrayBuffer()), data);
});

const guard = suite('callbacks: URL guard');

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof VoxdexError ? `${err.code}: ${err.message}` : String(err);
  }
}

guard('allows http(s), loopback and private receivers', () => {
  for (const u of ['https://hooks.example.com/voxdex', 'http://127.0.0.1:9000/cb', 'http://localhost/cb', 'http://10.1.2.3/cb', 'http://[::1]:8080/x']) {
    assert.is(checkCallbackUrl(u).href.length > 0, true, u);
  }
});

guard('refuses other schemes, link-local and cloud metadata targets with BAD_CALLBACK_URL', () => {
  assert.is(code(() => checkCallbackUrl('ftp://example.com/x')), 'BAD_CALLBACK_URL: Callback URL "ftp://example.com/x" uses ftp; only http and https are allowed');
  assert.is(code(() => checkCallbackUrl('not a url')), 'BAD_CALLBACK_URL: Callback URL "not a url" is not a valid URL; send an absolute http:// or https:// URL');
  assert.is(
    code(() => checkCallbackUrl('http://169.254.169.254/latest/meta-data/')),
    'BAD_CALLBACK_URL: Callback URL "http://169.254.169.254/latest/meta-data/" points at a link-local, metadata or non-unicast address; use a routable receiver address',
  );
  assert.is(
    code(() => checkCallbackUrl('http://metadata.google.internal/computeMetadata/v1/')),
    'BAD_CALLBACK_URL: Callback URL "http://metadata.google.internal/computeMetadata/v1/" points at a cloud metadata service; use a receiver you control',
  );
  for (const u of ['http://100.100.100.200/', 'http://[fd00:ec2::254]/', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/', 'http://0.0.0.0:80/', 'http://METADATA.GOOGLE.INTERNAL./']) {
    assert.match(code(() => checkCallbackUrl(u)) ?? 'allowed', /^BAD_CALLBACK_URL/, u);
  }
  assert.ok(isForbiddenAddress('169.254.0.1') && isForbiddenAddress('fe80::abcd') && !isForbiddenAddress('127.0.0.1') && !isForbiddenAddress('192.168.1.1'));
});

guard('IPv6 spellings of a forbidden IPv4 address are refused: mapped, compatible, NAT64, 6to4, Teredo (issue 21.8)', () => {
  for (const u of [
    'http://[::a9fe:a9fe]/', 'http://[::169.254.169.254]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b::169.254.169.254]/',
    'http://[64:ff9b:1::a9fe:a9fe]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::ffff:0:a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::1]/',
    'http://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'http://[0:0:0:0:0:0:a9fe:a9fe]/', 'http://[64:ff9b::6464:64c8]/',
  ]) {
    assert.is(code(() => checkCallbackUrl(u)), `BAD_CALLBACK_URL: Callback URL ${JSON.stringify(u)} points at a link-local, metadata or non-unicast address; use a routable receiver address`, u);
  }
  assert.is(embeddedIpv4('64:ff9b::a9fe:a9fe'), '169.254.169.254');
  assert.is(embeddedIpv4('2001:0:4136:e378:8000:63bf:5601:5601'), '169.254.169.254');
  assert.is(embeddedIpv4('::1'), undefined);
  assert.is(embeddedIpv4('2001:db8::1'), undefined);
  // Routable IPv4 addresses inside IPv6 stay allowed, as does IPv6 loopback.
  for (const u of ['http://[::ffff:10.1.2.3]/', 'http://[64:ff9b::808:808]/', 'http://[::1]/', 'http://[2001:db8::a9fe:a9fe]/']) assert.is(code(() => checkCallbackUrl(u)), undefined, u);
});

guard('resolves names at check time and lets a loopback name through', async () => {
  assert.is((await resolveCallbackUrl('http://localhost:1/cb')).hostname, 'localhost');
  try {
    await resolveCallbackUrl('http://169.254.169.254/');
    assert.unreachable();
  } catch (err) {
    assert.is((err as VoxdexError).code, 'BAD_CALLBACK_URL');
  }
});

policy.run();
sig.run();
mp.run();
guard.run();
