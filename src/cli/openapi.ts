import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { userServices } from '../service';
import { TokenService } from '../auth/tokens';
import { loadConfig } from '../config/config';
import { declareApi } from '../http/api';
import { packageRoot } from '../http/openapi/package-info';
import { Lifecycle } from '../lifecycle/lifecycle';
import { metricsOff } from '../observability/metrics';
import { modules } from '../modules';
import { storesOf } from '../services';
import { createDatabase } from '../stores/create-database';

// `npm run openapi` writes the API document to openapi.json at the repository root; `npm run openapi --
// --check` exits 1 when the committed file differs from what the code declares (CI runs it in `make lint`),
// so every API change shows in a review's diff. No server, no database connection: the modules are built
// and their declarations read, nothing more.
//
// The environment is fixed, not read, so the file is the same on every machine: every registered module
// with every optional route on (registration, password reset, two-factor login, OpenID Connect sign-in and passkeys included), and the default server `/` (PUBLIC_URL unset).
// A running service serves its own document at GET /openapi.json, which follows its real configuration.

const DOCUMENT_ENV = {
  NODE_ENV: 'test',
  DATABASE_URL: 'sqlite::memory:',
  USER_STORE: 'database',
  AUTH_REGISTRATION: 'true',
  MFA_ENCRYPTION_KEY: 'openapi-document-only-0123456789abcdef0123', // two-factor routes in the document; nothing is sealed
  USER_RATE_LIMIT_MAX: '600', // the per-user budget as outside tests (its 429 and counters in the document)
};

export function generateDocument(): string {
  // Mail on too (its routes in the document), without PUBLIC_URL, which would become the document's server:
  // the settings are set here rather than read (SMTP_URL needs PUBLIC_URL). Nothing is ever sent.
  const mail = {
    smtpUrl: 'smtp://127.0.0.1:25',
    from: 'no-reply@example.com',
    attempts: 1,
    queueLimit: 1,
    drainTimeoutMs: 0,
    linkBase: 'https://example.com',
    passwordResetTtlMs: 30 * 60_000,
    emailVerification: 'required' as const,
    emailVerificationTtlMs: 24 * 3_600_000,
  };
  // OpenID Connect sign-in likewise (its routes take the provider as a path parameter): no provider is discovered.
  const oidc = { providers: [], publicUrl: 'https://example.com' };
  // Passkeys likewise (PASSKEYS needs PUBLIC_URL or WEBAUTHN_ORIGINS): nothing is loaded until a ceremony runs.
  const passkeys = {
    rpId: 'example.com',
    rpName: 'example.com',
    origins: ['https://example.com'],
    challengeTtlMs: 5 * 60_000,
  };
  const config = { ...loadConfig(DOCUMENT_ENV), mail, oidc, passkeys };
  const logger = pino({ level: 'silent' });
  const database = createDatabase(config, logger, storesOf(modules), { cleanupJob: false, connectAttempts: 1 }); // never connected
  const services = {
    config,
    logger,
    database,
    tokens: new TokenService(config.jwt),
    ...userServices(config, database),
    lifecycle: new Lifecycle(),
    metrics: metricsOff,
  };
  return `${JSON.stringify(declareApi(services, modules).document, null, 2)}\n`;
}

function main(args: string[]): number {
  const file = join(packageRoot(), 'openapi.json');
  const generated = generateDocument();
  if (args.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(file, 'utf8');
    } catch {
      // missing: reported below like any difference
    }
    if (committed === generated) return 0;
    process.stderr.write(
      'openapi.json differs from the routes the code declares: run `npm run openapi` and commit the result\n',
    );
    return 1;
  }
  writeFileSync(file, generated);
  process.stdout.write(`wrote ${file}\n`);
  return 0;
}

if (require.main === module) {
  let code = 1;
  try {
    code = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`openapi failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(code); // the modules started work (argon2 hashes) that this command does not need to finish
}
