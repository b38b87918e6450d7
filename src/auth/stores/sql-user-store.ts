import { DataTypes, type ModelStatic, type Model } from 'sequelize';
import { newId } from '../../stores/ids';
import type { SqlStoreContext } from '../../stores/kit/definition';
import { normaliseEmail } from './email';
import type { NewUser, UserRecord, UserStore } from './user-store';

/** Exactly the record's fields, selected by name: no other column is read. */
const RECORD_ATTRIBUTES = ['id', 'email', 'passwordHash', 'role', 'name'];

function toRecord(row: UserRecord): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.passwordHash, role: row.role, name: row.name ?? null };
}

/**
 * The user store on a relational engine (table `users`, migration 0001). Lookups are on the login and
 * refresh paths: one SELECT each, rows read raw (no model instances built).
 */
export class SqlUserStore implements UserStore {
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
}
