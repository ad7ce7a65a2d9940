/** Unit + synth tests. ts-jest transpiles only (no type-check per test file) to stay fast; `npm run build` type-checks. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 60000,
  setupFilesAfterEnv: ['<rootDir>/test/setup-cdktf.ts'],
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { tier: 'unit' }]],
};
