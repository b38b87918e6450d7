import { DataTypes, type ModelStatic, type Model } from 'sequelize';
import type { Page, PageRequest } from '../../stores/kit/pagination';
import { newId } from '../../stores/ids';
import type { SqlStoreContext } from '../../stores/kit/definition';
import { normaliseEmail } from './email';
import type { DatabaseUserStore, NewUser, UserRecord } from './user-store';

/** Exactly the record's fields, selected by name: no other column is read. */
const RECORD_ATTRIBUTES = ['id', 'email', 'passwordHash', 'role', 'name'];

function toRecord(row: UserRecord): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.passwordHash, role: row.role, name: row.name ?? null };
}

/**
 * The user store on a relational engine (table `users`, migration 0001). Lookups are on the login and
 * refresh paths: one SELECT each, rows read raw (no model instances built).
 */
export class SqlUserStore implements DatabaseUserStore {
  private readonly User: ModelStatic<Model>;

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
  }

  private findOne(where: Record<string, string>): Promise<UserRecord | null> {
    return this.context.run(async () => {
      const row = await this.User.findOne({ where, attributes: RECORD_ATTRIBUTES, raw: true });
      return row ? toRecord(row as unknown as UserRecord) : null;
    });
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.findOne({ email: normaliseEmail(email) });
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.findOne({ id });
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
        attributes: RECORD_ATTRIBUTES,
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
