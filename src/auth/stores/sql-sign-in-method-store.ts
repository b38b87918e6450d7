import { QueryTypes, type Model, type ModelStatic, type Transaction } from 'sequelize';
import type { SqlStoreContext } from '../../stores/kit/definition';
import { newPasskeyRecord, type NewPasskey, type PasskeyRecord } from './passkey-store';
import type { MethodRemoval, MethodRemovalResult, SignInMethodStore, WaysIn } from './sign-in-method-store';
import { toIdentity, type IdentityRow } from './sql-identity-store';
import { toPasskey, type PasskeyRow } from './sql-passkey-store';
import { newUserRecord, type NewUser, type UserRecord } from './user-store';

/**
 * The ways in on a relational engine, through the models the users, passkey and identity stores defined on
 * the connection (this store depends on them). Every removal locks the user's row before it counts: two
 * removals for one user queue there, and the second counts what the first left.
 */
export class SqlSignInMethodStore implements SignInMethodStore {
  constructor(private readonly context: SqlStoreContext) {}

  private model(name: 'User' | 'Passkey' | 'LinkedIdentity'): ModelStatic<Model> {
    return this.context.sequelize.model(name);
  }

  removeUnlessLast(
    userId: string,
    removal: MethodRemoval,
    keeps: (left: WaysIn) => boolean,
  ): Promise<MethodRemovalResult> {
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        const passwordHash = await this.lockUser(userId, transaction);
        if (passwordHash === null) return { outcome: 'not-found' };
        // One after the other: a transaction is one connection, and SQL Server's takes one request at a time.
        const passkeyRows = await this.model('Passkey').findAll({ where: { userId }, raw: true, transaction });
        const identityRows = await this.model('LinkedIdentity').findAll({ where: { userId }, raw: true, transaction });
        const passkeys = (passkeyRows as unknown as PasskeyRow[]).map(toPasskey);
        const identities = (identityRows as unknown as IdentityRow[]).map(toIdentity);
        const going =
          'passkeyId' in removal
            ? { passkeys: passkeys.filter((passkey) => passkey.id === removal.passkeyId), identities: [] }
            : { passkeys: [], identities: identities.filter((identity) => identity.issuer === removal.issuer) };
        if (going.passkeys.length + going.identities.length === 0) return { outcome: 'not-found' };
        if (
          !keeps({
            passwordHash,
            passkeys: passkeys.length - going.passkeys.length,
            identities: identities.length - going.identities.length,
          })
        )
          return { outcome: 'last-way' };
        if ('passkeyId' in removal)
          await this.model('Passkey').destroy({ where: { userId, id: removal.passkeyId }, transaction });
        else await this.model('LinkedIdentity').destroy({ where: { userId, issuer: removal.issuer }, transaction });
        return { outcome: 'removed', ...going };
      }),
    );
  }

  /**
   * The user's password hash, read with the row locked until the transaction ends (FOR UPDATE on PostgreSQL and
   * MySQL, UPDLOCK on SQL Server); null when there is no such user. SQLite has no row locks: its transactions
   * take turns in the process (SqlStoreContext.transaction), and its file is one process's.
   */
  private async lockUser(userId: string, transaction: Transaction): Promise<string | null> {
    if (this.context.engine === 'mssql') {
      // Sequelize writes no lock hint on SQL Server (its `lock` option is FOR UPDATE only): the hint is written
      // here. UPDLOCK holds the row until the transaction ends, as FOR UPDATE does; ROWLOCK keeps it to the row.
      const rows = await this.context.sequelize.query<{ passwordHash: string }>(
        'SELECT [password_hash] AS [passwordHash] FROM [users] WITH (UPDLOCK, ROWLOCK) WHERE [id] = :id',
        {
          replacements: { id: userId },
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      return rows[0]?.passwordHash ?? null;
    }
    const row = await this.model('User').findOne({
      where: { id: userId },
      attributes: ['passwordHash'],
      lock: transaction.LOCK.UPDATE,
      raw: true,
      transaction,
    });
    return row ? (row as unknown as { passwordHash: string }).passwordHash : null;
  }

  createWithPasskey(
    user: NewUser & { id: string },
    passkey: Omit<NewPasskey, 'userId'>,
  ): Promise<{ user: UserRecord; passkey: PasskeyRecord }> {
    const created = newUserRecord(user, user.id);
    const record = newPasskeyRecord({ ...passkey, userId: user.id });
    return this.context.run(() =>
      this.context.transaction(async (transaction) => {
        await this.model('User').create({ ...created }, { transaction });
        await this.model('Passkey').create({ ...record, transports: record.transports.join(',') }, { transaction });
        return { user: created, passkey: record };
      }),
    );
  }
}
