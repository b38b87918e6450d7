import type { Middleware } from 'koa';
import type { HeaderDoc } from '../../http/routing/route';

/**
 * Nothing the auth routes answer may be cached (RFC 6749 §5.1, OWASP ASVS 5 V14.3): not the tokens, and
 * not the refusals either, which a shared cache could otherwise serve to the next client. Set before the
 * rest of the module runs, so errors thrown below keep it (the error handler only adds headers).
 */
export const noStore: Middleware = async (ctx, next) => {
  ctx.set('Cache-Control', 'no-store');
  await next();
};

/** What noStore adds to every answer, for the API document. */
export const noStoreHeaders: Record<string, HeaderDoc> = {
  'Cache-Control': {
    description: 'Every answer under /api/auth: never cached',
    schema: { type: 'string', const: 'no-store' },
    required: true,
  },
};
