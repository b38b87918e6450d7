import { ConfigError } from './errors';
import { boolean, read, type Env } from './readers';

// Sign-in with OpenID Connect providers (docs/authentication.md). Off unless OIDC_PROVIDERS names at least
// one provider; each named provider then needs its issuer and client credentials. Nothing of it (not even
// openid-client) loads when OIDC_PROVIDERS is unset.

export interface OidcProviderSettings {
  /** The name in OIDC_PROVIDERS, lower-case: the path segment of its routes (/api/auth/oidc/<name>/login). */
  name: string;
  /** The variable prefix, OIDC_<NAME>_: error messages name the variable. */
  prefix: string;
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** Space-separated, `openid` always among them. */
  scopes: string;
  /** A first sign-in with a verified address nobody holds creates a user (OIDC_<NAME>_REGISTRATION). */
  registration: boolean;
  /**
   * A first sign-in with a verified address a local account holds links to it (OIDC_<NAME>_LINK_BY_EMAIL, default
   * off: the provider is then trusted to say who owns the address). Never for an account with a role other than
   * `user` or with a second factor: those link only from their own signed-in session.
   */
  linkByEmail: boolean;
}

export interface OidcSettings {
  providers: OidcProviderSettings[];
  /** PUBLIC_URL: where the provider sends the browser back, and the origin of every redirect after sign-in. */
  publicUrl: string;
}

const NAME = /^[a-z][a-z0-9]{0,31}$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** A name under `.localhost` (RFC 6761 §6.3: this machine's), such as the Compose `oidc` profile's `oidc-dev.localhost`. */
const isLocal = (hostname: string) => LOOPBACK.has(hostname) || hostname.endsWith('.localhost');

function issuerUrl(env: Env, variable: string, production: boolean): URL {
  const value = read(env, variable);
  if (!value)
    throw new ConfigError(
      variable,
      'is required for each provider in OIDC_PROVIDERS (the issuer URL, such as https://accounts.google.com)',
    );
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || url.search || url.hash || url.username || url.password || url.href.length > 255)
    throw new ConfigError(variable, 'must be the issuer URL, such as https://accounts.google.com');
  // Plain HTTP only to this machine (a provider for development or tests), never in production.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocal(url.hostname) && !production)) {
    throw new ConfigError(variable, 'must be an https:// URL (http:// only to localhost outside production)');
  }
  return url;
}

function provider(env: Env, name: string, production: boolean, registrationDefault: boolean): OidcProviderSettings {
  const prefix = `OIDC_${name.toUpperCase()}_`;
  const required = (suffix: string) => {
    const value = read(env, prefix + suffix);
    if (!value) throw new ConfigError(prefix + suffix, 'is required for each provider in OIDC_PROVIDERS');
    return value;
  };
  const scopes = (read(env, `${prefix}SCOPES`) ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) throw new ConfigError(`${prefix}SCOPES`, 'must include openid');
  if (scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)))
    throw new ConfigError(`${prefix}SCOPES`, 'must be scope names separated by spaces');
  return {
    name,
    prefix,
    issuer: issuerUrl(env, `${prefix}ISSUER`, production),
    clientId: required('CLIENT_ID'),
    clientSecret: required('CLIENT_SECRET'),
    scopes: scopes.join(' '),
    registration: boolean(env, `${prefix}REGISTRATION`, registrationDefault),
    linkByEmail: boolean(env, `${prefix}LINK_BY_EMAIL`, false),
  };
}

/** The OIDC settings, or undefined when OIDC_PROVIDERS is unset (no OIDC routes, openid-client never loaded). */
export function oidcSettings(
  env: Env,
  production: boolean,
  userStore: string,
  publicUrl: string | undefined,
  registrationEnabled: boolean,
): OidcSettings | undefined {
  const list = read(env, 'OIDC_PROVIDERS');
  if (!list) return undefined;
  const names = list
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of names)
    if (!NAME.test(name))
      throw new ConfigError(
        'OIDC_PROVIDERS',
        'must be a comma-separated list of names of letters and digits, such as corp,google',
      );
  if (new Set(names).size !== names.length) throw new ConfigError('OIDC_PROVIDERS', 'lists the same provider twice');
  if (userStore !== 'database')
    throw new ConfigError('OIDC_PROVIDERS', 'needs USER_STORE=database (identities are linked to stored accounts)');
  if (!publicUrl)
    throw new ConfigError(
      'OIDC_PROVIDERS',
      'needs PUBLIC_URL (the providers send the browser back to PUBLIC_URL/api/auth/oidc/<name>/callback)',
    );
  return { providers: names.map((name) => provider(env, name, production, registrationEnabled)), publicUrl };
}
