import { hkdfSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { ChallengeTokens } from '../../src/auth/mfa/challenge-tokens';
import { newRecoveryCodes, RECOVERY_CODE_PATTERN, recoveryCodeDigest } from '../../src/auth/mfa/recovery-codes';
import { SecretBox } from '../../src/auth/mfa/secret-box';
import { TokenService } from '../../src/auth/tokens';
import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';
import { TEST_SECRETS } from '../support/test-app';
import { withSegmentChanged } from '../support/tamper';

// The parts of two-factor login that need no database: sealing, recovery codes, the challenge token, settings.

const KEY_A = 'mfa-key-a-0123456789abcdef0123456789abcdef';
const KEY_B = 'mfa-key-b-0123456789abcdef0123456789abcdef';

describe('SecretBox', () => {
  it('seals with the first key, opens with any, binds the value to its owner and detects tampering', () => {
    const sealed = new SecretBox([KEY_A]).seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', 'user-1');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('JBSWY3DP');
    const rotated = new SecretBox([KEY_B, KEY_A]);
    expect(rotated.open(sealed, 'user-1')).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.seal('x', 'user-1'))).toBe(false);
    expect(() => rotated.open(sealed, 'user-2')).toThrow();
    expect(() => rotated.open(withSegmentChanged(sealed, 3), 'user-1')).toThrow();
    expect(() => rotated.open(withSegmentChanged(sealed, 4), 'user-1')).toThrow();
    expect(() => new SecretBox([KEY_B]).open(sealed, 'user-1')).toThrow(/MFA_ENCRYPTION_KEY/);
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes in four groups, read back the same however they are typed', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-hj-km-np-z2-9]{4}(-[a-hj-km-np-z2-9]{4}){3}$/);
      expect(new RegExp(RECOVERY_CODE_PATTERN).test(code)).toBe(true);
      expect(recoveryCodeDigest(code.toUpperCase().replace(/-/g, ' '))).toBe(recoveryCodeDigest(code));
    }
  });
});

describe('challenge tokens', () => {
  const config = loadConfig({ NODE_ENV: 'test', ...TEST_SECRETS });
  const challenges = new ChallengeTokens(config.jwt.accessSecret, config.jwt.issuer, 300);

  it('carry the user and session version, and are neither access tokens nor accepted with another key', () => {
    const token = challenges.sign({
      userId: 'user-1',
      sessionVersion: 3,
      firstFactor: { authTime: 1_700_000_000, amr: ['pwd'] },
    });
    const verified = challenges.verify(token);
    expect(verified).toEqual({
      userId: 'user-1',
      sessionVersion: 3,
      firstFactor: { authTime: 1_700_000_000, amr: ['pwd'] },
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      expiresAt: expect.any(Date),
    });
    expect(Math.abs(verified!.expiresAt.getTime() - (Date.now() + 300_000))).toBeLessThan(2000);
    expect(
      challenges.verify(
        challenges.sign({
          userId: 'user-1',
          sessionVersion: 3,
          firstFactor: { authTime: 1_700_000_000, amr: ['pwd'] },
        }),
      )!.id,
    ).not.toBe(verified!.id); // each token its own id, spent on its own
    expect(new TokenService(config.jwt).verifyAccessToken(token)).toBeUndefined();
    const access = new TokenService(config.jwt).signAccessToken({ id: 'user-1', role: 'user', sessionVersion: 3 });
    expect(challenges.verify(access)).toBeUndefined();
    expect(new ChallengeTokens(`${config.jwt.accessSecret}x`, config.jwt.issuer, 300).verify(token)).toBeUndefined();
  });

  it('are refused when they claim a longer life than the service issues (a leaked key cannot mint lasting ones)', () => {
    const key = Buffer.from(hkdfSync('sha256', config.jwt.accessSecret, '', 'mfa-challenge-token/v1', 32));
    const minted = jwt.sign({ typ: 'mfa-challenge', sv: 0 }, key, {
      algorithm: 'HS256',
      issuer: config.jwt.issuer,
      audience: `${config.jwt.issuer}#mfa`,
      subject: 'user-1',
      expiresIn: '3650d',
    });
    expect(challenges.verify(minted)).toBeUndefined();
    const fair = jwt.sign({ typ: 'mfa-challenge', sv: 0 }, key, {
      algorithm: 'HS256',
      issuer: config.jwt.issuer,
      audience: `${config.jwt.issuer}#mfa`,
      subject: 'user-1',
      expiresIn: 300,
      jwtid: 'j-1',
    });
    expect(challenges.verify(fair)).toMatchObject({ userId: 'user-1', sessionVersion: 0, id: 'j-1' }); // the same token, a fair lifetime
    const unspendable = jwt.sign({ typ: 'mfa-challenge', sv: 0 }, key, {
      algorithm: 'HS256',
      issuer: config.jwt.issuer,
      audience: `${config.jwt.issuer}#mfa`,
      subject: 'user-1',
      expiresIn: 300,
    });
    expect(challenges.verify(unspendable)).toBeUndefined(); // no id: it could not be spent, so it is no token
  });

  it('expire after their lifetime', () => {
    jest.useFakeTimers({ now: Date.now() });
    try {
      const token = challenges.sign({
        userId: 'user-1',
        sessionVersion: 0,
        firstFactor: { authTime: 1_700_000_000, amr: ['pwd'] },
      });
      jest.setSystemTime(Date.now() + 301_000);
      expect(challenges.verify(token)).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('MFA settings', () => {
  const base = { NODE_ENV: 'test', ...TEST_SECRETS, USER_STORE: 'database', DATABASE_URL: 'sqlite::memory:' };

  const refusal = (env: Record<string, string>) => {
    const error = configError(env);
    return `${error.variable}: ${error.message}`;
  };

  it('are off without MFA_ENCRYPTION_KEY, and say so when their other settings are given alone', () => {
    expect(loadConfig(base).mfa).toBeUndefined();
    expect(refusal({ ...base, MFA_ISSUER: 'Acme' })).toMatch(/^MFA_ISSUER: .*needs MFA_ENCRYPTION_KEY/);
  });

  it('take one or more keys of 32 bytes or more, an issuer without a colon, a token lifetime of 1 to 15 minutes', () => {
    expect(
      loadConfig({ ...base, MFA_ENCRYPTION_KEY: `${KEY_B}, ${KEY_A}`, PUBLIC_URL: 'https://api.example.com' }).mfa,
    ).toEqual({
      keys: [KEY_B, KEY_A],
      issuer: 'api.example.com',
      tokenTtlSeconds: 300,
    });
    expect(refusal({ ...base, MFA_ENCRYPTION_KEY: 'short' })).toMatch(/^MFA_ENCRYPTION_KEY: .*at least 32 bytes/);
    expect(refusal({ ...base, MFA_ENCRYPTION_KEY: `${KEY_A},${KEY_A}` })).toMatch(/^MFA_ENCRYPTION_KEY: .*twice/);
    expect(refusal({ ...base, MFA_ENCRYPTION_KEY: KEY_A, MFA_ISSUER: 'a:b' })).toMatch(/^MFA_ISSUER: .*colon/);
    expect(refusal({ ...base, MFA_ENCRYPTION_KEY: KEY_A, MFA_TOKEN_TTL: '1h' })).toMatch(
      /^MFA_TOKEN_TTL: .*between 1m and 15m/,
    );
    expect(refusal({ ...base, USER_STORE: 'demo', MFA_ENCRYPTION_KEY: KEY_A })).toMatch(
      /^MFA_ENCRYPTION_KEY: .*USER_STORE=database/,
    );
  });
});
