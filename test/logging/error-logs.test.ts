import request from 'supertest';
import { UniqueConstraintError, DatabaseError } from 'sequelize';
import { serializeError } from '../../src/log-errors';
import { DuplicateKeyError, StoreUnavailableError } from '../../src/stores/errors';
import { buildAuthApp } from '../support/auth-helpers';
import type { TestApp } from '../support/test-app';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';

// No personal data in error logs: a database error's statement and bound values (an email, an argon2 hash)
// never reach a log line. Before the service's own serializer, pino wrote the whole driver error.

const EMAIL = 'private.person@example.com';

describe('the error serializer', () => {
  const pgError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), {
    code: '23505',
    detail: `Key (email)=(${EMAIL}) already exists.`,
    severity: 'ERROR',
    routine: '_bt_check_unique',
  });
  const mysqlError = Object.assign(new Error(`Duplicate entry '${EMAIL}' for key 'users_email_unique'`), {
    code: 'ER_DUP_ENTRY',
    errno: 1062,
    sqlState: '23000',
    sqlMessage: `Duplicate entry '${EMAIL}' for key 'users_email_unique'`,
    sql: `INSERT INTO users (email, password_hash) VALUES ('${EMAIL}', '$argon2id$v=19$m=19456')`,
  });
  const tediousError = Object.assign(
    new Error(`Violation of UNIQUE KEY constraint. The duplicate key value is (${EMAIL}).`),
    { name: 'RequestError', number: 2627 },
  );

  it.each([
    ['PostgreSQL (pg)', pgError, '23505'],
    ['MySQL (mysql2)', mysqlError, 'ER_DUP_ENTRY'],
    ['SQL Server (tedious)', tediousError, 2627],
  ])('%s: kind and code, no message, statement or value', (_engine, driverError, code) => {
    const wrapped = Object.assign(
      new UniqueConstraintError({ parent: driverError as never, original: driverError as never }),
      { sql: (driverError as { sql?: string }).sql ?? '' },
    );
    for (const error of [driverError, wrapped, new DuplicateKeyError(undefined, { cause: wrapped })]) {
      const line = JSON.stringify(serializeError(error));
      expect(line).not.toContain(EMAIL);
      expect(line).not.toContain('argon2');
      expect(line).toContain(JSON.stringify(code));
    }
  });

  it("keeps the message and stack of the service's own errors", () => {
    const described = serializeError(new StoreUnavailableError('The database did not answer within 5000 ms'));
    expect(described).toMatchObject({
      type: 'StoreUnavailableError',
      message: 'The database did not answer within 5000 ms',
    });
    expect(described.stack).toMatch(/^StoreUnavailableError: The database did not answer/);
    const sequelize = serializeError(
      new DatabaseError(
        Object.assign(new Error(`near "x": syntax error ${EMAIL}`), { sql: `SELECT '${EMAIL}'` }) as never,
      ),
    );
    expect(JSON.stringify(sequelize)).not.toContain(EMAIL);
  });
});

describe('a database error over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await buildAuthApp({ USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
    // Break the table under the running service: every statement on it now fails in the driver.
    const database = app.services.database as unknown as { inner?: SqlDatabase } & SqlDatabase;
    await (database.inner ?? database).sequelize.query('ALTER TABLE users RENAME TO users_gone');
  });
  afterAll(() => app.close());

  it('logs the failed login and registration without the email or the password hash', async () => {
    await request(app.app.callback())
      .post('/api/auth/login')
      .send({ email: EMAIL, password: 'whatever it is 1' })
      .expect(500);
    await request(app.app.callback())
      .post('/api/auth/register')
      .send({ name: 'P', email: EMAIL, password: 'a long enough passphrase 9' })
      .expect(500);
    const errors = app.logLines().filter((line) => line.msg === 'unhandled error');
    expect(errors).toHaveLength(2);
    const text = JSON.stringify(errors);
    expect(text).not.toContain(EMAIL);
    expect(text).not.toContain('argon2');
    // The kind, the store and operation, the driver's code: never the statement or its values.
    expect(errors[0].err).toMatchObject({
      type: expect.stringMatching(/^Sequelize/),
      operation: 'users.findByEmail',
      cause: { code: 'SQLITE_ERROR' },
    });
    expect(errors[1].err).toMatchObject({ operation: 'users.create' });
  });
});
