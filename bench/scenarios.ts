import type { LoadRequest } from './load';

// What the bench measures. Each scenario is one request repeated by every connection; the raw node:http
// server gets the same request (it answers anything with GET /'s body), so the ratio is "how much of bare
// node:http's throughput is left once the service does this request's work".

export type ScenarioId = 'get-root' | 'protected' | 'login' | 'refresh';

export interface Scenario {
  id: ScenarioId;
  title: string;
  request: LoadRequest;
  /** Connections for this scenario (login uses fewer: argon2 bounds it, more only queue). */
  connections: number;
  /**
   * The request this one's cost is judged against (refresh: the protected GET), run on the service right beside
   * it in every round, so the two are measured within seconds of each other (report.ts, `costRatio`).
   */
  comparedWith?: { id: ScenarioId; request: LoadRequest };
}

/** The demo user as the bench starts the service (production refuses the documented default password). */
export const DEMO_CREDENTIALS = { email: 'demo@example.com', password: 'bench-demo-password' };

export interface ScenarioInputs {
  accessToken: string;
  /** `refreshToken=…` from logins, one per session; undefined when the auth module is not mounted. */
  refreshCookies: readonly string[] | undefined;
  connections: number;
  loginConnections: number;
}

export function buildScenarios(inputs: ScenarioInputs): Scenario[] {
  const json = { 'content-type': 'application/json' };
  const scenarios: Scenario[] = [
    {
      id: 'get-root',
      title: 'GET / (full production middleware)',
      request: { method: 'GET', path: '/' },
      connections: inputs.connections,
    },
    {
      id: 'protected',
      title: 'GET /api/bench/protected (JWT verify + role check)',
      request: {
        method: 'GET',
        path: '/api/bench/protected',
        headers: { authorization: `Bearer ${inputs.accessToken}` },
      },
      connections: inputs.connections,
    },
  ];
  const guarded = scenarios.find((scenario) => scenario.id === 'protected')!;
  if (inputs.refreshCookies) {
    // The auth module is mounted (the cookie came from a login).
    scenarios.push(
      {
        id: 'login',
        title: 'POST /api/auth/login (demo user, argon2id verify)',
        request: { method: 'POST', path: '/api/auth/login', headers: json, body: JSON.stringify(DEMO_CREDENTIALS) },
        connections: inputs.loginConnections,
      },
      {
        id: 'refresh',
        title: 'POST /api/auth/refresh (cookie → JWT verify → store lookup → new access token)',
        // No Origin header: a non-browser client, which the CSRF check lets through. Each request presents the
        // next session's cookie: a crowd's refreshes look up different tokens.
        request: {
          method: 'POST',
          path: '/api/auth/refresh',
          headerSets: inputs.refreshCookies.map((cookie) => ({ cookie })),
        },
        connections: inputs.connections,
        comparedWith: { id: guarded.id, request: guarded.request },
      },
    );
  }
  return scenarios;
}
