import { ConfigError } from './errors';
import { boolean, read, timerMs, type Env } from './readers';

// Passkeys (WebAuthn, docs/authentication.md). Off unless PASSKEYS=true. The relying party is the site the
// credentials are bound to: its id (WEBAUTHN_RP_ID) is a host name, and every origin a ceremony may run on
// (WEBAUTHN_ORIGINS) must be that host or a subdomain of it, as browsers require.

export interface PasskeySettings {
  /** The relying party id (WEBAUTHN_RP_ID): PUBLIC_URL's host name by default. */
  rpId: string;
  /** The name authenticators show beside the account (WEBAUTHN_RP_NAME): the RP id by default. */
  rpName: string;
  /** The origins a ceremony may run on (WEBAUTHN_ORIGINS): PUBLIC_URL's origin by default. */
  origins: string[];
  /** How long the options of a ceremony stay usable (WEBAUTHN_CHALLENGE_TTL). */
  challengeTtlMs: number;
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== value.replace(/\/$/, '')) return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** The passkey settings, or undefined when PASSKEYS is off (no passkey routes, @simplewebauthn/server never loaded). */
export function passkeySettings(
  env: Env,
  production: boolean,
  userStore: string,
  publicUrl: string | undefined,
): PasskeySettings | undefined {
  if (!boolean(env, 'PASSKEYS', false)) {
    for (const name of ['WEBAUTHN_RP_ID', 'WEBAUTHN_RP_NAME', 'WEBAUTHN_ORIGINS', 'WEBAUTHN_CHALLENGE_TTL']) {
      if (read(env, name)) throw new ConfigError(name, 'needs PASSKEYS=true: passkeys are off without it');
    }
    return undefined;
  }
  if (userStore !== 'database')
    throw new ConfigError('PASSKEYS', 'needs USER_STORE=database (passkeys belong to stored accounts)');
  const listed = read(env, 'WEBAUTHN_ORIGINS');
  if (!listed && !publicUrl)
    throw new ConfigError(
      'PASSKEYS',
      'needs PUBLIC_URL or WEBAUTHN_ORIGINS (the origins the browser runs the ceremonies on)',
    );
  const origins = (
    listed
      ? listed
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean)
      : [new URL(publicUrl!).origin]
  ).map((value) => {
    const origin = originOf(value);
    if (!origin)
      throw new ConfigError(
        'WEBAUTHN_ORIGINS',
        'must be comma-separated origins, such as https://app.example.com,http://localhost:5173',
      );
    return origin;
  });
  const rpId = (read(env, 'WEBAUTHN_RP_ID') ?? new URL(publicUrl ?? origins[0]!).hostname).toLowerCase();
  if (!HOST_NAME.test(rpId))
    throw new ConfigError('WEBAUTHN_RP_ID', 'must be a host name, such as example.com (no scheme, no port)');
  for (const { hostname, protocol } of origins.map((origin) => new URL(origin))) {
    if (hostname !== rpId && !hostname.endsWith(`.${rpId}`))
      throw new ConfigError(
        'WEBAUTHN_ORIGINS',
        'lists an origin that is not on the WEBAUTHN_RP_ID host or a subdomain of it',
      );
    // Browsers run WebAuthn only in secure contexts: https, or http on localhost.
    if (protocol === 'http:' && (production || (hostname !== 'localhost' && !hostname.endsWith('.localhost')))) {
      throw new ConfigError(
        'WEBAUTHN_ORIGINS',
        'lists an origin that is not https:// (http:// only on localhost outside production)',
      );
    }
  }
  const rpName = read(env, 'WEBAUTHN_RP_NAME') ?? rpId;
  if (rpName.length > 64) throw new ConfigError('WEBAUTHN_RP_NAME', 'must be at most 64 characters');
  const challengeTtlMs = timerMs(env, 'WEBAUTHN_CHALLENGE_TTL', '5m');
  if (challengeTtlMs < 30_000 || challengeTtlMs > 10 * 60_000)
    throw new ConfigError('WEBAUTHN_CHALLENGE_TTL', 'must be between 30s and 10m');
  return { rpId, rpName, origins, challengeTtlMs };
}
