import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { accessTokenFrom, cookieFrom, refreshCookieFrom, send, type Call, type Outcome } from './http';

// Mixed traffic as real clients (and hostile ones) produce it. Each virtual user has its own loopback
// source address and keep-alive connection and a session of its own (access token + refresh cookie),
// and loops: pick an action by weight, send it, record what came back. Bounded by a deadline and a count.

/** The demo user as the drivers' service is started with it (production refuses the documented default password). */
export const DEMO = { email: 'demo@example.com', password: 'reliability-demo-password' };
const JSON_TYPE = { 'content-type': 'application/json' };

export type ActionName =
  | 'home'
  | 'ready'
  | 'notFound'
  | 'login'
  | 'badLogin'
  | 'refresh'
  | 'refreshNoCookie'
  | 'logout'
  | 'me'
  | 'protectedNoToken'
  | 'badToken'
  | 'malformedJson'
  | 'oversizedBody'
  | 'wrongContentType'
  | 'invalidBody';

/** Which actions need the database (or, with REDIS_URL, the rate-limit store): 503 is their answer in an outage. */
export const TOUCHES_DATABASE: ReadonlySet<ActionName> = new Set(['ready', 'login', 'refresh', 'logout', 'me']);
export const UNDER_AUTH: (name: ActionName) => boolean = (name) => !['home', 'ready', 'notFound', 'me'].includes(name);

export interface Record_ {
  action: ActionName;
  expected: readonly number[];
  requestId: string;
  outcome: Outcome;
}

