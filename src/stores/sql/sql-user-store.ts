import { randomUUID } from 'node:crypto';
import { normaliseEmail } from '../email';
import { guarded } from '../guard';
import type { NewUser, UserRecord, UserStore } from '../types';
import type { UserRow } from './models';
import { translateSqlError } from './sql-errors';

function toRecord(row: UserRow): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.passwordHash, role: row.role, name: row.name ?? null };
}

/** The user store on a relational engine (table `users`). */
export class SqlUserStore implements UserStore {
  constructor(
    private readonly User: typeof UserRow,
    private readonly timeoutMs: number,
  ) {}

  private run<T>(operation: () => Promise<T>): Promise<T> {
    return guarded(operation, this.timeoutMs, translateSqlError);
  }

  findByEmail(email: string): Promise<UserRecord | null> {
    return this.run(async () => {
      const row = await this.User.findOne({ where: { email: normaliseEmail(email) } });
      return row ? toRecord(row) : null;
    });
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.run(async () => {
      const row = await this.User.findByPk(id);
      return row ? toRecord(row) : null;
    });
  }

  create(user: NewUser): Promise<UserRecord> {
    return this.run(async () => {
      const row = await this.User.create({
        id: randomUUID(),
        email: normaliseEmail(user.email),
        passwordHash: user.passwordHash,
        role: user.role,
        name: user.name ?? null,
      });
      return toRecord(row);
    });
  }

  updatePasswordHash(id: string, passwordHash: string): Promise<void> {
    return this.run(async () => {
      await this.User.update({ passwordHash }, { where: { id } });
    });
  }
}
