// Jest setup of the `besu` project (jest.config.js): every stack of these test files runs behind
// Besu-faithful fronts, as `TEST_RPC_FRONT=besu npx jest ...` does for a single run.
process.env.TEST_RPC_FRONT = 'besu';
