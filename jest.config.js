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
  // a worker per core: jest's default (cores - 1) runs the files one after another in a single
  // process on 2 cores, and leaves a core idle whenever the e2e lanes beside it wait on controllers
  // (a full run beside a cold CI build: 351 s with 2 workers, 449 s in band)
  maxWorkers: '100%',
  setupFilesAfterEnv: ['<rootDir>/test/setup-cdktf.ts'],
  // one temporary folder per run, removed at its end: runs leave nothing in /tmp
  globalSetup: '<rootDir>/test/support/run-tmpdir-setup.js',
  globalTeardown: '<rootDir>/test/support/run-tmpdir-teardown.js',
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { tier: 'unit' }]],
};
