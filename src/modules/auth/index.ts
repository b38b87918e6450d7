import { AccountSessions } from '../../auth/account-sessions';
import { CredentialVerifier } from '../../auth/credentials';
import { DeviceTokens } from '../../auth/device-tokens';
import { createFailureCounter } from '../../auth/failure-counter';
import { HashQueue } from '../../auth/hash-queue';
import { LoginThrottle } from '../../auth/login-throttle';
import { PasswordHasher } from '../../auth/passwords';
import { createRateLimitStore } from '../../auth/rate-limit-store';
import { RefreshSessions } from '../../auth/refresh-sessions';
import { AccountLinks } from '../../auth/account-links';
import { EmailVerification } from '../../auth/email-verification';
import { PasswordReset } from '../../auth/password-reset';
import {
  accountTokenStore,
  identityStore,
  mfaStore,
  passkeyStore,
  refreshTokenStore,
  signInMethodStore,
  userStore,
} from '../../auth/stores/definitions';
import { PasskeyChallenges } from '../../auth/passkeys/passkey-challenges';
import { PasskeyEnrolment } from '../../auth/passkeys/passkey-enrolment';
import { PasskeyLogin } from '../../auth/passkeys/passkey-login';
import { PasskeySignup } from '../../auth/passkeys/passkey-signup';
import { RelyingParty } from '../../auth/passkeys/relying-party';
import { FlowSeal } from '../../auth/oidc/flow-cookie';
import { OidcAccounts } from '../../auth/oidc/oidc-accounts';
import { ChallengeTokens } from '../../auth/mfa/challenge-tokens';
import { SecondFactor } from '../../auth/mfa/second-factor';
import { SecretBox } from '../../auth/mfa/secret-box';
import { SpentChallenges } from '../../auth/mfa/spent-challenges';
import { TwoFactorEnrolment } from '../../auth/mfa/two-factor-enrolment';
import { TwoFactorLogin } from '../../auth/mfa/two-factor-login';
import { AccountNotices } from '../../auth/account-notices';
import { AccountMethodsReader } from '../../auth/owner-proof/account-methods';
import { OwnerProofs } from '../../auth/owner-proof/owner-proofs';
import { PasswordChange } from '../../auth/password-change';
import { PasswordCheck } from '../../auth/password-check';
import { PasswordLogin } from '../../auth/password-login';
import { Registration } from '../../auth/registration';
import { SessionRefresh } from '../../auth/session-refresh';
import { MailOutbox } from '../../mail/outbox';
import { smtpTransport } from '../../mail/smtp-transport';
import { defineModule } from '../../services';
import { AuthEvents } from './auth-events';
import { countAuthEvents } from './auth-metrics';
import { REFRESH_COOKIE_SCHEME, refreshCookieSecurityScheme } from './cookie';
import { noStore, noStoreHeaders } from './no-store';
import { accountMailRoutes } from './account-mail-routes';
import { authRateLimit, authRateLimitErrors, authRateLimitHeaders, counted } from './rate-limit';
import { oidcRoutes } from './oidc-routes';
import { rejectCrossSite } from './csrf';
import { passkeyRoutes } from './passkey-routes';
import { passkeySignupRoutes } from './passkey-signup-routes';
import { ownerGate } from './owner-gate';
import { reauthRoutes } from './reauth-routes';
import { authRoutes } from './routes';

/**
 * The auth module, mounted at /api/auth: login, refresh, logout (and register when enabled), all behind
 * one shared per-IP rate limit. It owns the users and refresh-token stores (src/auth/stores). Building it
 * starts two argon2 hashes (the demo user's password and the dummy hash for unknown users) and, with REDIS_URL, opens the Redis connection for the rate limit.
 */
