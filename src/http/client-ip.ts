import { isIPv6 } from 'node:net';
import type { Context } from 'koa';

// An IPv4 client reached over a dual-stack socket appears as `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2); it is
// the same client as `a.b.c.d` and must share its rate-limit counter and read the same in the logs.
const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

// Some proxies write X-Forwarded-For entries with the client's port (RFC 7239 §6 allows it in Forwarded):
// `203.0.113.7:51234`, `[2001:db8::1]:51234`. The port changes with every connection; the address is the client.
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([0-9a-f:.%]+)\](?::\d{1,5})?$/i;

/** The client's address as the service counts and logs it: ctx.ip (TRUST_PROXY applied), no port, IPv4 unmapped. */
export function clientIp(ctx: Pick<Context, 'ip'>): string {
  const raw = ctx.ip || 'unknown';
  if (!raw.includes(':')) return raw; // a bare IPv4 address: nothing to strip (every request asks, for its log line)
  const ip = IPV4_WITH_PORT.exec(raw)?.[1] ?? BRACKETED_IPV6.exec(raw)?.[1] ?? raw;
  return IPV4_MAPPED.exec(ip)?.[1] ?? ip;
}

/** The eight 16-bit groups of an IPv6 address, zero-padded (`::` expanded, an embedded IPv4 tail converted). */
function ipv6Groups(ip: string): string[] {
  let address = ip.split('%')[0]; // a zone id (fe80::1%eth0) names an interface, not another host
  const ipv4Tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.slice(1).map(Number);
    address = `${address.slice(0, ipv4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) => group.toLowerCase().padStart(4, '0'));
}

/**
 * The unit a per-client limit counts: the IPv4 address, or for IPv6 the /64 network. One IPv6 host
 * usually holds a whole /64 (SLAAC, privacy addresses) and can change address within it at will, so
 * counting single IPv6 addresses would give every attacker 2^64 fresh counters.
 */
export function clientBucket(ctx: Pick<Context, 'ip'>): string {
  const ip = clientIp(ctx);
  if (!isIPv6(ip.split('%')[0])) return ip;
  return `${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
}
