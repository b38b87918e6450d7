// npm run user:create -- --email a@example.com --role admin --name "Ada" [--password …]
// Creates a user in the configured database (DATABASE_URL / MONGO_URI; migrations applied first) and prints
// the new id, never the hash. Without --password the password is read from stdin (first line), which keeps
// it out of the shell history and the process list: `printf '%s\n' "$PASSWORD" | npm run user:create -- …`.
import { parseArgs } from 'node:util';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { normaliseEmail } from '../auth/stores/email';
import { chosenPasswordSchema, passwordRefusal } from '../auth/password-policy';
import { PasswordHasher } from '../auth/passwords';
import { userStore } from '../auth/stores/definitions';
import { loadConfig } from '../config/config';
import { emailSchema } from '../modules/auth/schemas';
import { runUserCommand, UsageError, withDatabase } from './user-cli';

const USAGE =
  'usage: npm run user:create -- --email <email> [--role <role>] [--name <name>] [--password <password> | password on stdin]';

async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (input is echoed; prefer piping it in): ');
  let input = '';
  for await (const chunk of process.stdin) {
    input += String(chunk);
    if (input.includes('\n')) break;
  }
  return input.split(/\r?\n/)[0];
}

const ajv = new Ajv();
addFormats(ajv, ['email']);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      email: { type: 'string' },
      role: { type: 'string', default: 'user' },
      name: { type: 'string' },
      password: { type: 'string' },
    },
    strict: true,
  });
  const email = normaliseEmail(values.email ?? '');
  if (!ajv.validate(emailSchema, email)) throw new UsageError('--email must be a valid email address');
  const config = loadConfig();
  const role = values.role.trim();
  if (!config.roles.includes(role)) throw new UsageError(`--role must be one of ROLES: ${config.roles.join(', ')}`);
  const password = values.password ?? (await readStdinLine());
  // The same policy as registration: the schema's length bounds, then the email, common-password and strength checks.
  const lengths = chosenPasswordSchema(config.passwordMinLength);
  if (!ajv.validate(lengths, password)) {
    throw new UsageError(`the password must be ${lengths.minLength} to ${lengths.maxLength} characters long`);
  }
  const refusal = passwordRefusal(password, { email, name: values.name });
  if (refusal) throw new UsageError(`the password ${refusal}`);

  const passwordHash = await new PasswordHasher().hash(password);
  const user = await withDatabase(config, (database) =>
    database.store(userStore).create({ email, passwordHash, role, name: values.name?.trim() || null }),
  );
  process.stdout.write(`${user.id}\n`);
}

runUserCommand('user:create', USAGE, main);
