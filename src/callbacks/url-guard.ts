/**
 * Which callback targets voxdex will POST to. Only http/https. Refused: link-local addresses
 * (169.254.0.0/16, fe80::/10: where cloud metadata services live), the known metadata addresses and
 * host names of the big clouds, unspecified/multicast/broadcast addresses. Allowed: loopback and
 * private ranges (a self-hosted service often notifies a receiver on the same host or LAN).
 * The check runs at submit time on the URL (`checkCallbackUrl`) and again at delivery time on every
 * address DNS returns (`guardedLookup`), so a name that later resolves to a metadata address is refused.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { voxdexError } from '../errors.js';

const BLOCKED = new BlockList();
BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, AWS/GCP/Azure/OCI metadata 169.254.169.254
BLOCKED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network"
BLOCKED.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
BLOCKED.addAddress('255.255.255.255', 'ipv4');
BLOCKED.addSubnet('fe80::', 10, 'ipv6'); // link-local
BLOCKED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
BLOCKED.addSubnet('ff00::', 8, 'ipv6'); // multicast
BLOCKED.addAddress('::', 'ipv6');

const BLOCKED_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

/** True for an IP address voxdex never sends a callback to. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (BLOCKED.check(address, type)) return true;
  // IPv4-mapped IPv6 written in dotted form (::ffff:169.254.169.254)
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped !== null && BLOCKED.check(mapped[1]!, 'ipv4');
}

function bad(url: string, why: string) {
  return voxdexError('BAD_CALLBACK_URL', `Callback URL ${JSON.stringify(url.length > 200 ? `${url.slice(0, 197)}...` : url)} ${why}`);
}

/** Validates a callback URL at the edge; throws BAD_CALLBACK_URL. Returns the parsed URL. */
export function checkCallbackUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad(url, 'is not a valid URL; send an absolute http:// or https:// URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(url, `uses ${u.protocol.slice(0, -1)}; only http and https are allowed`);
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === '') throw bad(url, 'has no host');
  if (BLOCKED_NAMES.has(host)) throw bad(url, 'points at a cloud metadata service; use a receiver you control');
  if (isForbiddenAddress(host)) throw bad(url, 'points at a link-local, metadata or non-unicast address; use a routable receiver address');
  return u;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that resolves the name and refuses the connection when any address
 * it resolves to is forbidden (checked on the address actually used: no DNS-rebinding window).
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string } | undefined, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true, family: toFamily(options?.family) }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const forbidden = list.find((a) => isForbiddenAddress(a.address));
    if (forbidden) {
      const e = Object.assign(new Error(`callback host ${hostname} resolves to forbidden address ${forbidden.address}`), { code: 'EFORBIDDENADDR' });
      return callback(e, '');
    }
    if (list.length === 0) return callback(Object.assign(new Error(`callback host ${hostname} has no address`), { code: 'ENOTFOUND' }), '');
    if (options?.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}

function toFamily(f: number | string | undefined): 0 | 4 | 6 {
  if (f === 4 || f === 'IPv4') return 4;
  if (f === 6 || f === 'IPv6') return 6;
  return 0;
}

/** Resolves the URL's host now and throws BAD_CALLBACK_URL if it is (or resolves to) a forbidden address. */
export async function resolveCallbackUrl(url: string): Promise<URL> {
  const u = checkCallbackUrl(url);
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return u;
  await new Promise<void>((resolve, reject) => {
    guardedLookup(host, { all: true }, (err) => {
      if (err && (err as NodeJS.ErrnoException).code === 'EFORBIDDENADDR') reject(bad(url, `resolves to a forbidden address (${err.message})`));
      else resolve(); // an unresolvable name is a delivery-time problem (retried), not a submit-time one
    });
  });
  return u;
}
