import { cast, DataTypes, Op, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import type { KeyedRead } from '../../stores/sql/direct-reads';
import type { NewRefreshToken, RefreshTokenRecord, RefreshTokenStore } from './refresh-token-store';

interface RefreshTokenRow {
  token: string;
  userId: string;
  /** A Date, or on SQLite the stored text ('2026-01-02 03:04:05.678 +00:00'): both parse with new Date(). */
  expiresAt: Date | string;
  familyId: string | null;
  retiredAt: Date | string | null;
}

/**
 * The refresh-token store on a relational engine (table `refresh_tokens`, migrations 0002 and 0003). The lookup (the
 * refresh hot path) and the login's INSERT are one statement each, the SQL built once and prepared by the driver
 * (SqlStoreContext.selectByKey and execute), the row read raw. Expired rows are removed by the in-process cleanup
 * job (registered here) and never returned before that.
 */
export class SqlRefreshTokenStore implements RefreshTokenStore {
  private readonly RefreshToken: ModelStatic<Model>;
  /** The lookup, built once: no query generation per refresh. */
  private readonly lookup: KeyedRead;
  /** The login's INSERT, built once: run through the driver (SqlStoreContext.execute). */
  private readonly insert: string;

  constructor(private readonly context: SqlStoreContext) {
    this.RefreshToken = context.sequelize.define(
      'RefreshToken',
      {
        token: { type: DataTypes.CHAR(64), primaryKey: true },
        userId: { type: DataTypes.STRING(64), allowNull: false, field: 'user_id' },
        expiresAt: { type: DataTypes.DATE(3), allowNull: false, field: 'expires_at' },
        familyId: { type: DataTypes.STRING(64), allowNull: true, field: 'family_id' },
        retiredAt: { type: DataTypes.DATE(3), allowNull: true, field: 'retired_at' },
      },
      { tableName: 'refresh_tokens', timestamps: true, createdAt: 'created_at', updatedAt: false },
    );
    context.removeExpiredPeriodically(() => this.deleteExpired());
    const q = (name: string) => context.sequelize.getQueryInterface().quoteIdentifier(name);
    const select =
      `SELECT ${q('token')} AS ${q('token')}, ${q('user_id')} AS ${q('userId')}, ${q('expires_at')} AS ${q('expiresAt')}, ` +
      `${q('family_id')} AS ${q('familyId')}, ${q('retired_at')} AS ${q('retiredAt')} FROM ${q('refresh_tokens')}`;
    this.lookup = {
      select,
      column: q('token'),
      field: 'token',
      placeholder: this.onMssql ? 'CAST(? AS CHAR(64))' : '?',
    };
    const columns = ['token', 'user_id', 'expires_at', 'family_id', 'created_at'];
    this.insert =
      `INSERT INTO ${q('refresh_tokens')} (${columns.map(q).join(', ')}) ` +
      `VALUES (${columns.map(() => '?').join(', ')})`;
  }

  private get onMssql(): boolean {
    return this.context.engine === 'mssql';
  }

  /**
   * A digest as the `token` column's own type. On SQL Server, Sequelize writes every string as N'…'
   * (NVARCHAR), which outranks the CHAR(64) column: the server would convert the column on every row and
   * scan the primary key (and lock as it scans, in retire's UPDATE). Cast once, the value matches the
   * column and the lookup is an index seek. The hex digest is ASCII, so nothing is lost in the cast.
   */
  private digest(token: string): string | { [Op.eq]: ReturnType<typeof cast> } {
    return this.onMssql ? { [Op.eq]: cast(token, 'CHAR(64)') } : token; // a bare cast would be a condition of its own
  }

  findByToken(token: string): Promise<RefreshTokenRecord | null> {
    return this.context.run(async () => {
      const row = await this.context.selectByKey<RefreshTokenRow>(this.lookup, token);
      if (!row) return null;
      // Expiry compared here, to the millisecond, so an expired row the cleanup job has not removed yet is
      // never returned (a date in raw SQL would be formatted per dialect, some without milliseconds).
      const expiresAt = new Date(row.expiresAt);
      if (expiresAt.getTime() <= Date.now()) return null;
      return {
        token: row.token,
        userId: row.userId,
        expiresAt,
        familyId: row.familyId ?? row.token, // a row from before families is a family of its own
        retiredAt: row.retiredAt === null ? null : new Date(row.retiredAt),
      };
    });
  }

  create(record: NewRefreshToken): Promise<void> {
    const { token, userId, expiresAt, familyId } = record;
    return this.context.run(() =>
      this.context.execute(this.insert, [token, userId, expiresAt, familyId ?? token, new Date()]),
    );
  }

  deleteByToken(token: string): Promise<boolean> {
    return this.context.run(
      async () => (await this.RefreshToken.destroy({ where: { token: this.digest(token) } })) > 0,
    );
  }

  retire(token: string, at: Date): Promise<boolean> {
    // One conditional UPDATE: the database serialises racing calls on the row, and only one sees retired_at NULL.
    return this.context.run(async () => {
      const [changed] = await this.RefreshToken.update(
        { retiredAt: at },
        { where: { token: this.digest(token), retiredAt: null } },
      );
      return changed > 0;
    });
  }

  /**
   * A row written without a family (by an instance older than migration 0003 during a rolling upgrade) is a
   * family of its own, named by its digest, as findByToken reports it: it goes with that "family" too.
   */
  deleteFamily(familyId: string): Promise<number> {
    const where: WhereOptions = { [Op.or]: [{ familyId }, { familyId: null, token: this.digest(familyId) }] };
    // Twice: on PostgreSQL (READ COMMITTED) a DELETE that waited for a racing rotation's lock on a member
    // re-checks only the rows it had seen, not the successor that rotation committed; the second statement
    // sees it. Family revocation is rare (logout, reuse detected): the extra statement costs nothing that matters.
    return this.context.run(
      async () => (await this.RefreshToken.destroy({ where })) + (await this.RefreshToken.destroy({ where })),
    );
  }

  /** Retire and successor in one transaction: both committed, or neither. */
  rotate(token: string, successor: NewRefreshToken & { familyId: string }, at: Date): Promise<boolean> {
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        const [changed] = await this.RefreshToken.update(
          { retiredAt: at },
          { where: { token: this.digest(token), retiredAt: null }, transaction },
        );
        if (changed === 0) return false;
        await this.RefreshToken.create({ ...successor }, { transaction });
        return true;
      }),
    );
  }

  deleteByUser(userId: string): Promise<number> {
    return this.context.run(() => this.RefreshToken.destroy({ where: { userId } }));
  }

  /**
   * Removes every record expired at `now`, in one statement: several instances running it at once only
   * compete to delete the same rows, which is harmless. Returns how many rows this call removed.
   */
  deleteExpired(now: Date = new Date()): Promise<number> {
    return this.context.run(() => this.RefreshToken.destroy({ where: { expiresAt: { [Op.lte]: now } } }));
  }
}
