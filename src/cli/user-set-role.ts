// npm run user:set-role -- --email a@example.com --role admin
// Changes a database user's role (USER_STORE=database; DATABASE_URL / MONGO_URI; migrations applied first).
// The role must be one of ROLES. It reaches the user's next access token: refresh reads the user again.
import { parseArgs } from 'node:util';
import { userStore } from '../auth/stores/definitions';
import { loadConfig } from '../config/config';
import { runUserCommand, UsageError, withDatabase } from './user-cli';

const USAGE = 'usage: npm run user:set-role -- --email <email> --role <role>';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { email: { type: 'string' }, role: { type: 'string' } }, strict: true });
  if (!values.email || !values.role) throw new UsageError('--email and --role are required');
  const config = loadConfig();
  const role = values.role.trim();
  if (!config.roles.includes(role)) throw new UsageError(`--role must be one of ROLES: ${config.roles.join(', ')}`);

  const email = values.email;
  await withDatabase(config, async (database) => {
    const users = database.store(userStore);
    const user = await users.findByEmail(email); // the store normalises the email
    if (!user) throw new UsageError(`no user has the email ${email.trim().toLowerCase()}`);
    await users.updateRole(user.id, role);
    process.stdout.write(`${user.id} ${user.role} -> ${role}\n`);
  });
}

runUserCommand('user:set-role', USAGE, main);
