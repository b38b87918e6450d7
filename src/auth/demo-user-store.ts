import type { Config } from '../config/config';
import { refusalsInChild } from '../config/checks-in-child';
import { ConfigError } from '../config/errors';
import type { NewUser, UserRecord, UserStore } from './stores/user-store';
import { normaliseEmail } from './stores/email';
import type { PasswordHasher } from './passwords';

/** The demo user's id: what its tokens carry as `sub`. */
export const DEMO_USER_ID = 'demo';

/**
 * Production only: DEMO_USER_PASSWORD meets the policy a user's chosen password meets (the documented default
 * is refused earlier, by the configuration). Checked when the store is built, so only a demo store checks it,
 * and in a child process (src/config/checks-in-child.ts), so the policy's dictionaries do not stay in the
 * service for a check made once: they load here only if the demo user changes the password (on first use).
 */
export function checkDemoPassword(config: Pick<Config, 'env' | 'demoUser' | 'passwordMinLength'>): void {
  if (config.env !== 'production') return;
  const { password, email } = config.demoUser;
  const refusal =
    password.length < config.passwordMinLength
      ? `must be at least ${config.passwordMinLength} characters (PASSWORD_MIN_LENGTH)`
      : refusalsInChild([{ kind: 'password', password, email }])[0];
  if (refusal) throw new ConfigError('DEMO_USER_PASSWORD', `${refusal}: use a long passphrase of unrelated words`);
}

/**
 * USER_STORE=demo: the one built-in user from DEMO_USER_* (CONTRACT.md). Its password is hashed with argon2
 * when the store is built, so login compares hashes exactly as it does against the database store.
 * It holds no other users: registration needs USER_STORE=database (config enforces that).
 */
export class DemoUserStore implements UserStore {
  private readonly email: string;
  private passwordHash: Promise<string>;
  /** In this process only: the demo store is for one instance (several replicas want USER_STORE=database). */
  private sessionVersion = 0;

  constructor(
    private readonly demo: Config['demoUser'],
    hasher: PasswordHasher,
  ) {
    this.email = normaliseEmail(demo.email);
    this.passwordHash = hasher.hash(demo.password);
    this.passwordHash.catch(() => undefined); // awaited on first use; this only keeps an early failure from being "unhandled"
  }

  async findByEmail(email: string): Promise<UserRecord | null> {
    return normaliseEmail(email) === this.email ? this.record() : null;
  }

  async findById(id: string): Promise<UserRecord | null> {
    return id === DEMO_USER_ID ? this.record() : null;
  }

  async create(_user: NewUser): Promise<UserRecord> {
    throw new Error('the demo user store holds one built-in user and cannot create others');
  }

  async updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    if (id === DEMO_USER_ID) this.passwordHash = Promise.resolve(passwordHash);
  }

  async changePassword(id: string, passwordHash: string): Promise<number | undefined> {
    if (id !== DEMO_USER_ID) return undefined;
    this.passwordHash = Promise.resolve(passwordHash);
    this.sessionVersion += 1;
    return this.sessionVersion;
  }

  async markEmailVerified(id: string): Promise<boolean> {
    return id === DEMO_USER_ID; // the demo address is verified already
  }

  async endSessions(id: string): Promise<boolean> {
    if (id !== DEMO_USER_ID) return false;
    this.sessionVersion += 1;
    return true;
  }

  private async record(): Promise<UserRecord> {
    return {
      id: DEMO_USER_ID,
      email: this.email,
      passwordHash: await this.passwordHash,
      role: this.demo.role,
      name: 'Demo User',
      sessionVersion: this.sessionVersion,
      emailVerified: true,
    };
  }
}
