import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { RequestState } from '../routing/route';

// A caller's id is kept when it is short and plain, so traces join up across services; anything else
// (too long, odd characters that could forge log lines) is replaced by a fresh UUID.
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): Middleware<RequestState> {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const id = SANE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
