/** Unit + synth tests. ts-jest transpiles only (no type-check per test file) to stay fast; `npm run build` type-checks. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // sized for a loaded 2-core machine: .ci/run runs this tier beside the e2e lanes, where the
  // whole-project type check took 75 s (about 6 s quiet); a limit only has to end a hang
  testTimeout: 600000,
  setupFilesAfterEnv: ['<rootDir>/test/setup-cdktf.ts'],
  // one temporary folder per run, removed at its end: runs leave nothing in /tmp
  globalSetup: '<rootDir>/test/support/run-tmpdir-setup.js',
  globalTeardown: '<rootDir>/test/support/run-tmpdir-teardown.js',
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { tier: 'unit' }]],
};
