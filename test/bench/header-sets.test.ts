import { inTurn } from '../../bench/load';

// The refresh scenario's requests each present the next session's cookie (bench/scenarios.ts): autocannon calls
// the hook once per request it builds, whichever connection sends it.
describe('inTurn', () => {
  it('gives each request the next header set, round and round, keeping the headers it had', () => {
    const next = inTurn([{ cookie: 's=0' }, { cookie: 's=1' }, { cookie: 's=2' }]);
    const cookies = Array.from(
      { length: 7 },
      () => next({ headers: { accept: 'application/json', cookie: 'old' } }).headers,
    );
    expect(cookies.map((headers) => headers?.cookie)).toEqual(['s=0', 's=1', 's=2', 's=0', 's=1', 's=2', 's=0']);
    expect(cookies.every((headers) => headers?.accept === 'application/json')).toBe(true);
  });
});
