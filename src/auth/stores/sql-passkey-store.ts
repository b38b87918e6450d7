import { Op, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import {
  MAX_PASSKEYS_PER_USER,
  newPasskeyRecord,
  type NewPasskey,
  type PasskeyRecord,
  type PasskeyStore,
  type PasskeyTransport,
} from './passkey-store';

export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: Buffer | Uint8Array;
  publicKey: Buffer | Uint8Array;
  counter: number | string;
  transports: string;
  name: string;
  createdAt: Date | string;
  lastUsedAt: Date | string | null;
}

export const toPasskey = (row: PasskeyRow): PasskeyRecord => ({
  id: row.id,
  userId: row.userId,
  credentialId: Buffer.from(row.credentialId),
  publicKey: Buffer.from(row.publicKey),
  counter: Number(row.counter), // BIGINT comes back as text on PostgreSQL and MySQL
  transports: row.transports ? (row.transports.split(',') as PasskeyTransport[]) : [],
  name: row.name,
  createdAt: new Date(row.createdAt),
  lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt),
});

/** Passkeys on a relational engine (table `passkeys`, migration 0012). */
export class SqlPasskeyStore implements PasskeyStore {
  private readonly Passkey: ModelStatic<Model>;

  constructor(private readonly context: SqlStoreContext) {
    const { DataTypes } = context;
    this.Passkey = context.sequelize.define(
      'Passkey',
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        userId: { type: DataTypes.STRING(36), allowNull: false, field: 'user_id' },
        credentialId: { type: DataTypes.BLOB, allowNull: false, field: 'credential_id' },
        publicKey: { type: DataTypes.BLOB, allowNull: false, field: 'public_key' },
        counter: { type: DataTypes.BIGINT, allowNull: false },
        transports: { type: DataTypes.STRING(100), allowNull: false },
        name: { type: DataTypes.STRING(64), allowNull: false },
        createdAt: { type: DataTypes.DATE(3), allowNull: false, field: 'created_at' },
        lastUsedAt: { type: DataTypes.DATE(3), allowNull: true, field: 'last_used_at' },
      },
      { tableName: 'passkeys', timestamps: false },
    );
  }

  add(passkey: NewPasskey): Promise<PasskeyRecord> {
    return this.context.run(async () => {
      const record = newPasskeyRecord(passkey);
      await this.Passkey.create({ ...record, transports: record.transports.join(',') });
      return record;
    });
  }

  findByCredentialId(credentialId: Buffer): Promise<PasskeyRecord | null> {
    return this.context.run(async () => {
      const row = await this.Passkey.findOne({ where: { credentialId }, raw: true });
      return row ? toPasskey(row as unknown as PasskeyRow) : null;
    });
  }

  listByUser(userId: string): Promise<PasskeyRecord[]> {
    return this.context.run(async () => {
      const rows = await this.Passkey.findAll({
        where: { userId },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
        limit: MAX_PASSKEYS_PER_USER,
        raw: true,
      });
      return (rows as unknown as PasskeyRow[]).map(toPasskey);
    });
  }

  recordUse(id: string, counter: number, usedAt: Date): Promise<boolean> {
    return this.context.run(async () => {
      // One conditional update decides: a counter not above the stored one (a clone) changes nothing.
      const advanced: WhereOptions = counter === 0 ? { counter: 0 } : { counter: { [Op.lt]: counter } };
      const [updated] = await this.Passkey.update({ counter, lastUsedAt: usedAt }, { where: { id, ...advanced } });
      // MySQL counts changed rows, not matched ones: a use of a counterless passkey at the same millisecond changes nothing.
      return updated === 1 || (counter === 0 && (await this.Passkey.count({ where: { id, counter: 0 } })) === 1);
    });
  }

  remove(userId: string, id: string): Promise<number> {
    return this.context.run(() => this.Passkey.destroy({ where: { userId, id } }));
  }

  removeUser(userId: string): Promise<number> {
    return this.context.run(() => this.Passkey.destroy({ where: { userId } }));
  }
}
