import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TokenService } from '../../src/auth/tokens';
import { VerifiedTokens } from '../../src/auth/verified-tokens';
import { loadConfig } from '../../src/config/config';
import { TEST_SECRETS } from '../support/test-app';

// The verified-token memo may only save work: every token it answers for must be one a full check would
// accept at that moment, and it must stop answering at the first moment the full check would refuse.

const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS, JWT_ACCESS_TTL: '600' });
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
function signAccess(claims: object, secret = TEST_SECRETS.JWT_SECRET): string {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const payload = {
    sub: 'u1',
    role: 'user',
    sv: 0,
    typ: 'access',
    iss: config.jwt.issuer,
    aud: config.jwt.audience,
    iat: nowSeconds,
    exp: nowSeconds + 60,
    ...claims,
  };
  const unsigned = `${b64({ alg: 'HS256', typ: 'at+jwt' })}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

function signRefresh(claims: object, secret = TEST_SECRETS.REFRESH_TOKEN_SECRET): string {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const payload = {
    sub: 'u1',
    sv: 3,
    typ: 'refresh',
    iss: config.jwt.issuer,
    aud: config.jwt.issuer,
    jti: 'r1',
    iat: nowSeconds,
    exp: nowSeconds + 60,
    ...claims,
  };
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

describe('verified refresh tokens, remembered', () => {
  afterEach(() => jest.useRealTimers());
  const session = { userId: 'u1', sessionVersion: 3, proof: { authTime: 0, amr: [] } };

  it('a remembered refresh token is refused from the second its exp passes, as a full check refuses it', () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const tokens = new TokenService(config.jwt);
    const token = signRefresh({});
    expect(tokens.verifyRefreshToken(token)).toEqual(session);
    jest.setSystemTime(Date.now() + 59_999);
    expect(tokens.verifyRefreshToken(token)).toEqual(session);
    jest.setSystemTime(Date.now() + 1);
    expect(tokens.verifyRefreshToken(token)).toBeUndefined();
    expect(new TokenService(config.jwt).verifyRefreshToken(token)).toBeUndefined();
  });

  it('a refresh token verified once is not verified again, a second token is', () => {
    const tokens = new TokenService(config.jwt);
    const verify = jest.spyOn(jwt, 'verify');
    try {
      const [first, second] = [signRefresh({ jti: 'r1' }), signRefresh({ jti: 'r2' })];
      expect([tokens.verifyRefreshToken(first), tokens.verifyRefreshToken(first)]).toEqual([session, session]);
      expect(verify).toHaveBeenCalledTimes(1);
      expect(tokens.verifyRefreshToken(second)).toEqual(session);
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      verify.mockRestore();
    }
  });

  it('a refused refresh token stays refused, and one kind never answers for the other', () => {
    const tokens = new TokenService(config.jwt);
    const forged = signRefresh({}, 'another-secret-of-the-attacker-000000000000');
    expect(tokens.verifyRefreshToken(forged)).toBeUndefined();
    expect(tokens.verifyRefreshToken(forged)).toBeUndefined();
    const refresh = signRefresh({});
    const access = signAccess({});
    expect(tokens.verifyRefreshToken(refresh)).toEqual(session);
    expect(tokens.verifyAccessToken(access)).toBeDefined();
    expect(tokens.verifyAccessToken(refresh)).toBeUndefined(); // remembered as a refresh token, still no access token
    expect(tokens.verifyRefreshToken(access)).toBeUndefined();
  });
});

describe('verified access tokens, remembered', () => {
  afterEach(() => jest.useRealTimers());

  it('a remembered token is refused from the second its exp passes, as a full check refuses it', () => {
    jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const tokens = new TokenService(config.jwt);
    const token = signAccess({});
    expect(tokens.verifyAccessToken(token)).toEqual({
      id: 'u1',
      role: 'user',
      sessionVersion: 0,
      proof: { authTime: 0, amr: [] },
    });
    jest.setSystemTime(Date.now() + 59_999);
    expect(tokens.verifyAccessToken(token)).toEqual({
      id: 'u1',
      role: 'user',
      sessionVersion: 0,
      proof: { authTime: 0, amr: [] },
    });
    jest.setSystemTime(Date.now() + 1);
    expect(tokens.verifyAccessToken(token)).toBeUndefined();
    expect(new TokenService(config.jwt).verifyAccessToken(token)).toBeUndefined(); // control: the full check agrees
  });

  it('refusals are never remembered: a token signed with another key stays refused, a good one is accepted after it', () => {
    const tokens = new TokenService(config.jwt);
    const forged = signAccess({}, 'another-secret-of-the-attacker-000000000000');
    expect(tokens.verifyAccessToken(forged)).toBeUndefined();
    expect(tokens.verifyAccessToken(forged)).toBeUndefined();
    expect(tokens.verifyAccessToken(signAccess({}))).toBeDefined();
  });

  it('holds at most its bound, the oldest leaving first', () => {
    const memo = new VerifiedTokens(2);
    const claims = { id: 'u', role: 'user', sessionVersion: 0 };
    memo.remember('a', claims, Number.MAX_SAFE_INTEGER);
    memo.remember('b', claims, Number.MAX_SAFE_INTEGER);
    memo.remember('c', claims, Number.MAX_SAFE_INTEGER);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([undefined, claims, claims]);
  });
});
