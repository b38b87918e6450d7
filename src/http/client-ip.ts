import type { Context } from 'koa';

// An IPv4 client reached over a dual-stack socket appears as `::ffff:a.b.c.d` (RFC 4291 §2.5.5.2); it is
// the same client as `a.b.c.d` and must share its rate-limit counter and read the same in the logs.
const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The client's address as the service counts and logs it: ctx.ip (TRUST_PROXY applied), IPv4 unmapped. */
export function clientIp(ctx: Pick<Context, 'ip'>): string {
  const ip = ctx.ip || 'unknown';
  return IPV4_MAPPED.exec(ip)?.[1] ?? ip;
}
