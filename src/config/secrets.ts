import { randomBytes } from 'node:crypto';
import { refusalsInChild } from './checks-in-child';
import { ConfigError } from './errors';
import { MIN_SECRET_BYTES } from './secret-rule';

// The two token secrets (JWT_SECRET, REFRESH_TOKEN_SECRET): required in production, random per process
// elsewhere. A bad value stops start-up with a message that names the variable and never the value.

/** What every refusal of a production secret ends with: the command that prints a good one. */
export const MAKE_A_SECRET = 'generate one with `npm run secret` (or `openssl rand -base64 48`)';

type Env = Record<string, string | undefined>;

/**
 * Throws naming the first variable whose value production may not use as a key (src/config/secret-rule.ts).
 * The rule's word list is loaded in a child process, all values at once (checks-in-child.ts).
 */
export function requireRandomSecrets(secrets: readonly (readonly [name: string, value: string])[]): void {
  const refusals = refusalsInChild(secrets.map(([, value]) => ({ kind: 'secret', value })));
  secrets.forEach(([name], index) => {
    const refusal = refusals[index];
    if (refusal)
      throw new ConfigError(
        name,
        `${refusal}: in production it must be at least ${MIN_SECRET_BYTES} random bytes in hex, base64 or base64url; ${MAKE_A_SECRET}`,
      );
  });
}

export function readSecrets(
  env: Env,
  production: boolean,
  warnings: string[],
): { accessSecret: string; refreshSecret: string } {
  let accessSecret = env.JWT_SECRET?.trim() || undefined;
  let refreshSecret = env.REFRESH_TOKEN_SECRET?.trim() || undefined;
  if (production) {
    if (!accessSecret) throw new ConfigError('JWT_SECRET', 'is required in production');
    if (!refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'is required in production');
  } else if (!accessSecret || !refreshSecret) {
    warnings.push(
      'JWT_SECRET or REFRESH_TOKEN_SECRET is not set: using a random secret for this process only; tokens die with it',
    );
    accessSecret ??= randomBytes(48).toString('base64url');
    refreshSecret ??= randomBytes(48).toString('base64url');
  }
  const secrets = [
    ['JWT_SECRET', accessSecret],
    ['REFRESH_TOKEN_SECRET', refreshSecret],
  ] as const;
  for (const [name, value] of secrets) {
    if (Buffer.byteLength(value) < MIN_SECRET_BYTES)
      throw new ConfigError(name, `must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
  if (production) requireRandomSecrets(secrets);
  if (accessSecret === refreshSecret) throw new ConfigError('REFRESH_TOKEN_SECRET', 'must differ from JWT_SECRET');
  return { accessSecret, refreshSecret };
}
