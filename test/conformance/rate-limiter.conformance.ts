/**
 * The one conformance suite every rate limiter (src/rate-limit/limiter.ts) must pass: token buckets
 * per principal and per limit, `perMin` a minute sustained with bursts of up to `perMin`, check()
 * takes nothing, charge() may go below zero, perMin 0 disables. Usage, in a test file:
 *   rateLimiterConformance('memory', { open: (what, perMin) => new MemoryRateLimiter(perMin, what) })
 * `open` is called with a fresh limit name per test (`what` is the bucket's key in shared storage).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import type { Limiter } from '../../src/rate-limit/limiter.js';
import type { Principal } from '../../src/tenancy/tenancy.js';

export interface RateLimiterConformanceOptions {
  open: (what: string, perMin: number) => Limiter | Promise<Limiter>;
  before?: () => Promise<void>;
  after?: () => Promise<void>;
}

const acme: Principal = { kind: 'company', company: 'acme' };
const globex: Principal = { kind: 'company', company: 'globex' };
const root: Principal = { kind: 'root' };

/** What a refused call threw, as "CODE retryAfterSec: message" (or 'ok'). */
async function outcome(call: () => void | Promise<void>): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (err) {
    const e = err as { code?: string; retryAfterSec?: number; message: string };
    return `${e.code} ${e.retryAfterSec}: ${e.message}`;
  }
}

export function rateLimiterConformance(name: string, o: RateLimiterConformanceOptions): void {
  const s = suite(`rate-limiter: ${name}`);
  let what = '';
  s.before(async () => o.before?.());
  s.after(async () => o.after?.());
  s.before.each(() => {
    what = `POST /transcribe ${randomBytes(3).toString('hex')}`;
  });

  s('takes up to perMin at once, then refuses with RATE_LIMITED naming the principal, the limit and when to retry', async () => {
    const limiter = await o.open(what, 3);
    for (let i = 0; i < 3; i++) assert.is(await outcome(() => limiter.take(acme)), 'ok');
    const refused = await outcome(() => limiter.take(acme));
    assert.match(
      refused,
      new RegExp(`^RATE_LIMITED 20: Too many ${what} requests for company acme \\(limit 3 per minute\\); retry in 20 seconds \\(after \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) or ask the operator to raise VOXDEX_RATE_LIMIT_PER_MIN$`),
    );
    assert.match(await outcome(() => limiter.check(acme)), /^RATE_LIMITED 20: /);
  });

  s('keeps one bucket per principal and per limit; the root token has its own', async () => {
    const limiter = await o.open(what, 1);
    const other = await o.open(`${what} other`, 1);
    assert.is(await outcome(() => limiter.take(acme)), 'ok');
    assert.match(await outcome(() => limiter.take(acme)), /^RATE_LIMITED /);
    assert.is(await outcome(() => limiter.take(globex)), 'ok');
    assert.is(await outcome(() => limiter.take(root)), 'ok');
    assert.match(await outcome(() => limiter.take(root)), /^RATE_LIMITED 60: Too many .* requests for the root token \(limit 1 per minute\); retry in 60 seconds /);
    assert.is(await outcome(() => other.take(acme)), 'ok');
  });

  s('check takes nothing; charge counts an accepted request and may take the bucket below zero', async () => {
    const limiter = await o.open(what, 2);
    for (let i = 0; i < 5; i++) assert.is(await outcome(() => limiter.check(acme)), 'ok');
    for (let i = 0; i < 4; i++) await limiter.charge(acme);
    // Two below zero: a whole request's worth plus the two owed must come back first.
    assert.match(await outcome(() => limiter.check(acme)), /^RATE_LIMITED 90: .*retry in 90 seconds/);
  });

  s('refills at perMin a minute', async () => {
    const limiter = await o.open(what, 120); // one token per 500 ms
    let charged = 0;
    while (charged < 1000 && (await outcome(() => limiter.check(acme))) === 'ok') {
      await limiter.charge(acme);
      charged++;
    }
    assert.ok(charged >= 120, `refused after ${charged} of a burst of 120`);
    assert.match(await outcome(() => limiter.check(acme)), /^RATE_LIMITED 1: /);
    await new Promise((r) => setTimeout(r, 600));
    assert.is(await outcome(() => limiter.take(acme)), 'ok');
  });

  s('perMin 0 never refuses', async () => {
    const limiter = await o.open(what, 0);
    for (let i = 0; i < 50; i++) {
      await limiter.take(acme);
      await limiter.charge(acme);
    }
    assert.is(await outcome(() => limiter.check(acme)), 'ok');
  });

  s.run();
}
