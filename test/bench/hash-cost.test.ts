import { hashCost } from '../../bench/checks';

// The argon2 reference the login target is judged against: the median of the verifies timed before the logins and
// after them together, so a slow spell on either side moves it less than a median of one side would.

describe("the login target's argon2 reference", () => {
  it('is the median of the samples from both sides of the logins', () => {
    const parameters = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
    const before = { wallMs: [20, 21, 22], cpuMs: [19, 20, 21], systemMs: [1, 2, 3], parameters };
    const after = { wallMs: [30, 31, 32], cpuMs: [28, 29, 30], systemMs: [4, 5, 6], parameters };
    expect(hashCost(before, after)).toEqual({ wallMs: 26, cpuMs: 24.5, systemMs: 3.5, parameters });
  });
});
