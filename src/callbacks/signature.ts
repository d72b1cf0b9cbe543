/**
 * Callback signatures: `X-Voxdex-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
 * over the exact bytes of the request body. Receivers verify with `verifySignature` (or the same
 * few lines in their own language: see docs/callbacks.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Voxdex-Signature';

export function computeSignature(body: Uint8Array, secret: string, t: number): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/** The header value for `body` signed at unix time `t` (seconds). */
export function signatureHeader(body: Uint8Array, secret: string, t: number = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${computeSignature(body, secret, t)}`;
}

/**
 * True when `header` carries a v1 signature of `body` made with `secret` at a time within
 * `toleranceSec` of `nowSec` (replay protection). Several v1 entries are allowed (any may match).
 * Compares in constant time; never throws on a malformed header.
 */
export function verifySignature(
  header: string | undefined | null,
  body: Uint8Array,
  secret: string,
  toleranceSec = 300,
  nowSec: number = Math.floor(Date.now() / 1000),
): boolean {
  if (!header || !secret) return false;
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) return false;
  if (Math.abs(nowSec - t) > toleranceSec) return false;
  const expected = Buffer.from(computeSignature(body, secret, t), 'hex');
  return candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
}
