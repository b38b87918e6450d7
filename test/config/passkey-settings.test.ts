import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';

// PASSKEYS and the relying party's settings: defaults from PUBLIC_URL, origins on the RP id, secure contexts.

const base = { NODE_ENV: 'test', USER_STORE: 'database' };

describe('passkey settings', () => {
  it('are off by default, and their settings alone are refused', () => {
    expect(loadConfig(base).passkeys).toBeUndefined();
    expect(configError({ ...base, WEBAUTHN_RP_ID: 'example.com' }).variable).toBe('WEBAUTHN_RP_ID');
  });

  it('take the RP id and the origin from PUBLIC_URL', () => {
    expect(loadConfig({ ...base, PASSKEYS: 'true', PUBLIC_URL: 'https://api.example.com/' }).passkeys).toEqual({
      rpId: 'api.example.com',
      rpName: 'api.example.com',
      origins: ['https://api.example.com'],
      challengeTtlMs: 300_000,
    });
  });

  it('take listed origins of the RP id’s site, http only on localhost outside production', () => {
    const settings = loadConfig({
      ...base,
      PASSKEYS: 'true',
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGINS: 'http://localhost:3000, http://localhost:5173',
      WEBAUTHN_RP_NAME: 'Acme',
    }).passkeys;
    expect(settings).toMatchObject({
      rpId: 'localhost',
      rpName: 'Acme',
      origins: ['http://localhost:3000', 'http://localhost:5173'],
    });
    expect(
      loadConfig({
        ...base,
        PASSKEYS: 'true',
        WEBAUTHN_RP_ID: 'example.com',
        WEBAUTHN_ORIGINS: 'https://app.example.com,https://example.com',
      }).passkeys?.origins,
    ).toHaveLength(2);
    const offSite = configError({
      ...base,
      PASSKEYS: 'true',
      WEBAUTHN_RP_ID: 'example.com',
      WEBAUTHN_ORIGINS: 'https://example.org',
    });
    expect([offSite.variable, offSite.message]).toEqual([
      'WEBAUTHN_ORIGINS',
      expect.stringContaining('not on the WEBAUTHN_RP_ID host'),
    ]);
    expect(configError({ ...base, PASSKEYS: 'true', WEBAUTHN_ORIGINS: 'http://app.example.com' }).variable).toBe(
      'WEBAUTHN_ORIGINS',
    );
    expect(configError({ ...base, PASSKEYS: 'true', WEBAUTHN_ORIGINS: 'https://app.example.com/path' }).variable).toBe(
      'WEBAUTHN_ORIGINS',
    );
    expect(
      configError({
        ...base,
        PASSKEYS: 'true',
        PUBLIC_URL: 'https://example.com',
        WEBAUTHN_RP_ID: 'https://example.com',
      }).variable,
    ).toBe('WEBAUTHN_RP_ID');
  });

  it('need stored users and an origin, and a sane challenge lifetime', () => {
    expect(configError({ NODE_ENV: 'test', PASSKEYS: 'true', PUBLIC_URL: 'https://example.com' }).variable).toBe(
      'PASSKEYS',
    );
    expect(configError({ ...base, PASSKEYS: 'true' }).variable).toBe('PASSKEYS');
    expect(
      configError({ ...base, PASSKEYS: 'true', PUBLIC_URL: 'https://example.com', WEBAUTHN_CHALLENGE_TTL: '1h' })
        .variable,
    ).toBe('WEBAUTHN_CHALLENGE_TTL');
  });
});
