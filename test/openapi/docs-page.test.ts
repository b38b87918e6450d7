import request from 'supertest';
import { loadConfig } from '../../src/config/config';
import { docsContentSecurityPolicy } from '../../src/http/openapi/docs-routes';
import { buildTestApp, TEST_SECRETS, type TestApp } from '../support/test-app';

/** What a browser sends when a person opens the page. */
const BROWSER = {
  Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'Accept-Language': 'en',
  'Sec-Fetch-Dest': 'document',
  'Sec-Fetch-Mode': 'navigate',
  'Sec-Fetch-Site': 'none',
  'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36',
};
const API_POLICY = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'";

describe("GET /docs: Swagger UI from the package's own files, its relaxed CSP on its responses only", () => {
  let t: TestApp;
  const api = () => request(t.app.callback());

  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('answers an HTML page that loads only same-origin files, under the docs policy', async () => {
    const res = await api().get('/docs').set(BROWSER).expect(200).expect('Content-Type', 'text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(docsContentSecurityPolicy(undefined));
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline|https?:/);
    expect(res.text).toContain('<div id="swagger-ui"></div>');
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.length).toBeGreaterThanOrEqual(4);
    for (const source of sources) {
      expect(source).toMatch(/^\/docs\/[\w.-]+\?v=/); // no CDN, no other origin
      const asset = await api().get(source).expect(200);
      expect(asset.headers['content-security-policy']).toBe(docsContentSecurityPolicy(undefined));
      expect(asset.headers['content-type']).toMatch(/^(text\/css|text\/javascript|image\/png)/);
      expect(Number(asset.headers['content-length'] ?? asset.body.length)).toBeGreaterThan(0);
    }
    const init = await api().get('/docs/init.js').expect(200);
    expect(init.text).toContain("url: '/openapi.json'");
  });

  it('serves nothing else under /docs', async () => {
    for (const path of [
      '/docs/package.json',
      '/docs/index.html',
      '/docs/..%2Fpackage.json',
      '/docs/swagger-ui-bundle.js.map',
    ]) {
      const res = await api().get(path).expect(404);
      expect(res.body).toEqual({ status: 'fail', message: expect.any(String) });
    }
  });

  it("every other response keeps the API's strict policy", async () => {
    for (const path of ['/', '/openapi.json', '/health/live', '/no-such-path']) {
      const res = await api().get(path);
      expect(res.headers['content-security-policy']).toBe(API_POLICY);
    }
  });

  it('PUBLIC_URL\'s origin may be called from the page ("Try it out")', () => {
    expect(docsContentSecurityPolicy('https://api.example.com/v1')).toContain(
      "connect-src 'self' https://api.example.com;",
    );
  });
});

describe('API_DOCS', () => {
  it('defaults to on outside production and off in production', () => {
    const strong = {
      JWT_SECRET: 'Zq3v8KfT1xWm9bLc2RpY7sNd4HgJ6aUeQ0iVo5tXyBzA1CwE',
      REFRESH_TOKEN_SECRET: 'Lp4uR7eW2qZx9mNa6sKd1fGh8jT3vYc0bOi5XnQwEzAyBt2C',
    };
    expect(loadConfig({ NODE_ENV: 'development', ...TEST_SECRETS }).apiDocs).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS }).apiDocs).toBe(true);
    const production = { NODE_ENV: 'production', ...strong, DEMO_USER_PASSWORD: 'a-changed-demo-password' };
    expect(loadConfig(production).apiDocs).toBe(false);
    expect(loadConfig({ ...production, API_DOCS: 'true' }).apiDocs).toBe(true);
    expect(() => loadConfig({ ...TEST_SECRETS, API_DOCS: 'sometimes' })).toThrow(/API_DOCS must be true or false/);
  });

  it('API_DOCS=false: no /openapi.json and no /docs', async () => {
    const t = await buildTestApp({ env: { API_DOCS: 'false' } });
    try {
      for (const path of ['/openapi.json', '/docs', '/docs/swagger-ui-bundle.js'])
        await request(t.app.callback()).get(path).expect(404);
      await request(t.app.callback()).get('/').expect(200);
    } finally {
      await t.close();
    }
  });
});
