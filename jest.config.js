/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Type-checking is `npm run typecheck`'s job; here ts-jest only transpiles (isolatedModules), which is fast.
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // otplib's hashing and base32 packages, and openid-client with its oauth4webapi and jose, ship as ES
    // modules only. Node 24 require()s them natively (the service does); Jest's module runtime cannot without
    // --experimental-vm-modules, so they are transpiled.
    '^.+/node_modules/(@noble|@scure|openid-client|oauth4webapi|jose)/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2023', isolatedModules: true } }],
  },
  transformIgnorePatterns: ['^(?!.*/node_modules/(@noble|@scure|openid-client|oauth4webapi|jose)/).*/node_modules/'],
  setupFiles: ['<rootDir>/test/support/env.ts'],
  globalSetup: '<rootDir>/test/support/engines-setup.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 30_000,
  // Two workers suit a 2-core machine. With an engine named by TEST_*_URL, every test file shares its one
  // database, and the store contract drops and re-creates every table (the migrations undone and redone):
  // files must then run one at a time (make test-all-dbs and scripts/ci/databases.sh pass --runInBand too).
  maxWorkers: ['TEST_POSTGRES_URL', 'TEST_MYSQL_URL', 'TEST_MSSQL_URL', 'TEST_MONGO_URL'].some((name) => process.env[name]) ? 1 : 2,
};
