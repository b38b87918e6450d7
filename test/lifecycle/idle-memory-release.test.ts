import { IdleMemoryRelease } from '../../src/lifecycle/idle-memory-release';

// After a busy spell, one collection once no request has been in flight for the idle time; none while a request
// runs, none again until requests come back, and none on a process that served nothing.

describe('the idle memory release', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['performance'] }));
  afterEach(() => jest.useRealTimers());

  it('collects once after a busy spell, never while a hash runs, not again until one comes, and at most every 30 s', () => {
    let collections = 0;
    let now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
    const idle = new IdleMemoryRelease(() => ((collections += 1), 5), 1_000, undefined, 30_000);
    const tick = (ms: number) => {
      now += ms;
      jest.advanceTimersByTime(ms);
    };
    tick(3_000);
    expect(collections).toBe(0); // nothing served yet
    idle.started();
    tick(5_000);
    expect(collections).toBe(0); // a long request in flight
    idle.ended();
    tick(500);
    expect(collections).toBe(0); // not idle long enough
    tick(1_000);
    expect(collections).toBe(1);
    tick(35_000);
    expect(collections).toBe(1); // idle since: nothing more to give back
    idle.started();
    idle.ended();
    tick(2_000);
    expect(collections).toBe(2);
    idle.started(); // a sign-in soon after: collected again only 30 s after the last
    idle.ended();
    tick(2_000);
    expect(collections).toBe(2);
    tick(28_000);
    expect(collections).toBe(3);
    idle.close();
    jest.restoreAllMocks();
  });
});
