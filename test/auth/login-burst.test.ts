import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashQueue, HashQueueFullError } from '../../src/auth/hash-queue';
import { buildAuthApp, DEMO } from '../support/auth-helpers';
import type { TestApp } from '../support/test-app';

// A login burst: argon2 runs at most PASSWORD_HASH_CONCURRENCY at once, PASSWORD_HASH_QUEUE more wait, and
// the rest are refused at once with a 503 envelope and Retry-After instead of piling up (memory bounded).

describe('login burst over a real socket (concurrency 1, queue 2)', () => {
  let app: TestApp;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    app = await buildAuthApp({ PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '2' });
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await app.close();
  });

  const login = (password = DEMO.password) =>
    fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...DEMO, password }),
    });

  it('answers one running + two queued, refuses the rest with 503 + Retry-After, then serves again', async () => {
    await login(); // the start-up hashes (demo user, dummy) are done: the queue starts empty
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => login(i % 2 ? 'wrong-password' : DEMO.password)),
    );
    const refused = answers.filter((answer) => answer.status === 503).length;
    // Sent at once: one takes the slot, two wait, the rest find the queue full, except any that arrive
    // after a hash finished (each takes ~30 ms, so on a loaded machine a few may get through).
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(16 - 3);
    for (const answer of answers) {
      if (answer.status === 503) {
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.headers.get('x-request-id')).toBeTruthy();
        expect(await answer.json()).toEqual({
          status: 'fail',
          message: 'Too many sign-ins at once, try again shortly',
        });
      } else {
        expect([200, 401]).toContain(answer.status);
        await answer.arrayBuffer();
      }
    }
    // The queue drained: the next login is served.
    expect((await login()).status).toBe(200);
  });
});

describe('HashQueue', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((done) => (resolve = done));
    return { promise, resolve };
  };

  it('runs at most `concurrency` tasks, in arrival order, and refuses past maxQueued', async () => {
    const queue = new HashQueue(2, 1);
    const gates = [deferred(), deferred(), deferred()];
    const order: number[] = [];
    const runs = gates.map((gate, i) =>
      queue.run(async () => {
        order.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(queue.load).toEqual({ running: 2, queued: 1 });
    await expect(queue.run(() => Promise.resolve(9))).rejects.toBeInstanceOf(HashQueueFullError);
    gates[0].resolve();
    expect(await runs[0]).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([0, 1, 2]);
    expect(queue.load).toEqual({ running: 2, queued: 0 });
    gates[1].resolve();
    gates[2].resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(queue.load).toEqual({ running: 0, queued: 0 });
  });

  it('frees the slot when a task fails', async () => {
    const queue = new HashQueue(1, 0);
    await expect(queue.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await queue.run(() => Promise.resolve('next'))).toBe('next');
    expect(queue.load).toEqual({ running: 0, queued: 0 });
  });
});
