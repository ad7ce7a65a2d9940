/** Unit + synth tests. ts-jest transpiles only (no type-check per test file) to stay fast; `npm run build` type-checks. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // sized for a loaded 2-core machine: .ci/run runs this tier beside the builds or the e2e tier
  testTimeout: 180000,
  setupFilesAfterEnv: ['<rootDir>/test/setup-cdktf.ts'],
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { tier: 'unit' }]],
};
