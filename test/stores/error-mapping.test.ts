import { ConnectionRefusedError, DatabaseError, ForeignKeyConstraintError, UniqueConstraintError } from 'sequelize';
import {
  CheckViolationError,
  DuplicateKeyError,
  ForeignKeyViolationError,
  StoreUnavailableError,
} from '../../src/stores/errors';
import { translateMongoError } from '../../src/stores/mongo/mongo-errors';
import { translateSqlError } from '../../src/stores/sql/sql-errors';

// The two translation tables, fed the error objects each driver really raises (their shapes from the drivers'
// documentation and sources: pg's DatabaseError fields, mysql2's errno/code, tedious's RequestError `number`,
// the MongoDB server error `code`), wrapped the way Sequelize wraps them. Duplicate keys and outages are told
// by code, never by message text: every message below is in another language.

const driverError = (fields: Record<string, unknown>, name = 'Error') =>
  Object.assign(new Error('Meldung in einer anderen Sprache'), { name, ...fields });
/** tedious's RequestError for an error token of the server: `code` EREQUEST, the server's `number`, `state`, `class` (token/handler.js). */
const tediousError = (number: number, message: string) =>
  Object.assign(new Error(message), {
    name: 'RequestError',
    code: 'EREQUEST',
    number,
    state: 0,
    class: 16,
    serverName: 'db',
    procName: '',
    lineNumber: 1,
  });
/** How Sequelize wraps a driver error it does not recognise: a DatabaseError with the driver's error as parent. */
const wrapped = (original: Error) => new DatabaseError(Object.assign(original, { sql: 'INSERT …' }) as never);