const WEIGHTS: [ActionName, number][] = [
  // Logins are few, as in real use: each one is an argon2id hash (19 MiB, ~tens of ms of CPU).
  ['home', 20],
  ['ready', 4],
  ['notFound', 4],
  ['login', 2],
  ['badLogin', 1],
  ['refresh', 16],
  ['refreshNoCookie', 3],
  ['logout', 2],
  // The protected GET: the caller as stored (GET /api/users/me), with the session's access token.
  ['me', 8],
  ['protectedNoToken', 4],
  ['badToken', 6],
  ['malformedJson', 4],
  ['oversizedBody', 1],
  ['wrongContentType', 3],
  ['invalidBody', 4],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
const OVERSIZED = JSON.stringify({ email: DEMO.email, password: 'x'.repeat(150 * 1024) });

function pick(): ActionName {
  let roll = Math.random() * TOTAL_WEIGHT;
  for (const [name, weight] of WEIGHTS) {
    roll -= weight;
    if (roll < 0) return name;
  }
  return 'home';
}

/** A valid-looking token with one byte changed: the signature check must refuse it. */
function tamper(token: string): string {
  const index = Math.floor(Math.random() * token.length);
  const replacement = token[index] === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

export class VirtualUser {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private token: string | undefined;
  private cookie: string | undefined;
  /** The login-device cookie, kept as a browser keeps it: the owner is not held by the account-wide lock. */
  private device: string | undefined;

  constructor(
    private readonly port: number,
    readonly localAddress: string,
    private readonly timeoutMs: number,
  ) {}

  private async call(action: ActionName, expected: readonly number[], call: Call): Promise<Record_> {
    const requestId = `rel-${randomUUID()}`;
    const outcome = await send(
      { port: this.port, localAddress: this.localAddress, agent: this.agent },
      { ...call, headers: { ...call.headers, 'x-request-id': requestId } },
      this.timeoutMs,
    );
    return { action, expected, requestId, outcome };
  }

  /** One action; a refresh or logout without a session logs in first (two records). */
  async step(action: ActionName = pick()): Promise<Record_[]> {
    const records: Record_[] = [];
    const needsSession = action === 'refresh' || action === 'logout' || action === 'me';
    if (needsSession && !(this.token && this.cookie)) records.push(await this.login());
    if (needsSession && !(this.token && this.cookie)) return records; // login failed (outage)
    records.push(await this.act(action));
    return records;
  }

  async login(): Promise<Record_> {
    const headers = this.device ? { ...JSON_TYPE, cookie: `loginDevice=${this.device}` } : JSON_TYPE;
    const record = await this.call('login', [200], {
      method: 'POST',
      path: '/api/auth/login',
      headers,
      body: JSON.stringify(DEMO),
    });
    if (record.outcome.status === 200) {
      this.token = accessTokenFrom(record.outcome);
      this.cookie = refreshCookieFrom(record.outcome.headers);
      this.device = cookieFrom(record.outcome.headers, 'loginDevice') ?? this.device;
    }
    return record;
  }

  private async act(action: ActionName): Promise<Record_> {
    switch (action) {
      case 'home':
        return this.call(action, [200], { method: 'GET', path: '/' });
      case 'ready':
        return this.call(action, [200], { method: 'GET', path: '/health/ready' });
      case 'notFound':
        return this.call(action, [404], { method: 'GET', path: `/no/such/${Math.random().toString(36).slice(2)}` });
      case 'login':
        return this.login();
      case 'badLogin':
        // A guesser (no device cookie): 401, and 429 once the account or this address has failed too often.
        return this.call(action, [401, 429], {
          method: 'POST',
          path: '/api/auth/login',
          headers: JSON_TYPE,
          body: JSON.stringify({ ...DEMO, password: 'wrong-password' }),
        });
      case 'refresh': {
        const record = await this.call(action, [200], {
          method: 'POST',
          path: '/api/auth/refresh',
          headers: { cookie: `refreshToken=${this.cookie}` },
        });
        const fresh = record.outcome.status === 200 ? accessTokenFrom(record.outcome) : undefined;
        if (fresh) this.token = fresh;
        return record;
      }
      case 'refreshNoCookie':
        return this.call(action, [401], { method: 'POST', path: '/api/auth/refresh' });
      case 'logout': {
        const record = await this.call(action, [204], {
          method: 'POST',
          path: '/api/auth/logout',
          headers: { authorization: `Bearer ${this.token}`, cookie: `refreshToken=${this.cookie}` },
        });
        if (record.outcome.status === 204) this.token = this.cookie = undefined;
        return record;
      }
      case 'me':
        return this.call(action, [200], {
          method: 'GET',
          path: '/api/users/me',
          headers: { authorization: `Bearer ${this.token}` },
        });
      case 'protectedNoToken':
        return this.call(action, [401], { method: 'POST', path: '/api/auth/logout' });
      case 'badToken': {
        const bad = this.token ? tamper(this.token) : 'not.a.jwt';
        return this.call(action, [401], {
          method: 'POST',
          path: '/api/auth/logout',
          headers: { authorization: `Bearer ${bad}` },
        });
      }
      case 'malformedJson':
        return this.call(action, [400], {
          method: 'POST',
          path: '/api/auth/login',
          headers: JSON_TYPE,
          body: '{"email": "demo@example.com", "password": ',
        });
      case 'oversizedBody':
        return this.call(action, [413], {
          method: 'POST',
          path: '/api/auth/login',
          headers: JSON_TYPE,
          body: OVERSIZED,
        });
      case 'wrongContentType':
        return this.call(action, [415], {
          method: 'POST',
          path: '/api/auth/login',
          headers: { 'content-type': 'text/plain' },
          body: 'email=demo',
        });
      case 'invalidBody':
        return this.call(action, [422], {
          method: 'POST',
          path: '/api/auth/login',
          headers: JSON_TYPE,
          body: JSON.stringify({ email: 42, password: ['x'] }),
        });
    }
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Loopback source addresses 127.0.0.2, 127.0.0.3, …: all of 127/8 is the loopback interface on Linux. */
export function sourceAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `127.0.0.${index + 2}`);
}

export interface RunOptions {
  users: VirtualUser[];
  /** Stops at this time (epoch ms) … */
  until: number;
  /** … or after this many actions in total, whichever comes first. */
  maxActions: number;
  onRecord: (record: Record_) => void;
  /** Checked before each action: lets a driver stop the traffic early. */
  stopped?: () => boolean;
}

/** Runs every virtual user's loop until the deadline, the count or `stopped()`; resolves when all are done. */
export async function runTraffic({ users, until, maxActions, onRecord, stopped }: RunOptions): Promise<number> {
  let actions = 0;
  await Promise.all(
    users.map(async (user) => {
      while (Date.now() < until && actions < maxActions && !stopped?.()) {
        actions += 1;
        for (const record of await user.step()) onRecord(record);
      }
    }),
  );
  return actions;
}
