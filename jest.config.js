/**
 * Four projects. `npm test` runs `unit`, `integration` and `besu` together in parallel workers
 * (every test file has its own database, dev chains, ports and temporary directories), then
 * `serial` alone, one file at a time.
 *
 * - unit: tests beside the code in src/
 * - integration: tests/ against the real service, PostgreSQL and dev chains
 * - besu: the gateway, deploy, faucet, explorer and JSON-RPC door tests again, behind Besu-faithful fronts
 *   (TEST_RPC_FRONT=besu, tests/kit/besu-node.ts): only their blocks whose behaviour differs behind
 *   Besu (fees and gas prices, the node's refusals and words, receipts, validators, the node's
 *   authentication and WebSocket); those the fronts cannot change are `describeAnyFront`/`itAnyFront`
 *   (tests/jest-kit/fronts.ts), skipped here
 * - serial: tests that prove wall-clock bounds (a request answered within 1 s, a compile within
 *   5 s) or start the service with its zero-config defaults (embedded PostgreSQL on its default
 *   port); other workers sharing the cores would make them fail for reasons not their own
 */

// Node's on-disk code cache for every process the suite starts (workers, service processes, tsc,
// linters): JavaScript compiled once is not compiled again by the next process that loads it.
process.env.NODE_COMPILE_CACHE ??= require('node:path').join(
  require('node:os').tmpdir(),
  'devportal-test-node-compile-cache',
);

/** Timing-sensitive or default-port tests, run alone after the parallel pass (see above). */
const SERIAL = [
  // /healthz next to a flood, answers within 1 s and 5 s, per-second rate-limit windows.
  'tests/hostile-clients.test.ts',
  // A developer's compile within 5 s while solc burns a core on a pathological source.
  'src/modules/contracts/compiler/compiler-lanes.test.ts',
  // The same over HTTP: an honest compile within 5 s behind other clients' pathological sources.
  'tests/compile-fairness.test.ts',
  // `npm start` with the embedded PostgreSQL on its default port; a no-op build within 5 s.
  'tests/project/npm-start.test.ts',
  // The zero-config service, embedded PostgreSQL on its default port.
  'tests/process.test.ts',
  // The same as root from a project inside a 0700 directory (its PostgreSQL binaries copied aside).
  'tests/project/closed-clone-start.test.ts',
  // Fifty clients of a 5.7 MB document at once: 285 MB through loopback, its event-loop hold measured.
  'tests/contract-documents-burst.test.ts',
  // liveBlocks within 100 ms of the node mining each block (node WebSocket).
  'tests/live-latency.test.ts',
  // The chain watcher publishes within 100 ms of the node's announcement, polls within 250 ms.
  'src/modules/explorer/runtime/chain-watcher.test.ts',
];

/**
 * The tests that run a second time behind the Besu-faithful fronts, in their blocks that differ
 * behind Besu (the others are marked `describeAnyFront`/`itAnyFront`).
 */
const BESU = [
  'tests/gateway.test.ts',
  'tests/contracts.test.ts',
  'tests/faucet.test.ts',
  'tests/explorer.test.ts',
  // The JSON-RPC door relays the node's answers and errors: Besu's own words must pass through too.
  'tests/rpc-door.test.ts',
];

const escapeRegExp = (file) => file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** What every project shares: Node, reflect-metadata, ts-jest. */
const common = {
  testEnvironment: 'node',
  // Jest's runtime with V8's code cache across test files (tests/jest-kit/code-cache-runtime.js).
  runtime: '<rootDir>/tests/jest-kit/code-cache-runtime.js',
  setupFiles: ['reflect-metadata'],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      // Type errors are caught by `npm run typecheck`; tests only need each file transpiled on its own
      // (to CommonJS): no TypeScript program per worker, which would cost each worker seconds of CPU.
      {
        tsconfig: {
          ...require('./tsconfig.json').compilerOptions,
          module: 'commonjs',
          moduleResolution: 'node',
          isolatedModules: true,
        },
        diagnostics: false,
      },
    ],
  },
  testPathIgnorePatterns: ['/node_modules/', ...SERIAL.map((file) => `<rootDir>/${escapeRegExp(file)}$`)],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', roots: ['<rootDir>/src'], testMatch: ['**/*.test.ts'] },
    { ...common, displayName: 'integration', roots: ['<rootDir>/tests'], testMatch: ['**/*.test.ts'] },
    {
      ...common,
      displayName: 'besu',
      roots: ['<rootDir>/tests'],
      testMatch: BESU.map((file) => `<rootDir>/${file}`),
      setupFiles: [...common.setupFiles, '<rootDir>/tests/kit/besu-front.setup.ts'],
    },
    {
      ...common,
      displayName: 'serial',
      roots: ['<rootDir>/src', '<rootDir>/tests'],
      testMatch: SERIAL.map((file) => `<rootDir>/${file}`),
      testPathIgnorePatterns: ['/node_modules/'],
    },
  ],
};