export const authModule = defineModule(
  [userStore, refreshTokenStore, accountTokenStore, mfaStore, identityStore, passkeyStore, signInMethodStore],
  (services) => {
    const { config, logger, database, tokens, lifecycle, users, callers } = services;
    const hasher = new PasswordHasher(
      undefined,
      new HashQueue(config.passwordHashing.concurrency, config.passwordHashing.maxQueued, lifecycle.heavyWork),
    );
    const sessions = new RefreshSessions(tokens, database.store(refreshTokenStore), config.refreshRotation);
    const events = new AuthEvents(logger, config.jwt.accessSecret);
    if (services.metrics.enabled) events.subscribe(countAuthEvents(services.metrics.auth));
    const rateLimitStore = createRateLimitStore(config, logger, lifecycle);
    const failureCounter = createFailureCounter(rateLimitStore);
    const accounts = new AccountSessions(users, sessions, callers);
    // Mail (SMTP_URL): password reset, and with EMAIL_VERIFICATION the verification of addresses (docs/accounts.md).
    const mail = config.mail;
    const outbox =
      mail &&
      new MailOutbox(smtpTransport(mail.smtpUrl, mail.from), logger, {
        attempts: mail.attempts,
        maxQueued: mail.queueLimit,
      });
    if (outbox) lifecycle.onClose('mail outbox', () => outbox.close(mail.drainTimeoutMs));
    const links =
      mail &&
      outbox &&
      new AccountLinks(database.store(accountTokenStore), outbox, failureCounter, mail.linkBase, (email) =>
        events.emailHash(email),
      );
    const verification =
      mail && links && mail.emailVerification !== 'off'
        ? new EmailVerification(users, links, mail.emailVerificationTtlMs, (userId) => callers.forget(userId))
        : undefined;
    const notices = outbox && new AccountNotices(outbox, failureCounter, (email) => events.emailHash(email));
    const sessionVersionOf = async (email: string) => (await users.findByEmail(email))?.sessionVersion;
    const throttle = new LoginThrottle(
      failureCounter,
      config.loginThrottle,
      (email) => events.emailHash(email),
      new DeviceTokens(config.jwt.refreshSecret),
      sessionVersionOf,
    );
    const passwords = new PasswordCheck(throttle, hasher, counted);
    // Two-factor login (MFA_ENCRYPTION_KEY): codes are counted per user with the login throttle's limits.
    const mfa = config.mfa && twoFactorParts(config.mfa);
    function twoFactorParts(settings: NonNullable<typeof config.mfa>) {
      const factors = new SecondFactor(
        database.store(mfaStore),
        new SecretBox(settings.keys),
        failureCounter,
        { failures: config.loginThrottle.pairFailures, windowMs: config.loginThrottle.windowMs },
        settings.issuer,
      );
      const twoFactorLogin = new TwoFactorLogin(
        users,
        factors,
        new ChallengeTokens(config.jwt.accessSecret, config.jwt.issuer, settings.tokenTtlSeconds),
        new SpentChallenges(database.store(accountTokenStore)),
        counted,
      );
      return {
        factors,
        twoFactorLogin,
        enrolment: new TwoFactorEnrolment(factors, accounts, notices, counted, logger),
      };
    }
    // Every change to the ways in asks for a recent proof of the owner, by one rule (docs/authentication.md).
    const methods = new AccountMethodsReader({
      secondFactor: mfa?.factors,
      passkeys: config.passkeys ? database.store(passkeyStore) : undefined,
      identities: config.oidc ? database.store(identityStore) : undefined,
    });
    const proofs = new OwnerProofs(users, methods, passwords, mfa?.factors, counted, config.reauthMaxAgeSeconds);
    const gate = ownerGate(proofs, events);
    const cookie = { maxAgeSeconds: config.jwt.refreshTtlSeconds, secure: config.cookieSecure };
    // Registration (AUTH_REGISTRATION=true); with email verification, taken addresses answer like new ones.
    const registration = config.registrationEnabled
      ? new Registration(users, hasher, logger, verification && notices ? { verification, notices } : undefined)
      : undefined;
    const routes = authRoutes({
      tokens,
      sessions,
      accounts,
      throttle,
      cookie,
      events,
      login: new PasswordLogin(new CredentialVerifier(users, hasher, logger), throttle, counted, {
        verificationRequired: mail?.emailVerification === 'required',
        twoFactor: mfa?.twoFactorLogin,
      }),
      refresh: new SessionRefresh(sessions, callers),
      passwordChange: new PasswordChange(hasher, accounts),
      gate,
      corsOrigins: config.corsOrigins,
      publicOrigin: config.publicUrl && new URL(config.publicUrl).origin,
      registration,
      passwordMinLength: config.passwordMinLength,
      verificationRequired: mail?.emailVerification === 'required',
      mfa,
    });
    // Sign-in with OpenID Connect providers (OIDC_PROVIDERS, discovered at start-up: services.oidc): docs/authentication.md.
    if (config.oidc) {
      const providers = services.oidc ?? { get: () => undefined, discovered: () => [] }; // none only where nothing is served (the API document)
      const linked = new OidcAccounts(
        users,
        database.store(identityStore),
        database.store(signInMethodStore),
        (user) => methods.beyondPassword(user),
        (user, change, provider) => {
          notices
            ?.signInMethodChanged(user, change, `sign-in with ${provider}`)
            .catch((error: unknown) => logger.error({ err: error }, 'sign-in method notice not queued'));
        },
      );
      const seal = new FlowSeal(config.jwt.refreshSecret);
      const publicUrl = config.oidc.publicUrl;
      routes.push(
        ...oidcRoutes({
          tokens,
          sessions,
          throttle,
          cookie,
          events,
          users,
          twoFactor: mfa?.twoFactorLogin,
          providers,
          accounts: linked,
          seal,
          publicUrl,
          gate,
          sessionsOf: accounts,
        }),
      );
    }
    // Passkeys (PASSKEYS=true): sign-in with WebAuthn, alone or as the second factor (docs/authentication.md).
    const passkeyParts = config.passkeys && passkeyFlows(config.passkeys);
    function passkeyFlows(settings: NonNullable<typeof config.passkeys>) {
      const party = new RelyingParty(settings);
      const challenges = new PasskeyChallenges(database.store(accountTokenStore), settings.challengeTtlMs);
      const login = new PasskeyLogin(party, database.store(passkeyStore), challenges, users);
      return { party, challenges, login, challengeTtlMs: settings.challengeTtlMs };
    }
    routes.push(
      ...reauthRoutes({
        tokens,
        events,
        proofs,
        gate,
        passkeys: passkeyParts && { login: passkeyParts.login, challengeTtlMs: passkeyParts.challengeTtlMs, cookie },
      }),
    );
    if (passkeyParts) {
      const { party, challenges, login, challengeTtlMs } = passkeyParts;
      const passkeys = database.store(passkeyStore);
      const enrolment = new PasskeyEnrolment(
        party,
        passkeys,
        database.store(signInMethodStore),
        challenges,
        notices,
        logger,
      );
      const crossSiteGuard = rejectCrossSite(config.corsOrigins, config.publicUrl && new URL(config.publicUrl).origin);
      const verificationRequired = mail?.emailVerification === 'required';
      routes.push(
        ...passkeyRoutes({
          tokens,
          sessions,
          throttle,
          cookie,
          events,
          gate,
          accounts,
          enrolment,
          login,
          twoFactor: mfa?.twoFactorLogin,
          challengeTtlMs,
          crossSiteGuard,
          verificationRequired,
        }),
      );
      // An account with a passkey alone, where self-registration is open: it answers as POST /register does.
      if (registration) {
        const signup = new PasskeySignup(
          party,
          passkeys,
          database.store(signInMethodStore),
          users,
          challenges,
          registration,
        );
        routes.push(...passkeySignupRoutes({ signup, events, cookie, challengeTtlMs }));
      }
    }
    if (mail && links) {
      const reset = new PasswordReset(users, links, accounts, hasher, mail.passwordResetTtlMs);
      routes.push(...accountMailRoutes(reset, verification, events, logger, config.passwordMinLength));
    }
    return {
      name: 'auth',
      // no-store first, so that every answer under /api/auth carries it, the rate limiter's 429 included
      description:
        'Log in, refresh the access token, log out (and register, reset a forgotten password, two-factor login, passkeys, when enabled)',
      middleware: [
        { middleware: noStore, headers: noStoreHeaders },
        {
          middleware: authRateLimit(config.authRateLimit, rateLimitStore, logger, (ctx) =>
            events.record(ctx, { action: 'rate-limit', outcome: 'limited' }),
          ),
          errors: authRateLimitErrors,
          headers: authRateLimitHeaders,
        },
      ],
      securitySchemes: { [REFRESH_COOKIE_SCHEME]: refreshCookieSecurityScheme },
      routes,
    };
  },
);
