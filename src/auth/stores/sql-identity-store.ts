import type { Model, ModelStatic } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import type { IdentityStore, LinkedIdentity } from './identity-store';

export interface IdentityRow {
  issuer: string;
  subject: string;
  userId: string;
  provider: string;
  linkedAt: Date | string;
}

export const toIdentity = (row: IdentityRow): LinkedIdentity => ({
  issuer: row.issuer,
  subject: row.subject,
  userId: row.userId,
  provider: row.provider,
  linkedAt: new Date(row.linkedAt),
});

/** Linked identities on a relational engine (table `linked_identities`, migration 0011). */
export class SqlIdentityStore implements IdentityStore {
  private readonly Identity: ModelStatic<Model>;

  constructor(private readonly context: SqlStoreContext) {
    const { DataTypes } = context;
    this.Identity = context.sequelize.define(
      'LinkedIdentity',
      {
        issuer: { type: DataTypes.STRING(255), primaryKey: true },
        subject: { type: DataTypes.STRING(255), primaryKey: true },
        userId: { type: DataTypes.STRING(36), allowNull: false, field: 'user_id' },
        provider: { type: DataTypes.STRING(64), allowNull: false },
        linkedAt: { type: DataTypes.DATE(3), allowNull: false, field: 'created_at' },
      },
      { tableName: 'linked_identities', timestamps: false },
    );
  }

  find(issuer: string, subject: string): Promise<LinkedIdentity | null> {
    return this.context.run(async () => {
      const row = await this.Identity.findOne({ where: { issuer, subject }, raw: true });
      return row ? toIdentity(row as unknown as IdentityRow) : null;
    });
  }

  listByUser(userId: string): Promise<LinkedIdentity[]> {
    return this.context.run(async () => {
      const rows = await this.Identity.findAll({
        where: { userId },
        order: [
          ['linkedAt', 'ASC'],
          ['issuer', 'ASC'],
        ],
        raw: true,
      });
      return (rows as unknown as IdentityRow[]).map(toIdentity);
    });
  }

  link(identity: Omit<LinkedIdentity, 'linkedAt'>): Promise<LinkedIdentity> {
    return this.context.run(async () => {
      const linked = { ...identity, linkedAt: new Date() };
      await this.Identity.create(linked);
      return linked;
    });
  }

  unlink(userId: string, issuer: string): Promise<number> {
    return this.context.run(() => this.Identity.destroy({ where: { userId, issuer } }));
  }

  removeUser(userId: string): Promise<number> {
    return this.context.run(() => this.Identity.destroy({ where: { userId } }));
  }
}
