import { DataTypes, QueryTypes, type ModelStatic, type Model } from 'sequelize';
import type { Page, PageRequest } from '../../stores/kit/pagination';
import { newId } from '../../stores/ids';
import type { SqlStoreContext } from '../../stores/kit/definition';
import { normaliseEmail } from './email';
import type { DatabaseUserStore, NewUser, UserRecord } from './user-store';

function toRecord(row: UserRecord): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.passwordHash, role: row.role, name: row.name ?? null };
}

/**
 * The user store on a relational engine (table `users`, migration 0001). Lookups are on the login and
 * refresh paths: one SELECT each, its SQL built once, rows read raw (no model instances built).
 */
export class SqlUserStore implements DatabaseUserStore {
  private readonly User: ModelStatic<Model>;
  /** The lookups' SQL, built once (exactly the record's columns): no query generation per login or refresh. */
  private readonly findSql: { id: string; email: string };

  constructor(private readonly context: SqlStoreContext) {
    this.User = context.sequelize.define(
      'User',
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        email: { type: DataTypes.STRING(254), allowNull: false },
        passwordHash: { type: DataTypes.STRING(255), allowNull: false, field: 'password_hash' },
        role: { type: DataTypes.STRING(64), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: true },
      },
      { tableName: 'users', timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
    const q = (name: string) => context.sequelize.getQueryInterface().quoteIdentifier(name);
    const select = `SELECT ${q('id')} AS ${q('id')}, ${q('email')} AS ${q('email')}, ${q('password_hash')} AS ${q('passwordHash')}, ${q('role')} AS ${q('role')}, ${q('name')} AS ${q('name')} FROM ${q('users')}`;
    this.findSql = { id: `${select} WHERE ${q('id')} = :value`, email: `${select} WHERE ${q('email')} = :value` };
  }

  private findOne(sql: string, value: string): Promise<UserRecord | null> {
    return this.context.run(async () => {
      const row = await this.context.sequelize.query<UserRecord>(sql, { replacements: { value }, type: QueryTypes.SELECT, plain: true, logging: false });
      return row ? toRecord(row) : null;
    });
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.findOne(this.findSql.email, normaliseEmail(email));
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.findOne(this.findSql.id, id);
  }

  create(user: NewUser): Promise<UserRecord> {
    const record: UserRecord = { id: newId(), email: normaliseEmail(user.email), passwordHash: user.passwordHash, role: user.role, name: user.name ?? null };
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

  list(page: PageRequest): Promise<Page<UserRecord>> {
    return this.context.run(async () => {
      const { rows, count } = await this.User.findAndCountAll({
        attributes: ['id', 'email', 'passwordHash', 'role', 'name'],
        order: [
          ['created_at', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: page.limit,
        offset: page.offset,
        raw: true,
      });
      return { items: (rows as unknown as UserRecord[]).map(toRecord), total: count, limit: page.limit, offset: page.offset };
    });
  }

  updateRole(id: string, role: string): Promise<UserRecord | null> {
    return this.context.run(async () => {
      const [changed] = await this.User.update({ role }, { where: { id } });
      return changed > 0 ? this.findById(id) : null;
    });
  }

  delete(id: string): Promise<boolean> {
    return this.context.run(async () => (await this.User.destroy({ where: { id } })) > 0);
  }
}
