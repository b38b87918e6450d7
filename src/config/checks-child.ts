import type * as PasswordPolicy from '../auth/password-policy';
import type * as SecretRule from './secret-rule';

// The child process of checks-in-child.ts: reads the checks as JSON on stdin, writes one refusal (a string) or
// null per check as JSON on stdout, and exits. Only the named checks can run: nothing on stdin picks code.

/** A production start-up check whose word lists should not stay in the service (see checks-in-child.ts). */
export type ChildCheck =
  /** A token or sealing key, by the secret rule (src/config/secret-rule.ts). */
  | { kind: 'secret'; value: string }
  /** DEMO_USER_PASSWORD, by the policy a user's chosen password meets (src/auth/password-policy.ts). */
  | { kind: 'password'; password: string; email: string };

/* eslint-disable @typescript-eslint/no-require-imports -- each check loads only what it needs */
function refusal(check: ChildCheck): string | undefined {
  switch (check.kind) {
    case 'secret':
      return (require('./secret-rule') as typeof SecretRule).secretRefusal(check.value);
    case 'password':
      return (require('../auth/password-policy') as typeof PasswordPolicy).passwordRefusal(check.password, {
        email: check.email,
      });
    default:
      throw new Error(`unknown check ${JSON.stringify((check as { kind?: unknown }).kind)}`);
  }
}
/* eslint-enable @typescript-eslint/no-require-imports */

function main(): void {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => (input += chunk));
  process.stdin.on('end', () => {
    try {
      const checks = JSON.parse(input) as ChildCheck[];
      process.stdout.write(JSON.stringify(checks.map((check) => refusal(check) ?? null)));
    } catch (error) {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`); // never the input: it holds secrets
      process.exitCode = 1;
    }
  });
}

if (require.main === module) main();