describe('SQL errors by code', () => {
  it.each([
    ['PostgreSQL 23505', driverError({ code: '23505', severity: 'ERROR' })],
    ['MySQL/MariaDB 1062', driverError({ code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' })],
    ['SQL Server 2627 (unique constraint)', driverError({ number: 2627, state: 1, class: 14 }, 'RequestError')],
    ['SQL Server 2601 (unique index)', driverError({ number: 2601, state: 1, class: 14 }, 'RequestError')],
  ])('%s is a duplicate key (409), also when Sequelize did not recognise it', (_name, original) => {
    expect(translateSqlError(wrapped(original))).toBeInstanceOf(DuplicateKeyError);
  });

  it("Sequelize's own UniqueConstraintError is a duplicate key", () => {
    expect(translateSqlError(new UniqueConstraintError({}))).toBeInstanceOf(DuplicateKeyError);
  });

  it.each([
    ['a refused connection', new ConnectionRefusedError(driverError({ code: 'ECONNREFUSED' }) as never)],
    ['PostgreSQL admin shutdown 57P01', wrapped(driverError({ code: '57P01' }))],
    ['PostgreSQL connection exception 08006', wrapped(driverError({ code: '08006' }))],
    ['tedious socket error', wrapped(driverError({ code: 'ESOCKET' }, 'ConnectionError'))],
    ['tedious request timeout', wrapped(driverError({ code: 'ETIMEOUT' }, 'RequestError'))],
    ['mysql2 lost connection', wrapped(driverError({ code: 'PROTOCOL_CONNECTION_LOST' }))],
    ['SQLite file locked by another process', wrapped(driverError({ code: 'SQLITE_BUSY', errno: 5 }))],
  ])('%s is an outage (503)', (_name, error) => {
    expect(translateSqlError(error)).toBeInstanceOf(StoreUnavailableError);
  });

  it.each([
    ['PostgreSQL 23503', driverError({ code: '23503', severity: 'ERROR' })],
    ['MySQL/MariaDB 1451 (row is referenced)', driverError({ code: 'ER_ROW_IS_REFERENCED_2', errno: 1451 })],
    ['MySQL/MariaDB 1452 (no referenced row)', driverError({ code: 'ER_NO_REFERENCED_ROW_2', errno: 1452 })],
    [
      'SQL Server 547 naming a FOREIGN KEY constraint (insert)',
      tediousError(
        547,
        'The INSERT statement conflicted with the FOREIGN KEY constraint "FK__kit_marks__tag__3B75D760". The conflict occurred in database "app", table "dbo.kit_tags", column \'id\'.',
      ),
    ],
    [
      'SQL Server 547 naming a REFERENCE constraint (delete)',
      tediousError(
        547,
        'The DELETE statement conflicted with the REFERENCE constraint "FK__kit_tags__note__398D8EEE". The conflict occurred in database "app", table "dbo.kit_tags", column \'note\'.',
      ),
    ],
    [
      'SQL Server 547 whose kind follows the constraint, in a database named "CHECK"',
      tediousError(
        547,
        'INSERT deyimi "FK__kit_marks__tag__3B75D760" FOREIGN KEY kısıtlamasıyla çakıştı. Çakışma "CHECK" veritabanında, "dbo.check" tablosunda oluştu.',
      ),
    ],
    [
      'SQL Server 547 naming a constraint Sequelize named',
      tediousError(
        547,
        'The INSERT statement conflicted with the FOREIGN KEY constraint "kit_marks_tag_kit_tags_fk". The conflict occurred in database "CHECK".',
      ),
    ],
    [
      'SQL Server 547 in German, in a database named "CHECK"',
      tediousError(
        547,
        'Die INSERT-Anweisung steht in Konflikt mit der FOREIGN KEY-Einschränkung "FK_marks_tag". Der Konflikt trat in der "CHECK"-Datenbank, Tabelle "dbo.check", column \'id\' auf.',
      ),
    ],
    ['SQLite 787 (SQLITE_CONSTRAINT_FOREIGNKEY)', driverError({ code: 'SQLITE_CONSTRAINT', errno: 787 })],
  ])('%s is a foreign-key violation (the resource store says which: 409 or 422)', (_name, original) => {
    expect(translateSqlError(wrapped(original))).toBeInstanceOf(ForeignKeyViolationError);
  });

  it("Sequelize's own ForeignKeyConstraintError (SQL Server in English) is a foreign-key violation", () => {
    const original = tediousError(
      547,
      'The UPDATE statement conflicted with the FOREIGN KEY constraint "FK_x". The conflict occurred in database "app", table "dbo.kit_tags", column \'id\'.',
    );
    expect(
      translateSqlError(new ForeignKeyConstraintError({ parent: original as never, index: 'FK_x' })),
    ).toBeInstanceOf(ForeignKeyViolationError);
  });

  it.each([
    [
      'English',
      'The INSERT statement conflicted with the CHECK constraint "CK__kit_notes__rank__412EB0B6". The conflict occurred in database "app", table "dbo.kit_notes", column \'rank\'.',
    ],
    [
      'German',
      'Die UPDATE-Anweisung steht in Konflikt mit der CHECK-Einschränkung "CK_rank_positive". Der Konflikt trat in der "app"-Datenbank, Tabelle "dbo.kit_notes", column \'rank\' auf.',
    ],
    [
      'French',
      'L\'instruction INSERT est en conflit avec la contrainte CHECK "CK_rank_positive". Le conflit s\'est produit dans la base de données "app", table "dbo.kit_notes", column \'rank\'.',
    ],
    // The constraint's kind after its name (word order of languages like Turkish or Japanese), a rule's deterministic name.
    [
      'kind after the name',
      'INSERT deyimi "kit_notes_rank_check" CHECK kısıtlamasıyla çakıştı. Çakışma "app" veritabanında, "dbo.kit_notes" tablosunda oluştu.',
    ],
    [
      'no keyword at all, guillemets',
      "L'instruction UPDATE est en conflit avec la contrainte « kit_notes_status_check ». Le conflit s'est produit dans la base de données « app ».",
    ],
  ])(
    'SQL Server 547 naming a CHECK constraint (%s) is no foreign-key violation: a CHECK refusal',
    (_language, message) => {
      expect(translateSqlError(wrapped(tediousError(547, message)))).toBeInstanceOf(CheckViolationError);
    },
  );

  it.each([
    [
      'PostgreSQL 23514',
      driverError({ code: '23514', constraint: 'kit_tickets_status_check' }),
      'kit_tickets_status_check',
    ],
    [
      'MariaDB 4025',
      driverError({ errno: 4025, message: 'CONSTRAINT `kit_tickets_status_check` failed for `app`.`kit_tickets`' }),
      'kit_tickets_status_check',
    ],
    [
      'MySQL 3819',
      driverError({ errno: 3819, message: "Check constraint 'kit_tickets_priority_check' is violated." }),
      'kit_tickets_priority_check',
    ],
    [
      'SQLite 275',
      driverError({
        code: 'SQLITE_CONSTRAINT',
        errno: 275,
        message: 'SQLITE_CONSTRAINT: CHECK constraint failed: kit_tickets_code_check',
      }),
      'kit_tickets_code_check',
    ],
  ])('%s (a CHECK constraint) is a CheckViolationError naming the constraint', (_case, error, constraint) => {
    const translated = translateSqlError(wrapped(error));
    expect(translated).toBeInstanceOf(CheckViolationError);
    expect(translated).toMatchObject({ constraint });
  });

  it('anything else passes through unchanged (a bug: 500)', () => {
    const other = wrapped(driverError({ code: '42P01' })); // undefined table
    expect(translateSqlError(other)).toBe(other);
  });
});

describe('MongoDB errors by name and code (no instanceof on a driver copy)', () => {
  it.each([
    ['MongoServerError 11000', driverError({ code: 11000, keyPattern: { email: 1 } }, 'MongoServerError')],
    ['MongoBulkWriteError 11000', driverError({ code: 11000 }, 'MongoBulkWriteError')],
    ['legacy 11001', driverError({ code: 11001 }, 'MongoServerError')],
  ])('%s is a duplicate key', (_name, error) => {
    expect(translateMongoError(error)).toBeInstanceOf(DuplicateKeyError);
  });

  it.each([
    ['server selection', driverError({}, 'MongoServerSelectionError')],
    ['network', driverError({}, 'MongoNetworkError')],
    ['maxTimeMS exceeded (50)', driverError({ code: 50 }, 'MongoServerError')],
    ['not primary (10107)', driverError({ code: 10107 }, 'MongoServerError')],
  ])('%s is an outage', (_name, error) => {
    expect(translateMongoError(error)).toBeInstanceOf(StoreUnavailableError);
  });

  it("a code on an error that is not the driver's means nothing", () => {
    const other = driverError({ code: 11000 }, 'TypeError');
    expect(translateMongoError(other)).toBe(other);
  });
});
