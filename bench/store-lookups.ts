// Cost of the auth hot-path lookups on the store (SQLite in memory, one process): the raw/lean lookups the
// stores use vs the same query building model instances. Prints µs per lookup; no assertion (figures only).
// Usage: npx tsx bench/store-lookups.ts [iterations]
import { createHash, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import { refreshTokenStore, userStore } from '../src/auth/stores/definitions';
import { loadConfig } from '../src/config/config';
import { createLogger } from '../src/logger';
import { createDatabase } from '../src/stores/create-database';
import type { SqlDatabase } from '../src/stores/sql/sql-database';

async function perLookup(iterations: number, lookup: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i += 1) await lookup(); // warm-up
  const started = process.cpuUsage();
  for (let i = 0; i < iterations; i += 1) await lookup();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}

async function main(): Promise<void> {
  const iterations = Number(process.argv[2] ?? 5_000);
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:' });
  const database = createDatabase(
    config,
    createLogger({ env: 'test', logLevel: 'silent' }),
    [userStore, refreshTokenStore],
    { cleanupJob: false },
  ) as SqlDatabase;
  await database.connect();
  await database.migrate();
  const token = createHash('sha256').update(randomBytes(32)).digest('hex');
  const user = await database
    .store(userStore)
    .create({ email: 'bench@example.com', passwordHash: 'x', role: 'user', name: null });
  await database
    .store(refreshTokenStore)
    .create({ userId: user.id, token, expiresAt: new Date(Date.now() + 3_600_000) });
  const RefreshToken = database.sequelize.model('RefreshToken');
  const User = database.sequelize.model('User');
  const rows = [
    ['refresh token, store (raw)', () => database.store(refreshTokenStore).findByToken(token)],
    [
      'refresh token, model instance',
      () => RefreshToken.findOne({ where: { token, expiresAt: { [Op.gt]: new Date() } } }),
    ],
    ['user by id, store (raw)', () => database.store(userStore).findById(user.id)],
    ['user by id, model instance', () => User.findByPk(user.id)],
    ['user by email, store (raw)', () => database.store(userStore).findByEmail('bench@example.com')],
    ['user by email, model instance', () => User.findOne({ where: { email: 'bench@example.com' } })],
  ] as const;
  for (const [label, lookup] of rows)
    console.log(`${label.padEnd(32)} ${(await perLookup(iterations, lookup)).toFixed(1)} µs CPU per lookup`);
  await database.close();
}

void main();
