import { createLogger } from '../../src/logger';
import { describeLocation } from '../../src/stores/describe-location';
import { MongoDatabase } from '../../src/stores/mongo/mongo-database';
import { sqlConnectionSettings } from '../../src/stores/sql/connection-options';

// How a DATABASE_URL becomes driver options: credentials decoded, timeouts set, TLS flags, and a
// description for the log that never carries the password.

const logger = createLogger({ env: 'test', logLevel: 'silent' });

describe('sqlConnectionSettings', () => {
  it('parses an SQL Server URL into tedious options with encryption and timeouts', () => {
    const { options, description } = sqlConnectionSettings(
      'mssql://sa:S3cr%40t-pass@db.example.com:14330/app?trustServerCertificate=true',
      'mssql',
      4_000,
      logger,
    );
    expect(options).toMatchObject({
      dialect: 'mssql',
      host: 'db.example.com',
      port: 14330,
      username: 'sa',
      password: 'S3cr@t-pass',
      database: 'app',
    });
    expect(options.dialectOptions).toEqual({
      options: {
        encrypt: true,
        trustServerCertificate: true,
        connectTimeout: 4_000,
        requestTimeout: 4_000,
        cancelTimeout: 4_000,
        appName: 'koa-api-service',
      },
    });
    expect(options.pool).toMatchObject({ acquire: 4_000 });
    expect(description).toBe('mssql db.example.com:14330/app');
  });

  it('defaults the SQL Server port and lets encryption be turned off', () => {
    const { options } = sqlConnectionSettings('mssql://sa:x@127.0.0.1/app?encrypt=false', 'mssql', 5_000, logger);
    expect(options.port).toBe(1433);
    expect((options.dialectOptions as { options: { encrypt: boolean } }).options.encrypt).toBe(false);
  });

  it('sets PostgreSQL connect, statement and query timeouts, and TLS from sslmode', () => {
    const plain = sqlConnectionSettings('postgres://app:pw@localhost/app', 'postgres', 3_000, logger);
    expect(plain.options.dialectOptions).toMatchObject({
      connectionTimeoutMillis: 3_000,
      statement_timeout: 3_000,
      query_timeout: 3_000,
    });
    expect(plain.options.dialectOptions).not.toHaveProperty('ssl');
    expect(plain.options.port).toBe(5432);
    const tls = sqlConnectionSettings('postgres://app:pw@db/app?sslmode=require', 'postgres', 3_000, logger);
    expect(tls.options.dialectOptions).toMatchObject({ ssl: { rejectUnauthorized: true } });
    const noVerify = sqlConnectionSettings('postgres://app:pw@db/app?sslmode=no-verify', 'postgres', 3_000, logger);
    expect(noVerify.options.dialectOptions).toMatchObject({ ssl: { rejectUnauthorized: false } });
  });

  it('uses utf8mb4 and a connect timeout on MySQL/MariaDB', () => {
    const { options, description } = sqlConnectionSettings(
      'mysql://app:hunter2hunter2@[::1]:3307/shop',
      'mysql',
      2_000,
      logger,
    );
    expect(options).toMatchObject({ host: '::1', port: 3307, database: 'shop' });
    expect(options.dialectOptions).toMatchObject({ connectTimeout: 2_000, charset: 'utf8mb4' });
    expect(description).not.toContain('hunter2');
  });

  it('sets the statement budget on each MySQL/MariaDB session: max_statement_time (MariaDB), else max_execution_time (MySQL)', async () => {
    const { options } = sqlConnectionSettings('mysql://app:pw@db/shop', 'mysql', 2_500, logger);
    const sent: string[] = [];
    const session = (refuse: RegExp) => ({
      query: (sql: string, callback: (error: Error | null) => void) => {
        sent.push(sql);
        callback(refuse.test(sql) ? new Error('Unknown system variable') : null);
      },
    });
    const afterConnect = options.hooks!.afterConnect as (connection: unknown, config: unknown) => Promise<void>;
    await afterConnect(session(/^$/), {});
    expect(sent).toEqual(['SET SESSION max_statement_time = 2.500']);
    sent.length = 0;
    await afterConnect(session(/max_statement_time/), {});
    expect(sent).toEqual(['SET SESSION max_statement_time = 2.500', 'SET SESSION max_execution_time = 2500']);
  });

  it('maps SQLite URLs to a file or to memory', () => {
    expect(sqlConnectionSettings('sqlite::memory:', 'sqlite', 1_000, logger)).toMatchObject({
      inMemory: true,
      description: 'sqlite (in memory)',
    });
    const file = sqlConnectionSettings('sqlite:./data/app.sqlite', 'sqlite', 1_000, logger);
    expect(file.inMemory).toBe(false);
    expect(file.options.storage).toBe(`${process.cwd()}/data/app.sqlite`);
    expect(sqlConnectionSettings('sqlite:///var/lib/app/app.sqlite', 'sqlite', 1_000, logger).options.storage).toBe(
      '/var/lib/app/app.sqlite',
    );
  });
});

describe('connection flags are read strictly (a typo must not turn TLS off)', () => {
  it.each([
    ['mssql', 'mssql://sa:p@db/app?encrypt=ture'],
    ['mssql', 'mssql://sa:p@db/app?trustServerCertificate=maybe'],
    ['postgres', 'postgres://u:p@db/app?ssl=maybe'],
    ['postgres', 'postgres://u:p@db/app?sslmode=requir'],
    ['mysql', 'mysql://u:p@db/app?ssl=on'],
  ] as const)('%s %s stops start-up naming DATABASE_URL', (engine, url) => {
    expect(() => sqlConnectionSettings(url, engine, 1_000, logger)).toThrow(/DATABASE_URL/);
  });

  it('accepts the documented spellings', () => {
    expect(
      sqlConnectionSettings('mssql://sa:p@db/app?encrypt=false', 'mssql', 1_000, logger).options.dialectOptions,
    ).toMatchObject({ options: { encrypt: false } });
    expect(
      sqlConnectionSettings('mssql://sa:p@db/app?encrypt=1', 'mssql', 1_000, logger).options.dialectOptions,
    ).toMatchObject({ options: { encrypt: true } });
    expect(
      sqlConnectionSettings('postgres://u:p@db/app?sslmode=no-verify', 'postgres', 1_000, logger).options
        .dialectOptions,
    ).toMatchObject({ ssl: { rejectUnauthorized: false } });
    expect(
      sqlConnectionSettings('mysql://u:p@db/app?ssl=yes', 'mysql', 1_000, logger).options.dialectOptions,
    ).toMatchObject({ ssl: { rejectUnauthorized: true } });
  });
});

describe('describeLocation', () => {
  it('drops credentials and query options', () => {
    expect(describeLocation('mongodb+srv://user:p%40ss@cluster0.example.net/app?authSource=admin&password=x')).toBe(
      'mongodb+srv://cluster0.example.net/app',
    );
    expect(describeLocation('postgres://app:pw@10.0.0.5:5432/app')).toBe('postgres://10.0.0.5:5432/app');
  });

  it('gives MongoDB hosts without the password', async () => {
    const database = new MongoDatabase(
      {
        url: 'mongodb://root:topsecret@a.example:27017,b.example:27017/app?replicaSet=rs0',
        timeoutMs: 1_000,
        connectAttempts: 1,
        stores: [],
      },
      logger,
    );
    expect(database.description).toBe('mongodb a.example:27017,b.example:27017/app');
    await database.close();
  });
});
