import { EMAIL_NOT_VERIFIED, loginRefused, refreshRefused } from '../../src/modules/auth/session-refusals';

// The tables a refused login or refresh is answered and recorded from (the routes' own tests cover them over
// HTTP): one message for an unknown address and a wrong password; a refresh always clears the cookie; a reused
// token is recorded as reuse only when its family is known.

const CLEARED = 'refreshToken=; Path=/api/auth; Max-Age=0';

describe('a refused login', () => {
  it('answers an unknown address and a wrong password alike, and records which user it was', () => {
    const unknown = loginRefused({ outcome: 'failure' }, 'who@example.com');
    const wrong = loginRefused({ outcome: 'failure', userId: 'u1' }, 'who@example.com');
    expect([unknown.error.status, unknown.error.message]).toEqual([401, 'Invalid email or password']);
    expect([wrong.error.status, wrong.error.message]).toEqual([401, 'Invalid email or password']);
    expect(wrong.event).toEqual({ action: 'login', outcome: 'failure', userId: 'u1', email: 'who@example.com' });
  });

  it('tells a throttled caller when to come back', () => {
    const { error, event } = loginRefused({ outcome: 'throttled', retryAfterSeconds: 42 }, 'who@example.com');
    expect(error.status).toBe(429);
    expect(error.details.headers).toEqual({ 'Retry-After': '42' });
    expect(event).toEqual({ action: 'login', outcome: 'throttled', email: 'who@example.com' });
  });

  it('tells a right password on an unverified address why', () => {
    const { error, event } = loginRefused({ outcome: 'unverified', userId: 'u1' }, 'who@example.com');
    expect([error.status, error.message]).toEqual([403, EMAIL_NOT_VERIFIED]);
    expect(event).toEqual({ action: 'login', outcome: 'unverified', userId: 'u1' });
  });
});

describe('a refused refresh', () => {
  it.each(['missing-cookie', 'invalid-token', 'unknown-session', 'user-gone', 'session-ended'] as const)(
    '%s: 401, one message, the cookie cleared',
    (refused) => {
      const { error, event } = refreshRefused({ ok: false, refused, userId: 'u1' }, CLEARED);
      expect([error.status, error.message]).toEqual([401, 'Invalid or expired refresh token']);
      expect(error.details.headers).toEqual({ 'Set-Cookie': CLEARED });
      expect(event).toEqual({ action: 'refresh', outcome: 'refused', reason: refused, userId: 'u1' });
    },
  );

  it('an unverified address: 403 saying why, the cookie cleared', () => {
    const { error } = refreshRefused({ ok: false, refused: 'unverified', userId: 'u1' }, CLEARED);
    expect([error.status, error.message, error.details.headers]).toEqual([
      403,
      EMAIL_NOT_VERIFIED,
      { 'Set-Cookie': CLEARED },
    ]);
  });

  it('a reused token is recorded as reuse of its family, or as a refusal when the family is not known', () => {
    const reuse = refreshRefused({ ok: false, refused: 'reused-token', userId: 'u1', familyId: 'f1' }, CLEARED);
    expect(reuse.error.status).toBe(401);
    expect(reuse.event).toEqual({ action: 'refresh', outcome: 'reuse-detected', userId: 'u1', familyId: 'f1' });
    const unknown = refreshRefused({ ok: false, refused: 'reused-token' }, CLEARED);
    expect(unknown.event).toEqual({ action: 'refresh', outcome: 'refused', reason: 'reused-token', userId: undefined });
  });
});
