import { DataTypes, Op, QueryTypes, type Model, type ModelStatic } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-token-store';

interface RefreshTokenRow {
  token: string;
  userId: string;
  /** A Date, or on SQLite the stored text ('2026-01-02 03:04:05.678 +00:00'): both parse with new Date(). */
  expiresAt: Date | string;
}

/**
 * The refresh-token store on a relational engine (table `refresh_tokens`, migration 0002). The lookup is the
 * refresh hot path: one SELECT, its SQL built once, the row read raw (no model instance built). Expired rows are removed by the
 * in-process cleanup job (registered here) and never returned before that.
 */
export class SqlRefreshTokenStore implements RefreshTokenStore {
  private readonly RefreshToken: ModelStatic<Model>;
  /** The lookup's SQL, built once: no query generation per refresh. */
  private readonly findSql: string;

  constructor(private readonly context: SqlStoreContext) {
    this.RefreshToken = context.sequelize.define(
      'RefreshToken',
      {
        token: { type: DataTypes.CHAR(64), primaryKey: true },
        userId: { type: DataTypes.STRING(64), allowNull: false, field: 'user_id' },
        expiresAt: { type: DataTypes.DATE(3), allowNull: false, field: 'expires_at' },
      },
      { tableName: 'refresh_tokens', timestamps: true, createdAt: 'created_at', updatedAt: false },
    );
    context.removeExpiredPeriodically(() => this.deleteExpired());
    const q = (name: string) => context.sequelize.getQueryInterface().quoteIdentifier(name);
    this.findSql =
      `SELECT ${q('token')} AS ${q('token')}, ${q('user_id')} AS ${q('userId')}, ${q('expires_at')} AS ${q('expiresAt')} ` +
      `FROM ${q('refresh_tokens')} WHERE ${q('token')} = :token`;
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.context.run(async () => {
      const row = await this.context.sequelize.query<RefreshTokenRow>(this.findSql, {
        replacements: { token },
        type: QueryTypes.SELECT,
        plain: true,
        logging: false,
      });
      if (!row) return null;
      // Expiry compared here, to the millisecond, so an expired row the cleanup job has not removed yet is
      // never returned (a date in raw SQL would be formatted per dialect, some without milliseconds).
      const expiresAt = new Date(row.expiresAt);
      return expiresAt.getTime() > Date.now() ? { token: row.token, userId: row.userId, expiresAt } : null;
    });
  }

  create(record: RefreshTokenRecord): Promise<void> {
    return this.context.run(async () => {
      await this.RefreshToken.create({ token: record.token, userId: record.userId, expiresAt: record.expiresAt });
    });
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.context.run(async () => (await this.RefreshToken.destroy({ where: { token } })) > 0);
  }

  /**
   * Removes every record expired at `now`, in one statement: several instances running it at once only
   * compete to delete the same rows, which is harmless. Returns how many rows this call removed.
   */
  deleteExpired(now: Date = new Date()): Promise<number> {
    return this.context.run(() => this.RefreshToken.destroy({ where: { expiresAt: { [Op.lte]: now } } }));
  }
}
