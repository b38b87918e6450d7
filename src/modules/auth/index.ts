import { CredentialVerifier } from '../../auth/credentials';
import { createFailureCounter } from '../../auth/failure-counter';
import { LoginThrottle } from '../../auth/login-throttle';
import { PasswordHasher } from '../../auth/passwords';
import { createRateLimitStore } from '../../auth/rate-limit-store';
import { RefreshSessions } from '../../auth/refresh-sessions';
import type { ModuleFactory } from '../../services';
import { AuthEvents } from './auth-events';
import { countAuthEvents } from './auth-metrics';
import { noStore } from './no-store';
import { authRateLimit } from './rate-limit';
import { authRoutes } from './routes';
import { selectUserStore } from './user-store';

/**
 * The auth module, mounted at /api/auth: login, refresh, logout (and register when enabled), all behind
 * one shared per-IP rate limit. Building it starts two argon2 hashes (the demo user's password and the
 * dummy hash for unknown users) and, with REDIS_URL, opens the Redis connection for the rate limit.
 */
export const authModule: ModuleFactory = (services) => {
  const { config, logger, database, tokens, lifecycle } = services;
  const hasher = new PasswordHasher();
  const users = selectUserStore(services, hasher);
  const events = new AuthEvents(logger, config.jwt.accessSecret);
  if (services.metrics.enabled) events.subscribe(countAuthEvents(services.metrics.auth));
  const rateLimitStore = createRateLimitStore(config, logger, lifecycle);
  return {
    name: 'auth',
    // no-store first, so that every answer under /api/auth carries it, the rate limiter's 429 included
    middleware: [noStore, authRateLimit(config.authRateLimit, rateLimitStore, logger, (ctx) => events.record(ctx, { action: 'rate-limit', outcome: 'limited' }))],
    routes: authRoutes({
      tokens,
      users,
      credentials: new CredentialVerifier(users, hasher, logger),
      sessions: new RefreshSessions(tokens, database.refreshTokens),
      hasher,
      cookie: { maxAgeSeconds: config.jwt.refreshTtlSeconds, secure: config.cookieSecure },
      events,
      throttle: new LoginThrottle(createFailureCounter(rateLimitStore), config.loginThrottle, (email) => events.emailHash(email)),
      corsOrigins: config.corsOrigins,
      publicOrigin: config.publicUrl && new URL(config.publicUrl).origin,
      registrationEnabled: config.registrationEnabled,
      passwordMinLength: config.passwordMinLength,
    }),
  };
};
