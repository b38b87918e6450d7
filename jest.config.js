/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Type-checking is `npm run typecheck`'s job; here ts-jest only transpiles (isolatedModules), which is fast.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  setupFiles: ['<rootDir>/test/support/env.ts'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 30_000,
  // Engine suites start containers or connect to servers; two workers suit a 2-core machine.
  maxWorkers: 2,
};
