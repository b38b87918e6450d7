import { DataTypes, literal, Op, type ModelStatic, type Model, type WhereOptions } from 'sequelize';
import type { KeyCondition } from '../../stores/kit/keyset';
import { listPage } from '../../stores/kit/list-page';
import type { ResourcePage } from '../../stores/kit/resource-store';
import { newId } from '../../stores/ids';
import type { SqlStoreContext } from '../../stores/kit/definition';
import { boundedCount } from '../../stores/sql/bounded-count';
import type { KeyedRead } from '../../stores/sql/direct-reads';
import { normaliseEmail } from './email';
import {
  LAST_ADMIN,
  newUserRecord,
  USERS_ORDER,
  type DatabaseUserStore,
  type KeepRole,
  type ListedUser,
  type NewUser,
  type UserListQuery,
  type UserRecord,
} from './user-store';

function toRecord(row: UserRecord): UserRecord {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.passwordHash,
    role: row.role,
    name: row.name ?? null,
    sessionVersion: Number(row.sessionVersion ?? 0), // some drivers read integers as strings
    emailVerified: row.emailVerified === true || Number(row.emailVerified) === 1, // BOOLEAN is 0/1 on SQLite, MySQL and SQL Server
  };
}

const COLUMNS = ['id', 'email', 'passwordHash', 'role', 'name', 'sessionVersion', 'emailVerified'];

/**
 * The user store on a relational engine (table `users`, migration 0001). Lookups are on the login and
 * refresh paths: one SELECT each, its SQL built once, rows read raw (no model instances built).
 */
export class SqlUserStore implements DatabaseUserStore {
  private readonly User: ModelStatic<Model>;
  /** The lookups' SQL, built once (exactly the record's columns): no query generation per login or refresh. */
  private readonly lookups: { id: KeyedRead; email: KeyedRead };

