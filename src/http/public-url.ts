/**
 * The origin that links voxdex hands out (result and audio download links) start with: the configured
 * `VOXDEX_PUBLIC_URL` when set (behind a reverse proxy, the address clients use), else the request's own
 * `Host` header (with `https` when `X-Forwarded-Proto: https`), which must then be a host name, an IPv4
 * address or a bracketed IPv6 address, with an optional port: anything else is 400 and never reaches a link.
 */
import { isIP } from 'node:net';
import { voxdexError } from '../errors.js';
import type { Req } from './server.js';

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/** Is this a Host header value: `name[:port]`, `a.b.c.d[:port]` or `[v6][:port]`? */
export function isValidHost(host: string): boolean {
  const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (!m) return false;
  const [, name, port] = m as unknown as [string, string, string | undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  if (name.startsWith('[')) return isIP(name.slice(1, -1)) === 6;
  if (isIP(name) === 4) return true;
  return name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
}

/** `https://voxdex.example.org` (no trailing slash): the public URL when configured, else from the request. */
export function linkOrigin(req: Req, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl;
  const host = req.headers.host ?? 'localhost';
  if (!isValidHost(host)) {
    throw voxdexError(
      'BAD_ARGUMENT',
      `The Host header ${JSON.stringify(host.slice(0, 100))} is not a host name or IP address with an optional port; send the address you reach voxdex by (the operator can set VOXDEX_PUBLIC_URL)`,
    );
  }
  const proto = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}
