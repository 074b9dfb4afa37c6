/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['reflect-metadata'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      // Type errors are caught by `npm run typecheck`; tests only need the code transpiled (to CommonJS).
      {
        tsconfig: { ...require('./tsconfig.json').compilerOptions, module: 'commonjs', moduleResolution: 'node' },
        diagnostics: false,
      },
    ],
  },
  testTimeout: 60000,
};
