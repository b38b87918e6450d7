import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import request from 'supertest';
import { route, type ModuleDefinition } from '../../src/http/routing/route';
import { answerJson, writeAnswer } from '../../src/http/json-answer';
import { buildTestApp, type TestApp } from '../support/test-app';

// An envelope is written by the request context once the chain has run, with every header in one go
// (docs/decisions/027). A route's own header still wins over a default, a Vary it sets keeps Origin, and an
// answer written in one go is the same on the wire as one that went through Node's header table.

function headersModule(): () => ModuleDefinition {
  return () => ({
    name: 'headers',
    routes: [
      route({
        method: 'GET',
        path: '/own',
        access: 'public',
        responseHeaders: {
          'X-Frame-Options': { description: 'this route frames nowhere', schema: { type: 'string' } },
          Vary: { description: 'Accept and Origin', schema: { type: 'string' } },
        },
        handler: (ctx) => {
          ctx.set('X-Frame-Options', 'DENY'); // helmet's default is SAMEORIGIN
          ctx.vary('Accept');
          return { own: true };
        },
      }),
      route({ method: 'GET', path: '/plain', access: 'public', handler: () => ({ plain: true }) }),
    ],
  });
}

describe('answers written in one go', () => {
  let t: TestApp;
  const server = () => t.app.callback();

  beforeAll(async () => {
    t = await buildTestApp({ modules: [headersModule()] });
  });
  afterAll(() => t.close());

  it('a plain envelope carries the id, the security headers, Vary, its type and its length', async () => {
    const res = await request(server()).get('/api/headers/plain').set('X-Request-Id', 'trace-1').expect(200);
    expect(res.headers['x-request-id']).toBe('trace-1');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(res.body).toEqual({ status: 'success', data: { plain: true } });
  });

  it("a route's own header wins over the default, and a Vary it sets keeps Origin", async () => {
    const res = await request(server()).get('/api/headers/own').expect(200);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers.vary).toBe('Accept, Origin');
    expect(res.headers['x-content-type-options']).toBe('nosniff'); // the other defaults are still there
    expect(res.body).toEqual({ status: 'success', data: { own: true } });
  });

  it('a HEAD answer has the length of the body it leaves out', async () => {
    const get = await request(server()).get('/api/headers/plain').expect(200);
    const head = await request(server()).head('/api/headers/plain').expect(200);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.text ?? '').toBe('');
  });
});

describe('writeAnswer', () => {
  async function answerWith(status: number, before?: (ctx: Koa.Context) => void) {
    const app = new Koa();
    app.use((ctx) => {
      before?.(ctx);
      answerJson(ctx, status, { status: 'success', data: { n: 1 } });
      expect(writeAnswer(ctx, ['x-one', '1'])).toBe(true);
    });
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      return await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    } finally {
      server.close();
    }
  }

  it('writes a bodiless status without a body or content headers', async () => {
    const res = await answerWith(205);
    expect(res.status).toBe(205);
    expect(res.headers.get('x-one')).toBe('1');
    expect(res.headers.get('content-type')).toBeNull();
    expect(await res.text()).toBe('');
  });

  it('joins headers the chain set through Node, and answers the same', async () => {
    const res = await answerWith(201, (ctx) => ctx.set('Set-Cookie', 'a=b'));
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toBe('a=b');
    expect(res.headers.get('x-one')).toBe('1');
    expect(await res.json()).toEqual({ status: 'success', data: { n: 1 } });
  });

  it('leaves an answer set the Koa way to Koa', () => {
    const ctx = { status: 200, respond: true } as unknown as Koa.Context;
    expect(writeAnswer(ctx, [])).toBe(false);
    expect(ctx.respond).toBe(true);
  });
});
