import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { StoreUnavailableError } from '../errors';
import type { SqlEngine } from './connection-options';

const LOCK_NAME = 'koa_api_service_migrations';
/** PostgreSQL advisory locks take a number: a fixed one for this service's migrations. */
const POSTGRES_LOCK_KEY = 726_100_201;
const POLL_MS = 250;

/** One attempt to take the lock on the transaction's connection, without waiting. */
async function tryLock(sequelize: Sequelize, engine: SqlEngine, transaction: Transaction): Promise<boolean> {
  const select = (sql: string) =>
    sequelize.query<{ locked: unknown }>(sql, {
      type: QueryTypes.SELECT,
      transaction,
      replacements: { name: LOCK_NAME, key: POSTGRES_LOCK_KEY },
    });
  switch (engine) {
    case 'postgres': {
      // Transaction-scoped: released by the COMMIT/ROLLBACK that ends the transaction.
      const [row] = await select('SELECT pg_try_advisory_xact_lock(:key) AS locked');
      return row?.locked === true;
    }
    case 'mysql': {
      // Session-scoped: released explicitly in unlock() (and by the server if the session dies).
      const [row] = await select('SELECT GET_LOCK(:name, 0) AS locked');
      return Number(row?.locked) === 1;
    }
    case 'mssql': {
      // Owned by the transaction: released when it ends. A return value >= 0 means granted.
      const [row] = await select(
        "DECLARE @result int; EXEC @result = sp_getapplock @Resource = :name, @LockMode = 'Exclusive', @LockOwner = 'Transaction', @LockTimeout = 0; SELECT @result AS locked;",
      );
      return Number(row?.locked) >= 0;
    }
    default:
      return true;
  }
}

async function unlock(sequelize: Sequelize, engine: SqlEngine, transaction: Transaction): Promise<void> {
  if (engine === 'mysql')
    await sequelize.query('SELECT RELEASE_LOCK(:name)', { transaction, replacements: { name: LOCK_NAME } });
}

/**
 * Runs `work` while holding a database-wide lock, so instances starting together apply migrations one at a
 * time: the first applies them, the others wait, then find nothing pending. The lock lives on one pinned
 * connection (a transaction) and `work` runs its DDL on other pooled connections. SQLite is an embedded
 * file owned by one process and needs no lock.
 */
export async function withMigrationLock<T>(
  sequelize: Sequelize,
  engine: SqlEngine,
  waitMs: number,
  work: () => Promise<T>,
): Promise<T> {
  if (engine === 'sqlite') return work();
  return sequelize.transaction(async (transaction) => {
    const deadline = Date.now() + waitMs;
    while (!(await tryLock(sequelize, engine, transaction))) {
      if (Date.now() >= deadline) {
        throw new StoreUnavailableError(
          `Another instance held the migration lock for more than ${Math.round(waitMs / 1000)} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    try {
      return await work();
    } finally {
      await unlock(sequelize, engine, transaction);
    }
  });
}
