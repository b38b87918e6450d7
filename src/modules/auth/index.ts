import { CredentialVerifier } from '../../auth/credentials';
import { PasswordHasher } from '../../auth/passwords';
import { createRateLimitStore } from '../../auth/rate-limit-store';
import { RefreshSessions } from '../../auth/refresh-sessions';
import type { ModuleFactory } from '../../services';
import { authRateLimit } from './rate-limit';
import { authRoutes } from './routes';
import { selectUserStore } from './user-store';

/**
 * The auth module, mounted at /api/auth: login, refresh, logout (and register when enabled), all behind
 * one shared per-IP rate limit. Building it starts two argon2 hashes (the demo user's password and the
 * dummy hash for unknown users) and, with REDIS_URL, opens the Redis connection for the rate limit.
 */
export const authModule: ModuleFactory = (services) => {
  const { config, logger, database, tokens, lifecycle, metrics } = services;
  const hasher = new PasswordHasher();
  const users = selectUserStore(services, hasher);
  return {
    name: 'auth',
    middleware: [authRateLimit(config.authRateLimit, createRateLimitStore(config, logger, lifecycle), logger, metrics.auth)],
    routes: authRoutes({
      tokens,
      users,
      credentials: new CredentialVerifier(users, hasher, logger),
      sessions: new RefreshSessions(tokens, database.refreshTokens),
      hasher,
      cookie: { maxAgeSeconds: config.jwt.refreshTtlSeconds, secure: config.cookieSecure },
      corsOrigins: config.corsOrigins,
      registrationEnabled: config.registrationEnabled,
      metrics: metrics.auth,
    }),
  };
};
