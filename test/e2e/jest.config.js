/** e2e tier: real terraform, local OpenStack, local kube-apiserver. Run through `npm run test:e2e`. */
module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.test.ts'],
  transform: { '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 30 * 60 * 1000,
  maxWorkers: 1,
  reporters: ['default', ['<rootDir>/test/support/summary-reporter.js', { tier: 'e2e' }]],
};
