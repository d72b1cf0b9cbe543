/**
 * Which callback targets voxdex will POST to. Only http/https. Refused: link-local addresses
 * (169.254.0.0/16, fe80::/10: where cloud metadata services live), the known metadata addresses and
 * host names of the big clouds, unspecified/multicast/broadcast addresses. Allowed: loopback and
 * private ranges (a self-hosted service often notifies a receiver on the same host or LAN). An IPv6
 * address that embeds an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged as that IPv4.
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
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (BLOCKED.check(address, 'ipv6')) return true;
  // An IPv4 address written as IPv6 (mapped, compatible, NAT64, 6to4, Teredo) is checked as that IPv4.
  const v4 = embeddedIpv4(address);
  return v4 !== undefined && BLOCKED.check(v4, 'ipv4');
}

/** The 8 groups of an IPv6 address (`::` expanded, a dotted IPv4 tail as two groups); undefined if not IPv6. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  return tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The IPv4 address an IPv6 address carries, in every standard embedding: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`,
 * 6to4 `2002:AABB:CCDD::/48`, Teredo `2001:0::/32` (client address inverted). Undefined for the rest.
 */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!); // mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!); // translated
  if (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4(g[6]!, g[7]!); // compatible (not :: or ::1)
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!); // NAT64 well-known prefix
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return v4(g[6]!, g[7]!); // NAT64 local-use prefix
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff); // Teredo client
  return undefined;
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
