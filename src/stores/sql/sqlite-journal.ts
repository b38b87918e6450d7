import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../../logger';

/**
 * Puts a SQLite file in write-ahead-log mode (https://sqlite.org/wal.html), once at start-up. The mode is
 * kept in the file, so every later connection uses it: the service's own (Sequelize opens one per
 * transaction beside its shared one), the db:migrate CLI's, a backup's.
 *
 * Why: in the default rollback-journal mode a reader holding the file (another of the service's
 * connections, the CLI, `sqlite3` at a shell) makes every commit wait, and a commit makes every read wait;
 * with the log, readers and the one writer do not block each other. A read also costs less (no check for a
 * hot journal, no re-read of the file header): the refresh token's lookup went from ~55 to ~43 µs of CPU.
 * Durability is unchanged: `synchronous` stays FULL (SQLite's default), so each commit is synced to the log.
 *
 * The file then has two companions, `-wal` and `-shm`, which belong with it (docs/databases.md: copy the
 * database with `sqlite3 app.sqlite ".backup copy.sqlite"`, not by copying the file alone), and it must
 * live on a local disk: the log's index is shared memory, which a network file system does not share.
 * An in-memory database has no log and is left as it is.
 */
export async function useWriteAheadLog(sequelize: Sequelize, logger: Logger): Promise<void> {
  let mode: string;
  try {
    // One try (Sequelize retries SQLITE_BUSY five times): SQLite's own busy wait already gives it a second.
    const options = { type: QueryTypes.SELECT, logging: false, retry: { max: 1 } } as const;
    const [row] = await sequelize.query<{ journal_mode: string }>('PRAGMA journal_mode = WAL', options);
    mode = row?.journal_mode ?? 'unknown';
  } catch (error) {
    // The switch needs the file to itself for a moment (another process mid-transaction: SQLITE_BUSY). The
    // service is correct in either mode, so it starts, and the next start switches.
    logger.warn(
      { err: error },
      'sqlite could not switch to write-ahead-log mode now: readers and writers block each other',
    );
    return;
  }
  // SQLite answers with the mode it is in: the old one when it cannot switch (a file system without shared memory).
  if (mode.toLowerCase() !== 'wal')
    logger.warn(
      { journalMode: mode },
      'sqlite stays out of write-ahead-log mode: readers and writers block each other',
    );
}
