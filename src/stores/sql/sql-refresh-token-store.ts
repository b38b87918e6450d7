import { Op } from 'sequelize';
import { guarded } from '../guard';
import type { RefreshTokenRecord, RefreshTokenStore } from '../types';
import type { RefreshTokenRow } from './models';
import { translateSqlError } from './sql-errors';

/** The refresh-token store on a relational engine (table `refresh_tokens`). */
export class SqlRefreshTokenStore implements RefreshTokenStore {
  constructor(
    private readonly RefreshToken: typeof RefreshTokenRow,
    private readonly timeoutMs: number,
  ) {}

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return guarded(operation, this.timeoutMs, translateSqlError);
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.run(async () => {
      // Expiry is checked in the query itself, so an expired row the cleanup job has not removed yet is never returned.
      const row = await this.RefreshToken.findOne({ where: { token, expiresAt: { [Op.gt]: new Date() } } });
      return row ? { token: row.token, userId: row.userId, expiresAt: new Date(row.expiresAt) } : null;
    });
  }

  create(record: RefreshTokenRecord): Promise<void> {
    return this.run(async () => {
      await this.RefreshToken.create({ token: record.token, userId: record.userId, expiresAt: record.expiresAt });
    });
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.run(async () => (await this.RefreshToken.destroy({ where: { token } })) > 0);
  }

  /**
   * Removes every record expired at `now`, in one statement: several instances running it at once only
   * compete to delete the same rows, which is harmless. Returns how many rows this call removed.
   */
  deleteExpired(now: Date = new Date()): Promise<number> {
    return this.run(() => this.RefreshToken.destroy({ where: { expiresAt: { [Op.lte]: now } } }));
  }
}
