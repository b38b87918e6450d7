import request from 'supertest';
import type { Response } from 'supertest';
import { authModule } from '../../src/modules/auth';
import { buildTestApp, type TestApp } from './test-app';

// Shared by the auth tests: an app with the auth module on the real in-memory SQLite store, and the
// small steps every flow repeats (log in, pick the refresh token out of Set-Cookie).

export const DEMO = { email: 'demo@example.com', password: 'demo-password' };

/** The auth module on the real store. The rate limit is raised unless the test is about the rate limit. */
export function buildAuthApp(env: Record<string, string> = {}): Promise<TestApp> {
  return buildTestApp({ env: { AUTH_RATE_LIMIT_MAX: '100000', ...env }, modules: [authModule] });
}

export function setCookies(response: Response): string[] {
  const header = response.headers['set-cookie'] as string[] | string | undefined;
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

/** The refresh token the response set, or undefined. */
export function refreshTokenFrom(response: Response): string | undefined {
  const cookie = setCookies(response).find((line) => line.startsWith('refreshToken='));
  const value = cookie?.slice('refreshToken='.length).split(';')[0];
  return value || undefined;
}

/** True when the response clears the refresh cookie (same name and path, Max-Age=0). */
export function clearsRefreshCookie(response: Response): boolean {
  return setCookies(response).some(
    (line) => /^refreshToken=;/.test(line) && line.includes('Path=/api/auth') && line.includes('Max-Age=0'),
  );
}

export interface Session {
  accessToken: string;
  refreshToken: string;
}

export async function login(app: TestApp, credentials: { email: string; password: string } = DEMO): Promise<Session> {
  const response = await request(app.app.callback()).post('/api/auth/login').send(credentials);
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
  const refreshToken = refreshTokenFrom(response);
  if (!refreshToken) throw new Error('login set no refresh cookie');
  return { accessToken: (response.body as { data: { accessToken: string } }).data.accessToken, refreshToken };
}
