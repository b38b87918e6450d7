import { ConfigError } from './errors';
import { read, timerMs, type Env } from './readers';
import { requireRandomSecrets } from './secrets';

// Two-factor login (TOTP, docs/accounts.md). Off unless MFA_ENCRYPTION_KEY is set: the authenticator
// secrets are stored sealed with it (AES-256-GCM), so the service cannot offer TOTP without one. A key made up
// per process, as the token secrets are in development, would lock every enrolled user out at the next
// restart: there is no default.

export interface MfaSettings {
  /** The sealing keys, newest first: the first seals, every one opens (rotation: put the new key in front). */
  keys: string[];
  /** The account's issuer in authenticator apps (MFA_ISSUER): PUBLIC_URL's host name, else JWT_ISSUER. */
  issuer: string;
  /** How long the token between the password and the code works (MFA_TOKEN_TTL). */
  tokenTtlSeconds: number;
}

const MIN_KEY_BYTES = 32;

/** The MFA settings, or undefined when MFA_ENCRYPTION_KEY is unset (no two-factor routes). */
export function mfaSettings(
  env: Env,
  production: boolean,
  userStore: string,
  publicUrl: string | undefined,
  jwtIssuer: string,
): MfaSettings | undefined {
  const keyList = read(env, 'MFA_ENCRYPTION_KEY');
  if (!keyList) {
    for (const name of ['MFA_ISSUER', 'MFA_TOKEN_TTL'])
      if (read(env, name)) throw new ConfigError(name, 'needs MFA_ENCRYPTION_KEY: two-factor login is off without it');
    return undefined;
  }
  if (userStore !== 'database')
    throw new ConfigError('MFA_ENCRYPTION_KEY', 'needs USER_STORE=database (two-factor login is for stored accounts)');
  const keys = keyList.split(',').map((key) => key.trim());
  for (const key of keys) {
    if (Buffer.byteLength(key) < MIN_KEY_BYTES)
      throw new ConfigError('MFA_ENCRYPTION_KEY', `each key must be at least ${MIN_KEY_BYTES} bytes long`);
  }
  if (production) requireRandomSecrets(keys.map((key) => ['MFA_ENCRYPTION_KEY', key] as const));
  if (new Set(keys).size !== keys.length) throw new ConfigError('MFA_ENCRYPTION_KEY', 'lists the same key twice');
  const issuer = read(env, 'MFA_ISSUER') ?? (publicUrl ? new URL(publicUrl).hostname : jwtIssuer);
  if (issuer.includes(':') || issuer.length > 64)
    throw new ConfigError(
      'MFA_ISSUER',
      'must be at most 64 characters, without a colon (authenticator apps split the label on it)',
    );
  const tokenTtlMs = timerMs(env, 'MFA_TOKEN_TTL', '5m');
  if (tokenTtlMs < 60_000 || tokenTtlMs > 15 * 60_000)
    throw new ConfigError('MFA_TOKEN_TTL', 'must be between 1m and 15m');
  return { keys, issuer, tokenTtlSeconds: tokenTtlMs / 1000 };
}