  constructor(private readonly context: SqlStoreContext) {
    this.User = context.sequelize.define(
      'User',
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        email: { type: DataTypes.STRING(254), allowNull: false },
        passwordHash: { type: DataTypes.STRING(255), allowNull: false, field: 'password_hash' },
        role: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: true },
        sessionVersion: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0, field: 'session_version' },
        emailVerified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false, field: 'email_verified' },
      },
      { tableName: 'users', timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
    const q = (name: string) => context.sequelize.getQueryInterface().quoteIdentifier(name);
    const select = `SELECT ${q('id')} AS ${q('id')}, ${q('email')} AS ${q('email')}, ${q('password_hash')} AS ${q('passwordHash')}, ${q('role')} AS ${q('role')}, ${q('name')} AS ${q('name')}, ${q('session_version')} AS ${q('sessionVersion')}, ${q('email_verified')} AS ${q('emailVerified')} FROM ${q('users')}`;
    this.lookups = {
      id: { select, column: q('id'), field: 'id' },
      email: { select, column: q('email'), field: 'email' },
    };
    // "Someone else holds the role": a derived table, because MySQL refuses a subquery on the table it updates.
    this.othersHoldSql = (role: string) =>
      `(SELECT COUNT(*) FROM (SELECT ${q('id')} FROM ${q('users')} WHERE ${q('role')} = ${context.sequelize.escape(role)}) ${q('holders')}) > 1`;
  }

  private readonly othersHoldSql: (role: string) => string;

  /**
   * The condition that keeps at least one holder of `guard.keepRole`: the row does not hold it, or others
   * do too. Part of the UPDATE/DELETE itself, so the check and the change are one statement.
   */
  private keeping(id: string, guard: KeepRole | undefined, newRole?: string): WhereOptions {
    if (!guard || newRole === guard.keepRole) return { id };
    return { id, [Op.or]: [{ role: { [Op.ne]: guard.keepRole } }, literal(this.othersHoldSql(guard.keepRole))] };
  }

  /** After a guarded change touched no row: LAST_ADMIN when the user exists (the guard refused), else not found. */
  private async refusedOrMissing(id: string): Promise<typeof LAST_ADMIN | null> {
    return (await this.findById(id)) ? LAST_ADMIN : null;
  }

  private findOne(lookup: KeyedRead, value: string): Promise<UserRecord | null> {
    return this.context.run(async () => {
      const row = await this.context.selectByKey<UserRecord>(lookup, value); // login and the guards' reads: the driver's prepared statement
      return row ? toRecord(row) : null;
    });
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.findOne(this.lookups.email, normaliseEmail(email));
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.findOne(this.lookups.id, id);
  }

  create(user: NewUser): Promise<UserRecord> {
    const record = newUserRecord(user, newId());
    return this.context.run(async () => {
      await this.User.create({ ...record });
      return record;
    });
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    return this.context.run(async () => {
      await this.User.update({ passwordHash }, { where: { id } });
    });
  }

  changePassword(id: string, passwordHash: string): Promise<number | undefined> {
    return this.context.run(async () => {
      const [changed] = await this.User.update(
        { passwordHash, sessionVersion: literal('session_version + 1') },
        { where: { id } },
      );
      return changed > 0 ? (await this.findById(id))?.sessionVersion : undefined;
    });
  }

  markEmailVerified(id: string): Promise<boolean> {
    return this.context.run(async () => {
      const [changed] = await this.User.update({ emailVerified: true }, { where: { id } });
      return changed > 0 || (await this.findById(id)) !== null; // MySQL counts only rows it changed
    });
  }

  endSessions(id: string): Promise<boolean> {
    return this.context.run(async () => {
      const [changed] = await this.User.update({ sessionVersion: literal('session_version + 1') }, { where: { id } });
      return changed > 0;
    });
  }

  list(query: UserListQuery): Promise<ResourcePage<ListedUser>> {
    const column = (field: string) => (field === 'createdAt' ? 'created_at' : field);
    const condition = ({ field, is, value }: KeyCondition): WhereOptions => {
      if (is === 'same') return { [column(field)]: value ?? null };
      if (is === 'notNull') return { [column(field)]: { [Op.ne]: null } };
      return { [column(field)]: { [is === 'greater' ? Op.gt : Op.lt]: value } };
    };
    return this.context.run(() =>
      listPage<ListedUser>({ ...query, where: [], sort: USERS_ORDER }, () => false, {
        read: async (segment, limit, offset) => {
          const rows = await this.User.findAll({
            attributes: [...COLUMNS, 'created_at'],
            where: { [Op.and]: segment.where.map(condition) },
            order: segment.order.map(({ field, descending }): [string, string] => [
              column(field),
              descending ? 'DESC' : 'ASC',
            ]),
            limit,
            offset,
            raw: true,
          });
          return (rows as unknown as (UserRecord & { created_at: Date | string })[]).map((row) => ({
            ...toRecord(row),
            createdAt: new Date(row.created_at),
          }));
        },
        count: (upTo) => boundedCount(this.User, undefined, upTo),
      }),
    );
  }

  updateRole(id: string, role: string, guard?: KeepRole): Promise<UserRecord | null | typeof LAST_ADMIN> {
    return this.context.run(async () => {
      const [changed] = await this.User.update({ role }, { where: this.keeping(id, guard, role) });
      const user = await this.findById(id);
      // No row changed: no such user, the same role already (MySQL counts only rows it changed), or the guard.
      if (changed > 0 || !user) return user;
      return user.role === role ? user : LAST_ADMIN;
    });
  }

  delete(id: string, guard?: KeepRole): Promise<boolean | typeof LAST_ADMIN> {
    return this.context.run(async () => {
      if ((await this.User.destroy({ where: this.keeping(id, guard) })) > 0) return true;
      return guard ? ((await this.refusedOrMissing(id)) ?? false) : false;
    });
  }
}
