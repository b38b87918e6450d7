import { DataTypes, Op, type Model, type ModelStatic } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import type { AccountTokenPurpose, AccountTokenRecord, AccountTokenStore } from './account-token-store';

/** Account tokens on a relational engine (table `account_tokens`, migration 0007). */
export class SqlAccountTokenStore implements AccountTokenStore {
  private readonly Token: ModelStatic<Model>;

  constructor(private readonly context: SqlStoreContext) {
    this.Token = context.sequelize.define(
      'AccountToken',
      {
        digest: { type: DataTypes.STRING(64), primaryKey: true },
        userId: { type: DataTypes.STRING(64), allowNull: false, field: 'user_id' },
        purpose: { type: DataTypes.STRING(32), allowNull: false },
        expiresAt: { type: DataTypes.DATE(3), allowNull: false, field: 'expires_at' },
      },
      { tableName: 'account_tokens', timestamps: true, createdAt: 'created_at', updatedAt: false },
    );
    context.removeExpiredPeriodically(() => this.deleteExpired());
  }

  create(record: AccountTokenRecord): Promise<void> {
    return this.context.run(async () => void (await this.Token.create({ ...record })));
  }

  find(digest: string, purpose: AccountTokenPurpose, now = new Date()): Promise<AccountTokenRecord | null> {
    return this.context.run(async () => {
      // Through the model, not raw: SQLite gives the expiry back as text, the model makes it a Date everywhere.
      const row = await this.Token.findOne({ where: { digest, purpose, expiresAt: { [Op.gt]: now } } });
      return row ? (row.get({ plain: true }) as AccountTokenRecord) : null;
    });
  }

  consume(digest: string, purpose: AccountTokenPurpose, now = new Date()): Promise<string | null> {
    return this.context.run(async () => {
      const found = await this.find(digest, purpose, now);
      if (!found) return null;
      // The delete decides: of two uses racing past the read, only one deletes the row.
      const deleted = await this.Token.destroy({ where: { digest, purpose, expiresAt: { [Op.gt]: now } } });
      return deleted === 1 ? found.userId : null;
    });
  }

  deleteForUser(userId: string, purpose: AccountTokenPurpose): Promise<number> {
    return this.context.run(() => this.Token.destroy({ where: { userId, purpose } }));
  }

  deleteExpired(now = new Date()): Promise<number> {
    return this.context.run(() => this.Token.destroy({ where: { expiresAt: { [Op.lte]: now } } }));
  }
}
