import { ConfigError, loadConfig } from '../../src/config/config';

/** The ConfigError that loadConfig throws for `env`; fails the test when it throws nothing or something else. */
export function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
