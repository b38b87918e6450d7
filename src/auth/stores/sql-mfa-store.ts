import { Op, type Model, type ModelStatic } from 'sequelize';
import { DuplicateKeyError } from '../../stores/errors';
import type { SqlStoreContext } from '../../stores/kit/definition';
import type { MfaRecord, MfaStore } from './mfa-store';

/** Two-factor credentials on a relational engine (tables `mfa_credentials`, `mfa_recovery_codes`, migration 0010). */
export class SqlMfaStore implements MfaStore {
  private readonly Credential: ModelStatic<Model>;
  private readonly RecoveryCode: ModelStatic<Model>;

  constructor(private readonly context: SqlStoreContext) {
    const { DataTypes } = context;
    this.Credential = context.sequelize.define(
      'MfaCredential',
      {
        userId: { type: DataTypes.STRING(36), primaryKey: true, field: 'user_id' },
        secret: { type: DataTypes.STRING(255), allowNull: false },
        confirmed: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        lastStep: { type: DataTypes.INTEGER, allowNull: true, field: 'last_step' },
      },
      { tableName: 'mfa_credentials', timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
    this.RecoveryCode = context.sequelize.define(
      'MfaRecoveryCode',
      {
        digest: { type: DataTypes.STRING(64), primaryKey: true },
        userId: { type: DataTypes.STRING(36), allowNull: false, field: 'user_id' },
      },
      { tableName: 'mfa_recovery_codes', timestamps: true, createdAt: 'created_at', updatedAt: false },
    );
  }

  find(userId: string): Promise<MfaRecord | null> {
    return this.context.run(async () => {
      const row = await this.Credential.findByPk(userId, { raw: true });
      if (!row) return null;
      const { secret, confirmed, lastStep } = row as unknown as {
        secret: string;
        confirmed: unknown;
        lastStep: number | string | null;
      };
      // BOOLEAN is 0/1 on SQLite, MySQL and SQL Server
      return {
        userId,
        secret,
        confirmed: confirmed === true || Number(confirmed) === 1,
        lastStep: lastStep === null ? null : Number(lastStep),
      };
    });
  }

  async begin(userId: string, secret: string): Promise<boolean> {
    try {
      return await this.context.run(async () => {
        await this.Credential.destroy({ where: { userId, confirmed: false } });
        await this.Credential.create({ userId, secret, confirmed: false, lastStep: null });
        return true;
      });
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false; // the confirmed credential kept its row
      throw error;
    }
  }

  confirm(userId: string, secret: string, step: number, recoveryDigests: readonly string[]): Promise<boolean> {
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        const [confirmed] = await this.Credential.update(
          { confirmed: true, lastStep: step },
          { where: { userId, secret, confirmed: false }, transaction },
        );
        if (confirmed !== 1) return false;
        await this.RecoveryCode.destroy({ where: { userId }, transaction });
        await this.RecoveryCode.bulkCreate(
          recoveryDigests.map((digest) => ({ digest, userId })),
          { transaction },
        );
        return true;
      }),
    );
  }

  useStep(userId: string, step: number): Promise<boolean> {
    return this.context.run(async () => {
      const where = { userId, confirmed: true, [Op.or]: [{ lastStep: null }, { lastStep: { [Op.lt]: step } }] };
      const [changed] = await this.Credential.update({ lastStep: step }, { where });
      return changed === 1;
    });
  }

  useRecoveryCode(userId: string, digest: string): Promise<boolean> {
    return this.context.run(async () => (await this.RecoveryCode.destroy({ where: { digest, userId } })) === 1);
  }

  recoveryCodesLeft(userId: string): Promise<number> {
    return this.context.run(() => this.RecoveryCode.count({ where: { userId } }));
  }

  replaceRecoveryCodes(userId: string, recoveryDigests: readonly string[]): Promise<boolean> {
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        // A write to the credential's row first: it locks the row on every engine (SQLite's transactions take
        // turns), so a racing replacement waits here until this one's codes are in, then replaces them.
        await this.Credential.update(
          { lastStep: this.context.sequelize.col('last_step') },
          { where: { userId, confirmed: true }, transaction },
        );
        if ((await this.Credential.count({ where: { userId, confirmed: true }, transaction })) !== 1) return false;
        await this.RecoveryCode.destroy({ where: { userId }, transaction });
        await this.RecoveryCode.bulkCreate(
          recoveryDigests.map((digest) => ({ digest, userId })),
          { transaction },
        );
        return true;
      }),
    );
  }

  reseal(userId: string, previous: string, next: string): Promise<void> {
    return this.context.run(
      async () => void (await this.Credential.update({ secret: next }, { where: { userId, secret: previous } })),
    );
  }

  remove(userId: string): Promise<boolean> {
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        await this.RecoveryCode.destroy({ where: { userId }, transaction });
        return (await this.Credential.destroy({ where: { userId }, transaction })) > 0;
      }),
    );
  }
}
